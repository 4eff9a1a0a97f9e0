import { z } from 'zod';
import { DTE_TYPES } from '../../dte/model.js';
import { downloadDocumentFile } from '../../issuing/document-files.js';
import { createLimiter } from '../../dte/pdf/renderer.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParam } from '../schemas.js';
const params = z.object({
    rut: rutParam,
    type: z
        .string()
        .regex(/^\d{1,3}$/, 'type must be a document type number')
        .transform(Number)
        .meta({ type: 'integer', enum: [...DTE_TYPES], pattern: undefined, description: 'Document type.' }),
    folio: z
        .string()
        .regex(/^\d{1,10}$/, 'folio must be a whole number')
        .transform(Number)
        .meta({ type: 'integer', minimum: 1, maximum: 9_999_999_999, pattern: undefined, description: 'Folio.' }),
});
const flag = (name, description) => z.enum(['0', '1'], { message: `${name} must be 0 or 1` }).meta({ description });
function querystring(kind) {
    return z.strictObject({
        tk: z
            .string()
            .max(200)
            .optional()
            .meta({ description: "The document's public token (from `pdf_url` / `xml_url`), instead of an API key." }),
        download: flag('download', '1: `Content-Disposition: attachment` (save instead of show).').optional(),
        base64: flag('base64', '1: a JSON answer with the file in base64 instead of the bytes.').optional(),
        ...(kind === 'pdf'
            ? {
                format: z
                    .enum(['letter', '80mm'], { message: 'format must be letter or 80mm' })
                    .optional()
                    .meta({ description: 'letter (default) or 80mm, for a thermal roll printer.' }),
            }
            : {}),
    }, {
        error: (issue) => issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
    });
}
const base64Response = z.object({
    ok: z.literal(true),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int().meta({ description: 'Bytes of the file (before base64).' }),
    base64: z.string().meta({ contentEncoding: 'base64' }),
});
const FILES = {
    pdf: {
        operationId: 'downloadPdf',
        summary: 'Download the PDF (with the PDF417 stamp)',
        mediaType: 'application/pdf',
        description: 'The PDF: letter size, or an 80 mm roll with `format=80mm`.',
        filename: 'DTE_76086428-5_T33_F1.pdf',
        contentType: 'application/pdf',
        base64: 'JVBERi0xLjMKJf////8KOCAwIG9iago8PAovVHlwZSAvRXh0R1N0YXRlCi9jYSAxCj4+CmVuZG9iago=',
        size: 61,
    },
    xml: {
        operationId: 'downloadXml',
        summary: 'Download the signed XML',
        mediaType: 'application/xml',
        description: 'The signed DTE exactly as stored and signed, in ISO-8859-1.',
        filename: 'DTE_76086428-5_T33_F1.xml',
        contentType: 'application/xml; charset=ISO-8859-1',
        base64: 'PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iSVNPLTg4NTktMSI/Pgo8RFRFIHZlcnNpb249IjEuMCI+',
        size: 63,
    },
};
export function filesRoutes(ctx) {
    return async (app) => {
        const pdfDownloads = createLimiter(ctx.config.PDF_DOWNLOAD_CONCURRENCY);
        for (const kind of ['pdf', 'xml']) {
            app.get(`/api/:rut/${kind}/:type/:folio`, {
                config: { auth: 'file' },
                schema: {
                    ...routeDoc({
                        operationId: FILES[kind].operationId,
                        summary: FILES[kind].summary,
                        description: `${FILES[kind].description} Opens with an API key of the issuer (any role) or with the document's token \`tk\` alone, as in the issue answer's \`${kind}_url\`. With \`base64=1\` the answer is JSON: \`{ ok, filename, content_type, size, base64 }\`.`,
                        tags: ['documents'],
                        success: `The ${kind.toUpperCase()} (or, with \`base64=1\`, JSON holding it)`,
                        // Without a key, every failure (issuer, document, token) is the same DOCUMENT_NOT_FOUND.
                        errors: ['UNAUTHENTICATED', 'ISSUER_NOT_FOUND', 'DOCUMENT_NOT_FOUND'],
                        file: { mediaType: FILES[kind].mediaType, description: FILES[kind].description },
                        example: {
                            response: {
                                ok: true,
                                filename: FILES[kind].filename,
                                content_type: FILES[kind].contentType,
                                size: FILES[kind].size,
                                base64: FILES[kind].base64,
                            },
                        },
                    }),
                    params,
                    querystring: querystring(kind),
                    response: {
                        200: {
                            description: FILES[kind].description,
                            content: {
                                [FILES[kind].mediaType]: { schema: z.string().meta({ format: 'binary' }) },
                                'application/json': { schema: base64Response },
                            },
                        },
                        ...commonErrors,
                    },
                },
            }, async (request, reply) => {
                const q = request.query;
                const file = await downloadDocumentFile(ctx, {
                    rut: request.params.rut,
                    type: request.params.type,
                    folio: request.params.folio,
                    auth: request.auth,
                    tk: q.tk,
                    kind,
                    format: q.format ?? 'letter',
                }, pdfDownloads);
                reply.header('Cache-Control', 'private, no-store');
                if (q.base64 === '1') {
                    return base64Response.parse({
                        ok: true,
                        filename: file.filename,
                        content_type: file.contentType,
                        size: file.body.length,
                        base64: file.body.toString('base64'),
                    });
                }
                reply.header('Content-Disposition', `${q.download === '1' ? 'attachment' : 'inline'}; filename="${file.filename}"`);
                reply.type(file.contentType);
                // Bytes: Fastify sends a Buffer as it is, never through the (string) response schema.
                return reply.send(file.body);
            });
        }
    };
}
