import { z } from 'zod';
import { cedeDocument } from '../../cession/cede.js';
import { cessionAec, listCessions } from '../../cession/list-cessions.js';
import { CESSION_STATES } from '../../events/cession-view.js';
import { AppError } from '../../errors.js';
import { requireAuth } from '../auth.js';
import { cedeBody, cessionExample, cessionSchema } from '../cession-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, errorResponse, pageSchema, queryInt, rutParams } from '../schemas.js';
const CEDE_DESCRIPTION = "Cedes a live factura (33, 34, 46) that the SII accepted: Timbre checks what the SII's registry would (not voided, no cesión in flight or accepted, `monto` ≤ the total, `ultimo_vencimiento` ≥ the document's date, a valid cesionario who is not the issuer), " +
    "then asks the SII's consultarDocDteCedible (33, 34): not cedible → 422 DOCUMENT_NOT_CEDIBLE with the reason in Spanish (reclamada, anulada por NC, sin acuse de recibo antes de 8 días); the SII unreachable → 502 SII_UNAVAILABLE, nothing stored. " +
    'Then the AEC is built and signed with the issuer’s certificate (its holder is RUTAutorizado), stored `pendiente`, and uploaded at once: `enviada` with a track id, then `aceptada` (EOK, event `cession.registered`) or `rechazada` (event `cession.rejected`). ' +
    'An SII outage leaves it `pendiente`; Timbre retries. Sandbox issuers cannot cede (422 SANDBOX_NOT_SUBMITTABLE). Owner keys only.';
const listQuery = z.strictObject({
    tipo_dte: queryInt('tipo_dte', 1, 999, { description: 'Only cesiones of this document type.' }).optional(),
    folio: queryInt('folio', 1, 999_999_999, { description: 'Only cesiones of this folio.' }).optional(),
    estado: z
        .enum(CESSION_STATES, { message: `estado must be one of ${CESSION_STATES.join(', ')}` })
        .optional()
        .meta({ description: 'Only cesiones in this state.' }),
    page: queryInt('page', 1, 1_000_000, { default: 1, description: 'Page number, from 1.' }).optional(),
    limit: queryInt('limit', 1, 100, { default: 30, description: 'Page size.' }).optional(),
}, {
    error: (issue) => issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
});
const AEC_DESCRIPTION = 'The signed AEC exactly as uploaded to the SII (ISO-8859-1 XML, three signatures).';
export function cesionesRoutes(ctx) {
    return async (app) => {
        app.post('/api/:rut/ceder', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'cedeDocument',
                    summary: 'Cede an issued factura (factoring)',
                    description: CEDE_DESCRIPTION,
                    tags: ['documents'],
                    success: 'The cesión, as it stands after the first upload attempt',
                    errors: [
                        'DOCUMENT_NOT_FOUND',
                        'DOCUMENT_NOT_CEDIBLE',
                        'CESSION_IN_PROGRESS',
                        'DOCUMENT_CEDED',
                        'SANDBOX_NOT_SUBMITTABLE',
                        'NO_CERTIFICATE',
                        'CERTIFICATE_EXPIRED',
                        'SII_UNAVAILABLE',
                        'DOCUMENT_SCHEMA_INVALID',
                    ],
                    example: {
                        request: {
                            type: 33,
                            folio: 170,
                            cesionario: {
                                rut: '96516320-4',
                                razon_social: 'Factoring del Sur S.A.',
                                direccion: 'Av. Apoquindo 3000, Las Condes',
                                email: 'operaciones@factoringdelsur.cl',
                            },
                            ultimo_vencimiento: '2026-12-23',
                            email_deudor: 'pagos@losandes.cl',
                        },
                        response: { ok: true, cesion: { ...cessionExample, estado: 'enviada', sii_estado: 'STATUS 0' } },
                    },
                }),
                params: rutParams,
                body: cedeBody,
                response: {
                    200: z.object({ ok: z.literal(true), cesion: cessionSchema }),
                    ...commonErrors,
                    409: errorResponse,
                    422: errorResponse,
                    502: errorResponse,
                },
            },
        }, async (request) => {
            const key = requireAuth(request);
            if (key.role !== 'owner') {
                throw new AppError('FORBIDDEN_ROLE', 'Only an owner key may cede documents (docs/design.md §11).');
            }
            const cesion = await cedeDocument(ctx, key.issuer, request.body);
            return { ok: true, cesion };
        });
        app.get('/api/:rut/cesiones', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listCessions',
                    summary: 'List cesiones',
                    description: "The issuer's cesiones, newest first, filtered and paged. `total` counts every match.",
                    tags: ['documents'],
                    success: 'A page of cesiones',
                    errors: [],
                    example: { response: { ok: true, data: [cessionExample], total: 1, page: 1, limit: 30 } },
                }),
                params: rutParams,
                querystring: listQuery,
                response: { 200: pageSchema(cessionSchema), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const q = request.query;
            const page = await listCessions(ctx, issuer, {
                ...(q.tipo_dte !== undefined && { type: q.tipo_dte }),
                ...(q.folio !== undefined && { folio: q.folio }),
                ...(q.estado !== undefined && { estado: q.estado }),
                page: q.page ?? 1,
                limit: q.limit ?? 30,
            });
            return { ok: true, ...page };
        });
        app.get('/api/:rut/cesiones/:id/aec', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'downloadCessionAec',
                    summary: 'Download the signed AEC of a cesión',
                    description: AEC_DESCRIPTION,
                    tags: ['documents'],
                    success: 'The AEC',
                    errors: ['CESSION_NOT_FOUND'],
                    file: { mediaType: 'application/xml', description: AEC_DESCRIPTION },
                    example: { response: { ok: true } },
                }),
                params: z.object({ rut: z.string().max(20), id: z.string().max(64) }),
                response: {
                    200: {
                        description: AEC_DESCRIPTION,
                        content: { 'application/xml': { schema: z.string().meta({ format: 'binary' }) } },
                    },
                    ...commonErrors,
                },
            },
        }, async (request, reply) => {
            const { issuer } = requireAuth(request);
            const file = await cessionAec(ctx, issuer, request.params.id);
            reply.header('Cache-Control', 'private, no-store');
            reply.header('Content-Disposition', `attachment; filename="${file.filename}"`);
            reply.type('application/xml; charset=ISO-8859-1');
            return reply.send(file.body);
        });
    };
}
