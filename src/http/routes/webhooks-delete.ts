/** DELETE /api/{rut}/webhooks/{id} — remove a webhook endpoint (DESIGN §9, owner). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { deleteEndpoint } from '../../events/webhooks.ts';
import { requireOwner } from '../auth.ts';
import { idParams } from '../event-schemas.ts';
import { commonErrors } from '../schemas.ts';

export function webhooksDeleteRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.delete(
      '/api/:rut/webhooks/:id',
      {
        config: { auth: 'write' },
        schema: {
          operationId: 'deleteWebhook',
          summary: 'Delete a webhook endpoint',
          description: 'Its pending deliveries are dropped with it.',
          tags: ['webhooks'],
          params: idParams,
          response: { 200: z.object({ ok: z.literal(true), id: z.string() }), ...commonErrors },
        },
      },
      async (request) => {
        const { issuer } = requireOwner(request);
        await deleteEndpoint(ctx, issuer, request.params.id);
        return { ok: true as const, id: request.params.id };
      },
    );
  };
}
