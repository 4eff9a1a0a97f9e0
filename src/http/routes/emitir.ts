/** POST /api/{rut}/emitir — issue a document (contract §4.1, DESIGN §5). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { issueRequestSchema } from '../../dte/issue-request.ts';
import { documentById, issueDocument, issueResponse } from '../../issuing/issue-document.ts';
import { requireAuth } from '../auth.ts';
import { commonErrors, errorResponse, rutParams, totalsSchema } from '../schemas.ts';

export const issueResponseSchema = z.object({
  ok: z.literal(true),
  env: z.enum(['sandbox', 'live']),
  sii: z.object({ estado: z.string().nullable(), glosa: z.string().nullable(), track_id: z.string() }).nullable(),
  type: z.number().int(),
  folio: z.number().int(),
  date: z.string(),
  estado_sii: z.string(),
  totals: totalsSchema,
  track_id: z.string().optional(),
  pdf_url: z.string(),
  xml_url: z.string(),
  warning: z.string().optional(),
});

export function emitirRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/:rut/emitir',
      {
        config: {
          auth: 'write',
          idempotent: true,
          idempotencyRecover: async (request, documentId) => {
            const { issuer } = requireAuth(request);
            const document = await documentById(ctx, documentId);
            return issueResponse(ctx, issuer, { document, env: document.environment });
          },
        },
        schema: {
          summary: 'Issue a document',
          tags: ['documents'],
          params: rutParams,
          body: issueRequestSchema,
          response: { 200: issueResponseSchema, ...commonErrors, 409: errorResponse, 422: errorResponse },
        },
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        const result = await issueDocument(ctx, issuer, request.body, { idempotencyId: request.idempotencyId });
        return issueResponse(ctx, issuer, result);
      },
    );
  };
}
