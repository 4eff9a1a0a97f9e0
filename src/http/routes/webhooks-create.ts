/** POST /api/{rut}/webhooks — add a webhook endpoint; the secret is shown only here (DESIGN §9, owner). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { createEndpoint } from '../../events/webhooks.ts';
import { requireOwner } from '../auth.ts';
import { endpointSchema, eventTypeSchema } from '../event-schemas.ts';
import { commonErrors, errorResponse, rutParams } from '../schemas.ts';

const body = z.strictObject({
  url: z.string().min(1).max(2000, 'url must be at most 2000 characters'),
  events: z.array(eventTypeSchema).max(50).optional(),
  description: z.string().max(200, 'description must be at most 200 characters').optional(),
});

export function webhooksCreateRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/:rut/webhooks',
      {
        config: { auth: 'write' },
        schema: {
          operationId: 'createWebhook',
          summary: 'Create a webhook endpoint',
          description:
            'Deliveries follow the Standard Webhooks specification: headers webhook-id, webhook-timestamp and webhook-signature (v1, HMAC-SHA256 with the secret). `events` empty or absent: every event. The `secret` is shown only in this answer. At most 10 endpoints per issuer.',
          tags: ['webhooks'],
          params: rutParams,
          body,
          response: {
            200: endpointSchema.extend({ ok: z.literal(true), secret: z.string() }),
            ...commonErrors,
            409: errorResponse,
            422: errorResponse,
          },
        },
      },
      async (request) => {
        const { issuer } = requireOwner(request);
        return { ok: true as const, ...(await createEndpoint(ctx, issuer, request.body)) };
      },
    );
  };
}
