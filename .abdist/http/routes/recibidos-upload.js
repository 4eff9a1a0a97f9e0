/**
 * POST /api/{rut}/recibidos — a supplier's EnvioDTE (or a lone signed DTE) uploaded by hand, as
 * the raw XML body or as the one file of a `multipart/form-data` form (README "Received documents"). The bytes are taken exactly as sent: the body is read as bytes
 * and carried as a Latin-1 string (one character per byte, lossless) only so that the route's
 * schema can describe it.
 */
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { MAX_RECEIVED_BYTES } from '../../receiving/checks.js';
import { receiveEnvelope } from '../../receiving/receive.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { receivedDocumentExample, receptionSchema } from '../received-schemas.js';
import { commonErrors, rutParams } from '../schemas.js';
const XML_TYPES = ['application/xml', 'text/xml'];
const querystring = z.strictObject({
    nombre: z
        .string()
        .max(200)
        .optional()
        .meta({ description: 'The file name (NmbEnvio of the answer); default `envio-<sha256>.xml`.' }),
}, {
    error: (issue) => issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
});
export function recibidosUploadRoute(ctx) {
    return async (app) => {
        // Only in this route's scope: one file, no other part bigger than a file name.
        await app.register(multipart, {
            attachFieldsToBody: false,
            limits: { fileSize: MAX_RECEIVED_BYTES, files: 1, fields: 5, fieldSize: 1000 },
            throwFileSizeLimit: true,
        });
        app.addContentTypeParser(XML_TYPES, { parseAs: 'buffer', bodyLimit: MAX_RECEIVED_BYTES }, (_req, body, done) => done(null, body.toString('latin1')));
        app.post('/api/:rut/recibidos', {
            bodyLimit: MAX_RECEIVED_BYTES,
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'receiveEnvelope',
                    summary: "Receive a supplier's EnvioDTE",
                    description: "A supplier's EnvioDTE, or a lone signed DTE, as the raw XML body (`Content-Type: application/xml`, ≤ 10 MiB) " +
                        "or as the one file part of a `multipart/form-data` form (its file name becomes the answer's NmbEnvio). " +
                        "Timbre runs the receiver's checks (XSD, the envelope's signature over SetDTE, Carátula RutReceptor, each DTE's signature, RUTEmisor, RUTRecep, duplicates, the TED), " +
                        "records the file byte-exact with every result in the SII's codes (`estado_recep_env`, `estado_recep_dte`), stores the DTEs that passed, " +
                        "and answers the envelope with a RespuestaDTE signed with the issuer's certificate (`respuesta_url`). " +
                        'A refused file is recorded too: the answer is 200 with `accepted: false` and the reason. Files with a DTD or entities are refused unread.',
                    tags: ['received'],
                    success: 'The file was recorded; `accepted` and the codes say what the checks found',
                    errors: [],
                    example: {
                        response: {
                            ok: true,
                            number: 12,
                            file_name: 'EnvioDTE_76354771-K.xml',
                            kind: 'EnvioDTE',
                            sha256: '3f1c0e3b8f4f6f2a9b7d7e1c2a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b',
                            accepted: true,
                            estado_recep_env: 0,
                            glosa: 'Envio Recibido Conforme',
                            reason: null,
                            checks: [{ check: 'schema', ok: true, detail: 'válido según EnvioDTE_v10.xsd' }],
                            documents: [
                                {
                                    index: 0,
                                    type: 33,
                                    folio: 170,
                                    emisor_rut: '76354771-K',
                                    estado_recep_dte: 0,
                                    glosa: 'DTE Recibido OK',
                                    reason: null,
                                    checks: [{ check: 'ted', ok: true, detail: 'TED válido (CAF IDK 300)' }],
                                },
                            ],
                            received: [receivedDocumentExample],
                            respuesta_url: 'https://timbre.example.cl/api/76086428-5/recibidos_envios/12/respuesta',
                            respuesta_error: null,
                            created_at: '2026-11-23T13:05:42.120Z',
                        },
                    },
                }),
                consumes: [...XML_TYPES, 'multipart/form-data'],
                params: rutParams,
                querystring,
                // A multipart form leaves the body null: the file is read from the stream.
                body: z.string().nullish().meta({
                    type: 'string',
                    format: 'binary',
                    description: 'The EnvioDTE or DTE file, as received (or a form with one file).',
                }),
                response: { 200: receptionSchema, ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            let bytes;
            let fileName = request.query.nombre;
            if (request.isMultipart()) {
                const file = await request.file();
                if (!file)
                    throw new AppError('VALIDATION_FAILED', 'The form carries no file.');
                bytes = await file.toBuffer();
                fileName ??= file.filename;
            }
            else {
                bytes = Buffer.from(request.body ?? '', 'latin1');
            }
            const result = await receiveEnvelope(ctx, issuer, {
                bytes,
                ...(fileName !== undefined && { fileName }),
                source: 'upload',
            });
            return { ok: true, ...result };
        });
    };
}
