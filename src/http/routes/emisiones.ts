/** GET /api/{rut}/emisiones — list issued documents (contract §4.4, DESIGN §5). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { refusedCharacter } from '../../dte/xml-text.ts';
import { ESTADOS_SII, listDocuments } from '../../issuing/list-documents.ts';
import { requireAuth } from '../auth.ts';
import { commonErrors, documentSchema, dteTypeQuery, queryDate, queryInt, rutParams } from '../schemas.ts';

const querystring = z
  .strictObject(
    {
      tipo_dte: dteTypeQuery.optional(),
      estado_sii: z.enum(ESTADOS_SII, { message: `estado_sii must be one of ${ESTADOS_SII.join(', ')}` }).optional(),
      desde: queryDate('desde').optional(),
      hasta: queryDate('hasta').optional(),
      q: z
        .string()
        .max(100, 'q must be at most 100 characters')
        .superRefine((s, ctx) => {
          // PostgreSQL text cannot hold NUL (22021); no control or other refused character
          // can match a stored name anyway.
          const refused = refusedCharacter(s);
          if (refused) ctx.addIssue({ code: 'custom', message: `character ${refused} is not allowed` });
        })
        .optional(),
      page: queryInt('page', 1, 1_000_000).optional(),
      limit: queryInt('limit', 1, 100).optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
    },
  )
  .refine((v) => !v.desde || !v.hasta || v.desde <= v.hasta, {
    message: 'desde must not be after hasta',
    path: ['desde'],
  });

export function emisionesRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/emisiones',
      {
        config: { auth: 'read' },
        schema: {
          summary: 'List issued documents',
          tags: ['documents'],
          params: rutParams,
          querystring,
          response: {
            200: z.object({
              ok: z.literal(true),
              data: z.array(documentSchema),
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
        const result = await listDocuments(ctx, issuer, {
          ...(q.tipo_dte !== undefined && { type: q.tipo_dte }),
          ...(q.estado_sii !== undefined && { estadoSii: q.estado_sii }),
          ...(q.desde !== undefined && { from: q.desde }),
          ...(q.hasta !== undefined && { to: q.hasta }),
          ...(q.q !== undefined && { q: q.q }),
          page: q.page ?? 1,
          limit: q.limit ?? 30,
        });
        return { ok: true as const, ...result };
      },
    );
  };
}
