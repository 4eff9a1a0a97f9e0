/** POST /api/{rut}/webhooks/{id}/test — send a `ping` now and answer how it went (docs/design.md §9, owner). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { testEndpoint } from '../../events/webhooks.ts';
import { requireOwner } from '../auth.ts';
import { idParams } from '../event-schemas.ts';
import { routeDoc } from '../openapi.ts';
import { commonErrors } from '../schemas.ts';

export function webhooksTestRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/:rut/webhooks/:id/test',
      {
        config: { auth: 'write' },
        schema: {
          ...routeDoc({
            operationId: 'testWebhook',
            summary: 'Send a ping to a webhook endpoint',
            description:
              'Writes a `ping` event for this endpoint and attempts its delivery at once (10 s at most); a failed ping is retried like any event. A ping the endpoint refuses is still a 200: `delivered: false` with its `status` or `error`. Owner keys only.',
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
      },
      async (request) => {
        const { issuer } = requireOwner(request);
        return { ok: true as const, ...(await testEndpoint(ctx, issuer, request.params.id)) };
      },
    );
  };
}
