/** DELETE /api/{rut}/webhooks/{id} — remove a webhook endpoint (docs/design.md §9, owner). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { deleteEndpoint } from '../../events/webhooks.ts';
import { requireOwner } from '../auth.ts';
import { idParams } from '../event-schemas.ts';
import { routeDoc } from '../openapi.ts';
import { commonErrors } from '../schemas.ts';

export function webhooksDeleteRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.delete(
      '/api/:rut/webhooks/:id',
      {
        config: { auth: 'write' },
        schema: {
          ...routeDoc({
            operationId: 'deleteWebhook',
            summary: 'Delete a webhook endpoint',
            description: 'Its pending deliveries and their log are dropped with it. Owner keys only.',
            tags: ['webhooks'],
            success: 'The endpoint was deleted',
            errors: ['FORBIDDEN_ROLE', 'WEBHOOK_NOT_FOUND'],
            example: { response: { ok: true, id: '9e3a1f07-52c4-4d6b-8a2e-7f0b3c9d1e54' } },
          }),
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
