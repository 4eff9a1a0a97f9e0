/** GET /api/{rut}/webhooks — the issuer's webhook endpoints (DESIGN §9; secrets never shown). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { listEndpoints } from '../../events/webhooks.ts';
import { requireAuth } from '../auth.ts';
import { endpointSchema } from '../event-schemas.ts';
import { commonErrors, rutParams } from '../schemas.ts';

export function webhooksListRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/webhooks',
      {
        config: { auth: 'read' },
        schema: {
          operationId: 'listWebhooks',
          summary: 'List webhook endpoints',
          tags: ['webhooks'],
          params: rutParams,
          response: { 200: z.object({ ok: z.literal(true), data: z.array(endpointSchema) }), ...commonErrors },
        },
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        return { ok: true as const, data: await listEndpoints(ctx, issuer) };
      },
    );
  };
}
