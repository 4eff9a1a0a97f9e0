/**
 * POST /api/{rut}/rcv — the SII's RCV (compras) CSV export, as the raw body (`text/csv`) or the
 * one file of a `multipart/form-data` form; GET /api/{rut}/rcv/faltantes — its entries with no
 * received document (README "Missed documents (RCV)").
 */
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { importRcv, listFaltantes, parseRcvCsv } from '../../receiving/rcv.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { faltanteExample, faltanteSchema, rcvImportSchema } from '../rcv-schemas.js';
import { commonErrors, pageSchema, queryInt, rutParams } from '../schemas.js';
const CSV_TYPES = ['text/csv', 'application/csv'];
/** 20 MiB: a large company's month of purchases. */
const MAX_RCV_BYTES = 20 * 1024 * 1024;
/** Every missing entry is answered by the import; a page of them is asked with the list. */
const IMPORT_ANSWER_LIMIT = 1_000;
const pageQuery = z.strictObject({
    page: queryInt('page', 1, 1_000_000, { default: 1, description: 'Page number, from 1.' }).optional(),
    limit: queryInt('limit', 1, 100, { default: 30, description: 'Page size.' }).optional(),
}, {
    error: (issue) => issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
});
async function bodyBytes(request) {
    if (!request.isMultipart())
        return Buffer.from(request.body ?? '', 'latin1');
    const file = (await request.file());
    if (!file)
        throw new AppError('VALIDATION_FAILED', 'The form carries no file.');
    return file.toBuffer();
}
export function rcvRoutes(ctx) {
    return async (app) => {
        await app.register(multipart, {
            attachFieldsToBody: false,
            limits: { fileSize: MAX_RCV_BYTES, files: 1, fields: 5, fieldSize: 1000 },
            throwFileSizeLimit: true,
        });
        app.addContentTypeParser(CSV_TYPES, { parseAs: 'buffer', bodyLimit: MAX_RCV_BYTES }, (_req, body, done) => done(null, body.toString('latin1')));
        app.post('/api/:rut/rcv', {
            bodyLimit: MAX_RCV_BYTES,
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'importRcv',
                    summary: "Import the SII's RCV (compras) CSV",
                    description: "The CSV the SII's Registro de Compras y Ventas exports for purchases (`;`-separated, UTF-8 or Latin-1, " +
                        'header `Nro;Tipo Doc;Tipo Compra;RUT Proveedor;Razon Social;Folio;Fecha Docto;Fecha Recepcion;…;Monto Total;…`), ' +
                        'as the raw body (`Content-Type: text/csv`, ≤ 20 MiB) or the one file of a `multipart/form-data` form. ' +
                        'Each row is stored once per supplier, type and folio (a re-import updates it). The answer lists the entries ' +
                        'with no received document of the same supplier, type and folio: `en el SII, no recibido por correo`, with ' +
                        'their 8-day deadline counted from Fecha Recepcion (up to 1,000; `GET …/rcv/faltantes` pages them). ' +
                        'A file without the columns Timbre reads is refused with 400 naming the column.',
                    tags: ['received'],
                    success: 'The file was imported',
                    errors: [],
                    example: { response: { ok: true, imported: 2, nuevos: 2, faltantes: [faltanteExample] } },
                }),
                consumes: [...CSV_TYPES, 'multipart/form-data'],
                params: rutParams,
                body: z.string().nullish().meta({
                    type: 'string',
                    format: 'binary',
                    description: 'The RCV compras CSV, as downloaded from the SII (or a form with one file).',
                }),
                response: { 200: rcvImportSchema, ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const rows = parseRcvCsv(await bodyBytes(request));
            const result = await importRcv(ctx, issuer, rows);
            const { data } = await listFaltantes(ctx, issuer, { page: 1, limit: IMPORT_ANSWER_LIMIT });
            return { ok: true, ...result, faltantes: data };
        });
        app.get('/api/:rut/rcv/faltantes', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listRcvMissing',
                    summary: 'List documents the SII has that the mailbox did not bring',
                    description: 'The imported RCV entries with no received document of the same supplier RUT, type and folio, ' +
                        'earliest SII reception (soonest deadline) first, paged. `total` counts every match.',
                    tags: ['received'],
                    success: 'A page of missing documents',
                    errors: [],
                    example: { response: { ok: true, data: [faltanteExample], total: 1, page: 1, limit: 30 } },
                }),
                params: rutParams,
                querystring: pageQuery,
                response: { 200: pageSchema(faltanteSchema), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const result = await listFaltantes(ctx, issuer, {
                page: request.query.page ?? 1,
                limit: request.query.limit ?? 30,
            });
            return { ok: true, ...result };
        });
    };
}
