import { z } from 'zod';
import { normalizeRut } from '../../dte/rut.js';
import { decideMany } from '../../receiving/decisions.js';
import { requireAuth } from '../auth.js';
import { bulkBody, bulkResultSchema, decisionExample } from '../decision-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParams } from '../schemas.js';
export function recibidosDecisionesRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/recibidos/decisiones', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'decideReceivedDocuments',
                    summary: 'Accept or claim many received documents',
                    description: 'Up to 100 decisions, each `decision: "aceptar"` (with `recibo?`) or `"reclamar"` (with `motivo`, `glosa`) on one received document. ' +
                        "Each is checked and registered as by its own endpoint (`…/aceptar`, `…/reclamar`); the answer lists, in order, each item's decision or why it was refused " +
                        "(`code` as the single endpoint's error, the SII's code and a Spanish explanation in `error`). One item's refusal never stops the others.",
                    tags: ['received'],
                    success: 'One result per item, in order',
                    errors: [],
                    example: {
                        request: {
                            decisions: [
                                {
                                    emisor: '76354771-K',
                                    type: 33,
                                    folio: 170,
                                    decision: 'aceptar',
                                    recibo: { recinto: 'Bodega central' },
                                },
                                {
                                    emisor: '76354771-K',
                                    type: 61,
                                    folio: 12,
                                    decision: 'reclamar',
                                    motivo: 'contenido',
                                    glosa: 'Precio',
                                },
                            ],
                        },
                        response: {
                            ok: true,
                            results: [
                                { ok: true, decision: decisionExample },
                                {
                                    ok: false,
                                    code: 'RECEIVED_TYPE_NOT_DECIDABLE',
                                    error: 'A 61 is not accepted or claimed at the SII: its registry takes only facturas (33), facturas exentas (34) and liquidaciones-factura (43).',
                                    document: { emisor: '76354771-K', type: 61, folio: 12 },
                                },
                            ],
                        },
                    },
                }),
                params: rutParams,
                body: bulkBody,
                response: {
                    200: z.object({ ok: z.literal(true), results: z.array(bulkResultSchema) }),
                    ...commonErrors,
                },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const results = await decideMany(ctx, issuer, request.body.decisions.map((d) => {
                const key = { emisor: normalizeRut(d.emisor) ?? d.emisor, type: d.type, folio: d.folio };
                return d.decision === 'aceptar'
                    ? { key, req: { kind: 'accept', recibo: d.recibo, email: d.email } }
                    : { key, req: { kind: 'claim', motivo: d.motivo, glosa: d.glosa, email: d.email } };
            }));
            return { ok: true, results };
        });
    };
}
