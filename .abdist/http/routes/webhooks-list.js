import { z } from 'zod';
import { listEndpoints } from '../../events/webhooks.js';
import { requireAuth } from '../auth.js';
import { endpointSchema } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParams } from '../schemas.js';
export function webhooksListRoute(ctx) {
    return async (app) => {
        app.get('/api/:rut/webhooks', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listWebhooks',
                    summary: 'List webhook endpoints',
                    description: "The issuer's webhook endpoints, oldest first, without their secrets. `failing_since` is set while deliveries fail; an endpoint failing for 3 days is disabled (`enabled: false`, `disabled_at`).",
                    tags: ['webhooks'],
                    success: 'The webhook endpoints',
                    errors: [],
                    example: {
                        response: {
                            ok: true,
                            data: [
                                {
                                    id: '9e3a1f07-52c4-4d6b-8a2e-7f0b3c9d1e54',
                                    url: 'https://erp.losandes.cl/hooks/timbre',
                                    events: ['document.accepted', 'document.rejected'],
                                    description: 'ERP',
                                    enabled: true,
                                    created_at: '2026-11-23T13:00:05.731Z',
                                    disabled_at: null,
                                    failing_since: null,
                                },
                            ],
                        },
                    },
                }),
                params: rutParams,
                response: { 200: z.object({ ok: z.literal(true), data: z.array(endpointSchema) }), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            return { ok: true, data: await listEndpoints(ctx, issuer) };
        });
    };
}
