import { z } from 'zod';
import { issueRequestSchema } from '../../dte/issue-request.js';
import { documentById, issueDocument, issueResponse } from '../../issuing/issue-document.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { serverTiming } from '../server-timing.js';
import { commonErrors, dateSchema, dteTypeDoc, errorResponse, estadoSiiSchema, rutParams, totalsSchema, urlSchema, } from '../schemas.js';
export const issueResponseSchema = z.object({
    ok: z.literal(true),
    env: z.enum(['sandbox', 'live']),
    sii: z
        .object({ estado: z.string().nullable(), glosa: z.string().nullable(), track_id: z.string() })
        .nullable()
        .meta({ description: 'Live only: the raw SII state, its text and the upload track id. null in sandbox.' }),
    type: z.number().int().meta(dteTypeDoc),
    folio: z.number().int(),
    date: dateSchema,
    estado_sii: estadoSiiSchema,
    totals: totalsSchema,
    track_id: z.string().optional().meta({ description: 'Live only; empty when the submission failed.' }),
    pdf_url: urlSchema,
    xml_url: urlSchema,
    warning: z.string().optional().meta({ description: 'The document is saved, but sending it to the SII failed.' }),
});
/** An issue answer as examples show it (sandbox factura of the demo issuer). */
export const issueResponseExample = {
    ok: true,
    env: 'sandbox',
    sii: null,
    type: 33,
    folio: 1,
    date: '2026-11-23',
    estado_sii: 'local',
    totals: { net: 17980, exempt: 0, vat: 3416, vat_rate: 19, total: 21396 },
    pdf_url: 'http://localhost:3000/api/76086428-5/pdf/33/1?tk=Yp0b8r2m4Qx7sV1nK3dLw9eJ5tH6cA0f',
    xml_url: 'http://localhost:3000/api/76086428-5/xml/33/1?tk=Yp0b8r2m4Qx7sV1nK3dLw9eJ5tH6cA0f',
};
export function emitirRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/emitir', {
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
                ...routeDoc({
                    operationId: 'issueDocument',
                    summary: 'Issue a document',
                    description: 'Builds, stamps (TED) and signs the document, stores it and, for a live issuer, sends it to the SII. Types 33, 34, 39, 41, 46, 52, 56 and 61 share this body; 39/41 take gross prices. A sandbox issuer (`sii_ambiente` 0) never contacts the SII: `env: "sandbox"`, `sii: null`. A failed submission is not an error: the document is saved and the answer carries `warning` (it is retried). Send `Idempotency-Key` to retry safely.',
                    tags: ['documents'],
                    success: 'The issued document',
                    serverTiming: true,
                    errors: [
                        'TOTALS_MISMATCH',
                        'REFERENCE_NOT_FOUND',
                        'DOCUMENT_CEDED',
                        'NO_CERTIFICATE',
                        'CERTIFICATE_EXPIRED',
                        'CERTIFICATE_NOT_YET_VALID',
                        'FOLIOS_EXHAUSTED',
                        'ISSUER_NOT_CONFIGURED',
                        'DOCUMENT_SCHEMA_INVALID',
                    ],
                    example: {
                        request: {
                            type: 33,
                            receiver: {
                                rut: '76354771-K',
                                name: 'Comercial Los Andes SpA',
                                activity: 'Venta al por menor',
                                address: 'Av. Apoquindo 4500',
                                comuna: 'Las Condes',
                                city: 'Santiago',
                            },
                            items: [
                                { name: 'Martillo carpintero', qty: 2, price: 5990 },
                                { name: 'Caja de clavos 2"', qty: 1, price: 6000 },
                            ],
                        },
                        response: issueResponseExample,
                    },
                }),
                params: rutParams,
                body: issueRequestSchema,
                response: { 200: issueResponseSchema, ...commonErrors, 409: errorResponse, 422: errorResponse },
            },
        }, async (request, reply) => {
            const { issuer } = requireAuth(request);
            const result = await issueDocument(ctx, issuer, request.body, { idempotencyId: request.idempotencyId });
            if (result.timings)
                reply.header('Server-Timing', serverTiming(result.timings));
            return issueResponse(ctx, issuer, result);
        });
    };
}
