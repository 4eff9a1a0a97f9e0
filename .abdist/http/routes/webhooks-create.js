import { z } from 'zod';
import { createEndpoint } from '../../events/webhooks.js';
import { requireOwner } from '../auth.js';
import { endpointSchema, eventTypeSchema } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, errorResponse, rutParams } from '../schemas.js';
const body = z.strictObject({
    url: z.string().min(1).max(2000, 'url must be at most 2000 characters'),
    events: z.array(eventTypeSchema).max(50).optional(),
    description: z.string().max(200, 'description must be at most 200 characters').optional(),
});
export function webhooksCreateRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/webhooks', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'createWebhook',
                    summary: 'Create a webhook endpoint',
                    description: 'Deliveries follow the Standard Webhooks specification: headers webhook-id, webhook-timestamp and webhook-signature (v1, HMAC-SHA256 with the secret). `events` empty or absent: every event. The `secret` is shown only in this answer. At most 10 endpoints per issuer. The URL must not resolve to a private, loopback or link-local address, and must be https for a live issuer. Owner keys only.',
                    tags: ['webhooks'],
                    success: 'The new endpoint, with its signing secret (shown only here)',
                    errors: ['FORBIDDEN_ROLE', 'WEBHOOK_LIMIT_REACHED', 'WEBHOOK_URL_BLOCKED'],
                    example: {
                        request: {
                            url: 'https://erp.losandes.cl/hooks/timbre',
                            events: ['document.accepted', 'document.rejected'],
                            description: 'ERP',
                        },
                        response: {
                            ok: true,
                            id: '9e3a1f07-52c4-4d6b-8a2e-7f0b3c9d1e54',
                            url: 'https://erp.losandes.cl/hooks/timbre',
                            events: ['document.accepted', 'document.rejected'],
                            description: 'ERP',
                            enabled: true,
                            created_at: '2026-11-23T13:00:05.731Z',
                            disabled_at: null,
                            failing_since: null,
                            secret: 'whsec_MfKQ9r8GKYqXTNa3bS1dPl0w4Vx7zH2cE6uJ5nRyBgo=',
                        },
                    },
                }),
                params: rutParams,
                body,
                response: {
                    200: endpointSchema.extend({ ok: z.literal(true), secret: z.string() }),
                    ...commonErrors,
                    409: errorResponse,
                    422: errorResponse,
                },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            return { ok: true, ...(await createEndpoint(ctx, issuer, request.body)) };
        });
    };
}
