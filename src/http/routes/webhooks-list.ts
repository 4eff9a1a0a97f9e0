/** GET /api/{rut}/webhooks — the issuer's webhook endpoints (docs/design.md §9; secrets never shown). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { listEndpoints } from '../../events/webhooks.ts';
import { requireAuth } from '../auth.ts';
import { endpointSchema } from '../event-schemas.ts';
import { routeDoc } from '../openapi.ts';
import { commonErrors, rutParams } from '../schemas.ts';

export function webhooksListRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/webhooks',
      {
        config: { auth: 'read' },
        schema: {
          ...routeDoc({
            operationId: 'listWebhooks',
            summary: 'List webhook endpoints',
            description:
              "The issuer's webhook endpoints, oldest first, without their secrets. `failing_since` is set while deliveries fail; an endpoint failing for 3 days is disabled (`enabled: false`, `disabled_at`).",
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
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        return { ok: true as const, data: await listEndpoints(ctx, issuer) };
      },
    );
  };
}
