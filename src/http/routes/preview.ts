/** POST /api/{rut}/preview — validate and compute a document without a folio (DESIGN §8). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { issueRequestSchema } from '../../dte/issue-request.ts';
import { previewDocument, previewPdf, previewView } from '../../issuing/preview-document.ts';
import { requireAuth } from '../auth.ts';
import { commonErrors, totalsSchema } from '../schemas.ts';

export const previewResponseSchema = z.object({
  ok: z.literal(true),
  env: z.enum(['sandbox', 'live']),
  type: z.number().int(),
  date: z.string(),
  totals: totalsSchema,
  lines: z.array(
    z.object({
      name: z.string(),
      qty: z.number(),
      price: z.number().nullable(),
      discount: z.number().int(),
      amount: z.number().int(),
      exempt: z.boolean(),
    }),
  ),
  warnings: z.array(z.string()),
});

export function previewRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/:rut/preview',
      {
        config: { auth: 'read' },
        schema: {
          operationId: 'preview',
          summary: 'Preview a document without issuing it',
          description:
            'Same body as emitir. Validates and computes exactly as emitir would and answers the totals and lines, without reserving a folio or storing anything. `?format=pdf` answers the printed document marked "BORRADOR — SIN FOLIO", without the PDF417 stamp. Any role.',
          tags: ['documents'],
          params: z.object({ rut: z.string().max(20) }),
          querystring: z.strictObject({ format: z.enum(['json', 'pdf']).optional() }),
          body: issueRequestSchema,
          response: {
            200: previewResponseSchema.or(z.any().describe('application/pdf when format=pdf')),
            ...commonErrors,
          },
        },
      },
      async (request, reply) => {
        const { issuer } = requireAuth(request);
        const preview = await previewDocument(ctx, issuer, request.body);
        if (request.query.format === 'pdf') {
          const pdf = await previewPdf(preview);
          return reply
            .type('application/pdf')
            .header('Content-Disposition', `inline; filename="BORRADOR_${issuer.rut}_T${preview.doc.type}.pdf"`)
            .send(pdf);
        }
        return previewView(preview);
      },
    );
  };
}
