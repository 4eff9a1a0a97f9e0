import { z } from 'zod';
import { redeliverEvent } from '../../events/webhooks.js';
import { requireOwner } from '../auth.js';
import { idParams } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors } from '../schemas.js';
export function eventRedeliverRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/events/:id/redeliver', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'redeliverEvent',
                    summary: 'Redeliver an event',
                    description: 'Queues the event again for every enabled endpoint that subscribes to it (a delivery in flight is left alone); `queued` counts the deliveries made due now. Owner keys only.',
                    tags: ['webhooks'],
                    success: 'The event was queued again',
                    // FORBIDDEN_ROLE: an editor key is refused by the route itself (owner only).
                    errors: ['FORBIDDEN_ROLE', 'EVENT_NOT_FOUND'],
                    example: { response: { ok: true, event_id: '2d9f4a61-8c3e-4b7a-a5d0-1e6c9b2f8a47', queued: 1 } },
                }),
                params: idParams,
                response: {
                    200: z.object({ ok: z.literal(true), event_id: z.string(), queued: z.number().int() }),
                    ...commonErrors,
                },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            return { ok: true, ...(await redeliverEvent(ctx, issuer, request.params.id)) };
        });
    };
}
