/** GET /api/{rut}/emisiones — list issued documents (docs/api.md §4.4, docs/design.md §5). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { refusedCharacter } from '../../dte/xml-text.ts';
import { ESTADOS_SII } from '../../issuing/document-state.ts';
import { listDocuments } from '../../issuing/list-documents.ts';
import { ruleIssue } from '../../rules.ts';
import { requireAuth } from '../auth.ts';
import { routeDoc } from '../openapi.ts';
import { commonErrors, documentSchema, dteTypeQuery, pageSchema, queryDate, queryInt, rutParams } from '../schemas.ts';
import { issueResponseExample } from './emitir.ts';

/** A list entry (docs/design.md §5) as the examples show it; events of a document carry the same. */
export const documentEntryExample = {
  type: 33,
  folio: 1,
  date: '2026-11-23',
  receiver: { rut: '76354771-K', name: 'Comercial Los Andes SpA' },
  totals: { net: 17980, exempt: 0, vat: 3416, vat_rate: 19, total: 21396 },
  env: 'sandbox',
  estado_sii: 'local',
  track_id: null,
  pdf_url: issueResponseExample.pdf_url,
  xml_url: issueResponseExample.xml_url,
  created_at: '2026-11-23T13:05:42.120Z',
};

const querystring = z
  .strictObject(
    {
      tipo_dte: dteTypeQuery.optional(),
      estado_sii: z
        .enum(ESTADOS_SII, { message: `estado_sii must be one of ${ESTADOS_SII.join(', ')}` })
        .optional()
        .meta({ description: "Only documents in this state at the SII (Timbre's normalised state)." }),
      desde: queryDate('desde', 'Issue date from (inclusive).').optional(),
      hasta: queryDate('hasta', 'Issue date up to (inclusive).').optional(),
      q: z
        .string()
        .max(100, 'q must be at most 100 characters')
        .superRefine((s, ctx) => {
          // PostgreSQL text cannot hold NUL (22021); no control or other refused character
          // can match a stored name anyway.
          const refused = refusedCharacter(s);
          if (refused) ctx.addIssue({ code: 'custom', ...ruleIssue('text.char_not_allowed', { char: refused }) });
        })
        .optional()
        .meta({ description: "The receiver's RUT or name (case and accents ignored), or an exact folio." }),
      page: queryInt('page', 1, 1_000_000, { default: 1, description: 'Page number, from 1.' }).optional(),
      limit: queryInt('limit', 1, 100, { default: 30, description: 'Page size.' }).optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
    },
  )
  .refine((v) => !v.desde || !v.hasta || v.desde <= v.hasta, {
    ...ruleIssue('date.range_order', { from: 'desde', to: 'hasta' }),
    path: ['desde'],
  });

export function emisionesRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/emisiones',
      {
        config: { auth: 'read' },
        schema: {
          ...routeDoc({
            operationId: 'listDocuments',
            summary: 'List issued documents',
            description:
              "The issuer's documents of its current environment, newest first, filtered and paged. `total` counts every match.",
            tags: ['documents'],
            success: 'A page of documents',
            errors: [],
            example: {
              response: {
                ok: true,
                data: [
                  {
                    ...documentEntryExample,
                    email: { status: 'sent', to: ['pagos@losandes.cl'], at: '2026-11-23T13:05:44.010Z' },
                  },
                ],
                total: 1,
                page: 1,
                limit: 30,
              },
            },
          }),
          params: rutParams,
          querystring,
          response: {
            200: pageSchema(documentSchema),
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
