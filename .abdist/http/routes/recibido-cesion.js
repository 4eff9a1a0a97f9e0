import { z } from 'zod';
import { checkReceivedCession } from '../../cession/received-holder.js';
import { normalizeRut } from '../../dte/rut.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { receivedCessionExample, receivedCessionSchema, receivedParams } from '../received-schemas.js';
import { commonErrors, errorResponse } from '../schemas.js';
const DESCRIPTION = "Asks the SII's registry of cesiones (getEstCesionRelac, as the document's receiver) whether the supplier ceded this factura and to whom: `cedido`, `tenedor` (RUT_TENEDOR, whom to pay). The answer is stored on the received document (its detail's `cesion`). Live issuers and facturas (33, 34) only; the SII unreachable or refusing: 502 SII_UNAVAILABLE, nothing recorded.";
export function recibidoCesionRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/recibidos/:emisor/:type/:folio/cesion', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'getReceivedCession',
                    summary: "Who holds a supplier's factura (registry of cesiones)",
                    description: DESCRIPTION,
                    tags: ['received'],
                    success: 'The registry’s answer',
                    errors: [
                        'RECEIVED_DOCUMENT_NOT_FOUND',
                        'DOCUMENT_NOT_CEDIBLE',
                        'SANDBOX_NOT_SUBMITTABLE',
                        'NO_CERTIFICATE',
                        'CERTIFICATE_EXPIRED',
                        'SII_UNAVAILABLE',
                    ],
                    example: { response: { ok: true, cesion: receivedCessionExample } },
                }),
                params: receivedParams,
                response: {
                    200: z.object({ ok: z.literal(true), cesion: receivedCessionSchema }),
                    ...commonErrors,
                    422: errorResponse,
                    502: errorResponse,
                },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const p = request.params;
            const cesion = await checkReceivedCession(ctx, issuer, {
                emisor: normalizeRut(p.emisor) ?? p.emisor,
                type: p.type,
                folio: p.folio,
            });
            return { ok: true, cesion };
        });
    };
}
