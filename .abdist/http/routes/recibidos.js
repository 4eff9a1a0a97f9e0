import { z } from 'zod';
import { normalizeRut } from '../../dte/rut.js';
import { refusedCharacter } from '../../dte/xml-text.js';
import { listReceived } from '../../receiving/list-received.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { receivedDocumentExample, receivedDocumentSchema } from '../received-schemas.js';
import { commonErrors, pageSchema, queryDate, queryInt, rutParams } from '../schemas.js';
const querystring = z
    .strictObject({
    emisor: z
        .string()
        .max(20)
        .transform((s, c) => {
        const rut = normalizeRut(s);
        if (!rut)
            c.addIssue({ code: 'custom', message: 'emisor must be a RUT with its check digit' });
        return rut ?? s;
    })
        .optional()
        .meta({ description: "Only this supplier's documents (its RUT)." }),
    tipo_dte: queryInt('tipo_dte', 1, 999, { description: 'Document type (TipoDTE).' }).optional(),
    estado: z
        .enum(['recibido'], { message: 'estado must be recibido' })
        .optional()
        .meta({ description: 'recibido (passed the checks); acceptance and claims come later.' }),
    vence_antes: queryDate('vence_antes', 'Only 33/34/43 still open to a claim whose 8 days end by this day (Santiago), soonest deadline first.').optional(),
    desde: queryDate('desde', 'Issue date (FchEmis) from (inclusive).').optional(),
    hasta: queryDate('hasta', 'Issue date (FchEmis) up to (inclusive).').optional(),
    q: z
        .string()
        .max(100, 'q must be at most 100 characters')
        .superRefine((s, c) => {
        const refused = refusedCharacter(s);
        if (refused)
            c.addIssue({ code: 'custom', message: `character ${refused} is not allowed` });
    })
        .optional()
        .meta({ description: "The supplier's RUT or name (case and accents ignored), or an exact folio." }),
    page: queryInt('page', 1, 1_000_000, { default: 1, description: 'Page number, from 1.' }).optional(),
    limit: queryInt('limit', 1, 100, { default: 30, description: 'Page size.' }).optional(),
}, {
    error: (issue) => issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
})
    .refine((v) => !v.desde || !v.hasta || v.desde <= v.hasta, {
    message: 'desde must not be after hasta',
    path: ['desde'],
});
export function recibidosRoute(ctx) {
    return async (app) => {
        app.get('/api/:rut/recibidos', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listReceivedDocuments',
                    summary: 'List received documents',
                    description: "The documents suppliers sent to the issuer that passed the receiver's checks, newest issue date first, filtered and paged. `total` counts every match.",
                    tags: ['received'],
                    success: 'A page of received documents',
                    errors: [],
                    example: { response: { ok: true, data: [receivedDocumentExample], total: 1, page: 1, limit: 30 } },
                }),
                params: rutParams,
                querystring,
                response: { 200: pageSchema(receivedDocumentSchema), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const q = request.query;
            const result = await listReceived(ctx, issuer, {
                ...(q.emisor !== undefined && { emisor: q.emisor }),
                ...(q.tipo_dte !== undefined && { type: q.tipo_dte }),
                ...(q.estado !== undefined && { estado: q.estado }),
                ...(q.desde !== undefined && { from: q.desde }),
                ...(q.hasta !== undefined && { to: q.hasta }),
                ...(q.q !== undefined && { q: q.q }),
                ...(q.vence_antes !== undefined && { dueBefore: q.vence_antes }),
                page: q.page ?? 1,
                limit: q.limit ?? 30,
            });
            return { ok: true, ...result };
        });
    };
}
