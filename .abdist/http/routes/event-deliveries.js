import { z } from 'zod';
import { deliveriesOfEvent } from '../../events/webhooks.js';
import { requireAuth } from '../auth.js';
import { idParams } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors } from '../schemas.js';
const deliverySchema = z.object({
    endpoint_id: z.string(),
    url: z.string(),
    state: z.enum(['pending', 'sending', 'delivered', 'failed']),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    log: z.array(z.object({
        attempt: z.number().int(),
        status: z.number().int().nullable(),
        latency_ms: z.number().int(),
        error: z.string().nullable(),
        at: z.string(),
    })),
});
export function eventDeliveriesRoute(ctx) {
    return async (app) => {
        app.get('/api/:rut/events/:id/deliveries', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listEventDeliveries',
                    summary: 'Delivery log of an event',
                    description: 'Per webhook endpoint: the delivery state and every attempt (HTTP status, latency, error). `next_attempt_at` is set while a retry is pending.',
                    tags: ['events'],
                    success: 'The deliveries of the event',
                    errors: ['EVENT_NOT_FOUND'],
                    example: {
                        response: {
                            ok: true,
                            data: [
                                {
                                    endpoint_id: '9e3a1f07-52c4-4d6b-8a2e-7f0b3c9d1e54',
                                    url: 'https://erp.losandes.cl/hooks/timbre',
                                    state: 'delivered',
                                    attempts: 2,
                                    next_attempt_at: null,
                                    delivered_at: '2026-11-23T13:06:12.402Z',
                                    log: [
                                        {
                                            attempt: 1,
                                            status: 503,
                                            latency_ms: 212,
                                            error: 'HTTP 503',
                                            at: '2026-11-23T13:05:42.391Z',
                                        },
                                        { attempt: 2, status: 200, latency_ms: 87, error: null, at: '2026-11-23T13:06:12.402Z' },
                                    ],
                                },
                            ],
                        },
                    },
                }),
                params: idParams,
                response: { 200: z.object({ ok: z.literal(true), data: z.array(deliverySchema) }), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            return { ok: true, data: await deliveriesOfEvent(ctx, issuer, request.params.id) };
        });
    };
}
