/** GET /api/{rut}/events — the issuer's events, newest first (DESIGN §9). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { listEvents } from '../../events/events.ts';
import { requireAuth } from '../auth.ts';
import { eventSchema, eventTypeSchema } from '../event-schemas.ts';
import { commonErrors, queryInt, rutParams } from '../schemas.ts';

const querystring = z.strictObject({
  type: eventTypeSchema.optional(),
  page: queryInt('page', 1, 1_000_000).optional(),
  limit: queryInt('limit', 1, 100).optional(),
});

export function eventsRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/events',
      {
        config: { auth: 'read' },
        schema: {
          operationId: 'listEvents',
          summary: 'List events',
          description:
            'Events about documents, folios, the certificate and e-mails, newest first. Each entry is the exact body a webhook endpoint receives.',
          tags: ['events'],
          params: rutParams,
          querystring,
          response: {
            200: z.object({
              ok: z.literal(true),
              data: z.array(eventSchema),
              total: z.number().int(),
              page: z.number().int(),
              limit: z.number().int(),
            }),
            ...commonErrors,
          },
        },
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        const q = request.query;
        const result = await listEvents(ctx, issuer, {
          ...(q.type && { type: q.type }),
          page: q.page ?? 1,
          limit: q.limit ?? 30,
        });
        return { ok: true as const, ...result } as never;
      },
    );
  };
}
