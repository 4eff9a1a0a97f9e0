import { z } from 'zod';
import { normalizeRut } from '../../dte/rut.js';
import { decide } from '../../receiving/decisions.js';
import { decisionSchema } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { requireAuth } from '../auth.js';
import { receivedParams } from '../received-schemas.js';
import { commonErrors, errorResponse } from '../schemas.js';
import { acceptBody, claimBody, decisionExample, DECISION_ERRORS } from '../decision-schemas.js';
const DECISION_WORDS = 'The SII matrix is checked first, without calling the SII: already recorded (409 DECISION_ALREADY_REGISTERED, SII code 7), ' +
    'not allowed after the recorded decision (409 DECISION_NOT_ALLOWED: 6 ERM after a claim, 11 claim after ACD, 12 ACD after a claim, 13 claim after ERM), ' +
    'the 8 days passed (422 DECISION_DEADLINE_PASSED, 8); the message says why in Spanish. Only 33, 34 and 43 are decided (422 RECEIVED_TYPE_NOT_DECIDABLE). ' +
    'The decision is stored, then registered at the SII: `state` `done` when it answered, `pending` when the SII could not be reached (Timbre retries; ' +
    "watch the `received.accepted` / `received.claimed` events), `refused` with the SII's code in `sii`. Sandbox issuers decide locally (`local`), nothing is sent. " +
    'Once it holds, the signed ResultadoDTE (`resultado_url`) and, with a receipt, the EnvioRecibos (`recibos_url`) are e-mailed to the supplier: `email`, else CorreoEmisor of its DTE.';
const decisionResponse = {
    200: z.object({ ok: z.literal(true), decision: decisionSchema }),
    ...commonErrors,
    409: errorResponse,
    422: errorResponse,
};
/** The received document a decision is about, its supplier's RUT as the list writes it. */
const documentKey = (p) => ({
    emisor: normalizeRut(p.emisor) ?? p.emisor,
    type: p.type,
    folio: p.folio,
});
export function recibidoDecisionRoutes(ctx) {
    return async (app) => {
        app.post('/api/:rut/recibidos/:emisor/:type/:folio/aceptar', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'acceptReceivedDocument',
                    summary: 'Accept a received document at the SII',
                    description: `Registers ACD (Acepta Contenido del Documento) and, with \`recibo\`, ERM (Otorga Recibo de Mercaderías o Servicios, Ley 19.983) at the SII's claims registry. ${DECISION_WORDS}`,
                    tags: ['received'],
                    success: 'The decision',
                    errors: [...DECISION_ERRORS],
                    example: {
                        request: { recibo: { recinto: 'Bodega central, Quilicura' } },
                        response: { ok: true, decision: decisionExample },
                    },
                }),
                params: receivedParams,
                body: acceptBody,
                response: decisionResponse,
            },
        }, async (request) => {
            const decision = await decide(ctx, requireAuth(request).issuer, documentKey(request.params), {
                kind: 'accept',
                ...request.body,
            });
            return { ok: true, decision };
        });
        app.post('/api/:rut/recibidos/:emisor/:type/:folio/reclamar', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'claimReceivedDocument',
                    summary: 'Claim a received document at the SII',
                    description: `Registers a claim at the SII's claims registry: \`motivo\` contenido → RCD, falta_parcial → RFP, falta_total → RFT, with \`glosa\` written in the ResultadoDTE (EstadoDTE 2 RECHAZADO; 1 ACEPTADO CON DISCREPANCIAS for a partial shortage). ${DECISION_WORDS}`,
                    tags: ['received'],
                    success: 'The decision',
                    errors: [...DECISION_ERRORS],
                    example: {
                        request: { motivo: 'falta_total', glosa: 'La mercadería nunca llegó' },
                        response: {
                            ok: true,
                            decision: {
                                ...decisionExample,
                                kind: 'claim',
                                actions: ['RFT'],
                                registered: ['RFT'],
                                motivo: 'falta_total',
                                glosa: 'La mercadería nunca llegó',
                                recinto: null,
                                recibos_url: null,
                            },
                        },
                    },
                }),
                params: receivedParams,
                body: claimBody,
                response: decisionResponse,
            },
        }, async (request) => {
            const decision = await decide(ctx, requireAuth(request).issuer, documentKey(request.params), {
                kind: 'claim',
                ...request.body,
            });
            return { ok: true, decision };
        });
    };
}
