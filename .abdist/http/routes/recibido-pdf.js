import { z } from 'zod';
import { createLimiter } from '../../dte/pdf/renderer.js';
import { normalizeRut } from '../../dte/rut.js';
import { receivedPdf } from '../../receiving/list-received.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { receivedParams } from '../received-schemas.js';
import { commonErrors } from '../schemas.js';
const DESCRIPTION = 'The received document rendered by Timbre from its XML as received, in the layout of issued documents, with the supplier\'s TED as its PDF417: letter size, or an 80 mm roll with `format=80mm`. One copy (no cedible copy). A document stamped with a certification CAF (IDK 100) is marked "CERTIFICACIÓN SII — SIN VALIDEZ TRIBUTARIA".';
const querystring = z.strictObject({
    format: z
        .enum(['letter', '80mm'], { message: 'format must be letter or 80mm' })
        .optional()
        .meta({ description: 'letter (default) or 80mm, for a thermal roll printer.' }),
    download: z
        .enum(['0', '1'], { message: 'download must be 0 or 1' })
        .optional()
        .meta({ description: '1: `Content-Disposition: attachment` (save instead of show).' }),
}, {
    error: (issue) => issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
});
export function recibidoPdfRoute(ctx) {
    return async (app) => {
        const pdfDownloads = createLimiter(ctx.config.PDF_DOWNLOAD_CONCURRENCY);
        app.get('/api/:rut/recibidos/:emisor/:type/:folio/pdf', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'downloadReceivedPdf',
                    summary: 'Download a received document as PDF',
                    description: DESCRIPTION,
                    tags: ['received'],
                    success: 'The PDF',
                    errors: ['RECEIVED_DOCUMENT_NOT_FOUND'],
                    file: { mediaType: 'application/pdf', description: DESCRIPTION },
                    example: { response: { ok: true } },
                }),
                params: receivedParams,
                querystring,
                response: {
                    200: {
                        description: DESCRIPTION,
                        content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) } },
                    },
                    ...commonErrors,
                },
            },
        }, async (request, reply) => {
            const { issuer } = requireAuth(request);
            const p = request.params;
            const file = await pdfDownloads(() => receivedPdf(ctx, issuer, { emisor: normalizeRut(p.emisor) ?? p.emisor, type: p.type, folio: p.folio }, request.query.format ?? 'letter'));
            const disposition = request.query.download === '1' ? 'attachment' : 'inline';
            reply.header('Cache-Control', 'private, no-store');
            reply.header('Content-Disposition', `${disposition}; filename="${file.filename.replace(/"/g, '')}"`);
            reply.type('application/pdf');
            return reply.send(file.body);
        });
    };
}
