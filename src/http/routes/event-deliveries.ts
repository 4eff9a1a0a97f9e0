/** GET /api/{rut}/events/{id}/deliveries — the delivery log of one event (DESIGN §9). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { deliveriesOfEvent } from '../../events/webhooks.ts';
import { requireAuth } from '../auth.ts';
import { idParams } from '../event-schemas.ts';
import { commonErrors } from '../schemas.ts';

const deliverySchema = z.object({
  endpoint_id: z.string(),
  url: z.string(),
  state: z.enum(['pending', 'sending', 'delivered', 'failed']),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  log: z.array(
    z.object({
      attempt: z.number().int(),
      status: z.number().int().nullable(),
      latency_ms: z.number().int(),
      error: z.string().nullable(),
      at: z.string(),
    }),
  ),
});

export function eventDeliveriesRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/events/:id/deliveries',
      {
        config: { auth: 'read' },
        schema: {
          operationId: 'listEventDeliveries',
          summary: 'Delivery log of an event',
          description: 'Per webhook endpoint: the delivery state and every attempt (HTTP status, latency, error).',
          tags: ['events'],
          params: idParams,
          response: { 200: z.object({ ok: z.literal(true), data: z.array(deliverySchema) }), ...commonErrors },
        },
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        return { ok: true as const, data: await deliveriesOfEvent(ctx, issuer, request.params.id) };
      },
    );
  };
}
