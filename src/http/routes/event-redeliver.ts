/** POST /api/{rut}/events/{id}/redeliver — send an event again (docs/design.md §9, owner). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { redeliverEvent } from '../../events/webhooks.ts';
import { requireOwner } from '../auth.ts';
import { idParams } from '../event-schemas.ts';
import { routeDoc } from '../openapi.ts';
import { commonErrors } from '../schemas.ts';

export function eventRedeliverRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/:rut/events/:id/redeliver',
      {
        config: { auth: 'write' },
        schema: {
          ...routeDoc({
            operationId: 'redeliverEvent',
            summary: 'Redeliver an event',
            description:
              'Queues the event again for every enabled endpoint that subscribes to it (a delivery in flight is left alone); `queued` counts the deliveries made due now. Owner keys only.',
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
      },
      async (request) => {
        const { issuer } = requireOwner(request);
        return { ok: true as const, ...(await redeliverEvent(ctx, issuer, request.params.id)) };
      },
    );
  };
}
