import { z } from 'zod';
import { issueRequestSchema } from '../../dte/issue-request.js';
import { previewDocument, previewPdf, previewView } from '../../issuing/preview-document.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParams, totalsSchema } from '../schemas.js';
const previewResponseSchema = z.object({
    ok: z.literal(true),
    env: z.enum(['sandbox', 'live']),
    type: z.number().int(),
    date: z.string(),
    totals: totalsSchema,
    lines: z.array(z.object({
        name: z.string(),
        qty: z.number(),
        price: z.number().nullable(),
        discount: z.number().int(),
        amount: z.number().int(),
        exempt: z.boolean(),
    })),
    warnings: z.array(z.string()),
});
export function previewRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/preview', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'previewDocument',
                    summary: 'Preview a document without issuing it',
                    description: 'Same body as emitir. Validates and computes exactly as emitir would and answers the totals and lines, without reserving a folio or storing anything. With `?format=pdf` the answer is instead the printed document (`application/pdf`) marked "BORRADOR — SIN FOLIO", without the PDF417 stamp. Any role.',
                    tags: ['documents'],
                    success: 'The computed document, not issued',
                    errors: ['TOTALS_MISMATCH', 'REFERENCE_NOT_FOUND', 'DOCUMENT_CEDED'],
                    example: {
                        request: { type: 39, items: [{ name: 'Café grano 1 kg', qty: 2, price: 11990 }] },
                        response: {
                            ok: true,
                            env: 'sandbox',
                            type: 39,
                            date: '2026-11-23',
                            totals: { net: 20151, exempt: 0, vat: 3829, vat_rate: 19, total: 23980 },
                            lines: [{ name: 'Café grano 1 kg', qty: 2, price: 11990, discount: 0, amount: 23980, exempt: false }],
                            warnings: [],
                        },
                    },
                }),
                params: rutParams,
                querystring: z.strictObject({ format: z.enum(['json', 'pdf']).optional() }),
                body: issueRequestSchema,
                response: {
                    // With format=pdf the handler sends bytes, which Fastify does not serialise.
                    200: previewResponseSchema,
                    ...commonErrors,
                },
            },
        }, async (request, reply) => {
            const { issuer } = requireAuth(request);
            const preview = await previewDocument(ctx, issuer, request.body);
            if (request.query.format === 'pdf') {
                const pdf = await previewPdf(preview);
                return reply
                    .type('application/pdf')
                    .header('Content-Disposition', `inline; filename="BORRADOR_${issuer.rut}_T${preview.doc.type}.pdf"`)
                    .send(pdf); // bytes: Fastify sends a Buffer as it is, past the JSON schema
            }
            return previewView(preview);
        });
    };
}
