import { z } from 'zod';
import { normalizeRut } from '../../dte/rut.js';
import { receivedDetail } from '../../receiving/list-received.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { receivedDetailSchema, receivedDocumentExample, receivedParams } from '../received-schemas.js';
import { commonErrors } from '../schemas.js';
export function recibidoRoute(ctx) {
    return async (app) => {
        app.get('/api/:rut/recibidos/:emisor/:type/:folio', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'getReceivedDocument',
                    summary: 'One received document',
                    description: "A received document: supplier, totals, lines, references, the checks it passed (in Spanish), its TED's CAF and the answer to its envelope.",
                    tags: ['received'],
                    success: 'The received document',
                    errors: ['RECEIVED_DOCUMENT_NOT_FOUND'],
                    example: {
                        response: {
                            ok: true,
                            document: {
                                ...receivedDocumentExample,
                                receiver: { rut: '76086428-5', name: 'Ferretería El Ñandú Ltda.' },
                                lines: [{ line: 1, name: 'Tableros', qty: '10', price: '251790', amount: '2517900', exempt: false }],
                                refs: [],
                                checks: [{ check: 'dte_signature', ok: true, detail: 'firma del Documento #F170T33 válida' }],
                                ted: { idk: 300, caf_from: 101, caf_to: 200 },
                                respuesta_url: 'https://timbre.example.cl/api/76086428-5/recibidos_envios/12/respuesta',
                                decisions: [],
                                pdf_url: 'https://timbre.example.cl/api/76086428-5/recibidos/76354771-K/33/170/pdf',
                                cesion: null,
                            },
                        },
                    },
                }),
                params: receivedParams,
                response: { 200: z.object({ ok: z.literal(true), document: receivedDetailSchema }), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const p = request.params;
            const document = await receivedDetail(ctx, issuer, {
                emisor: normalizeRut(p.emisor) ?? p.emisor,
                type: p.type,
                folio: p.folio,
            });
            return { ok: true, document };
        });
    };
}
