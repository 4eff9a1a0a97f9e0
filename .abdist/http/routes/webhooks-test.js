import { z } from 'zod';
import { testEndpoint } from '../../events/webhooks.js';
import { requireOwner } from '../auth.js';
import { idParams } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors } from '../schemas.js';
export function webhooksTestRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/webhooks/:id/test', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'testWebhook',
                    summary: 'Send a ping to a webhook endpoint',
                    description: 'Writes a `ping` event for this endpoint and attempts its delivery at once (10 s at most); a failed ping is retried like any event. A ping the endpoint refuses is still a 200: `delivered: false` with its `status` or `error`. Owner keys only.',
                    tags: ['webhooks'],
                    success: 'How the ping went',
                    errors: ['FORBIDDEN_ROLE', 'WEBHOOK_NOT_FOUND'],
                    example: {
                        response: {
                            ok: true,
                            event_id: '7c1d3e95-0b2a-4f68-9d47-e5a8b6c2f031',
                            delivered: true,
                            status: 200,
                            latency_ms: 94,
                            error: null,
                        },
                    },
                }),
                params: idParams,
                response: {
                    200: z.object({
                        ok: z.literal(true),
                        event_id: z.string(),
                        delivered: z.boolean(),
                        status: z.number().int().nullable(),
                        latency_ms: z.number().int().nullable(),
                        error: z.string().nullable(),
                    }),
                    ...commonErrors,
                },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            return { ok: true, ...(await testEndpoint(ctx, issuer, request.params.id)) };
        });
    };
}
