import { z } from 'zod';
import { normalizeRut } from '../../dte/rut.js';
import { AppError } from '../../errors.js';
import { issueResponse } from '../../issuing/issue-document.js';
import { resubmitDocument } from '../../issuing/resubmit.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, dteTypeDoc, errorResponse, rutParam } from '../schemas.js';
import { issueResponseExample, issueResponseSchema } from './emitir.js';
const body = z.strictObject({
    rut: rutParam,
    type: z.number().int().min(1).max(999).meta(dteTypeDoc),
    folio: z.number().int().min(1).max(9_999_999_999),
});
export function emisionReenviarRoute(ctx) {
    return async (app) => {
        app.post('/api/emision_reenviar', {
            // The issuer is in the body, not the path: the hook authenticates (read), then the
            // issuer and the role are checked here in the README's order (issuer before role).
            config: { auth: 'read', idempotent: true },
            preValidation: async (request) => {
                const auth = requireAuth(request);
                const rut = request.body?.rut;
                if (typeof rut === 'string' && normalizeRut(rut) !== auth.issuer.rut)
                    throw new AppError('FORBIDDEN_ISSUER');
                if (auth.role === 'viewer') {
                    throw new AppError('FORBIDDEN_ROLE', 'A viewer key can read but not send documents; use an owner or editor key.');
                }
            },
            schema: {
                ...routeDoc({
                    operationId: 'resubmitDocument',
                    summary: 'Send a saved document to the SII again',
                    description: 'Re-sends the stored signed document (never re-signed, never a new folio) and answers like the issue. The key must belong to `rut` and may not be a viewer. A document the SII already accepted is not sent again (`warning` says so). Sandbox documents: 422 `SANDBOX_NOT_SUBMITTABLE`.',
                    tags: ['documents'],
                    success: 'The document, as sent',
                    errors: [
                        'FORBIDDEN_ISSUER',
                        'FORBIDDEN_ROLE',
                        'DOCUMENT_NOT_FOUND',
                        'SANDBOX_NOT_SUBMITTABLE',
                        'NO_CERTIFICATE',
                        'CERTIFICATE_EXPIRED',
                        'CERTIFICATE_NOT_YET_VALID',
                    ],
                    example: {
                        request: { rut: '76086428-5', type: 33, folio: 1 },
                        response: {
                            ...issueResponseExample,
                            env: 'live',
                            estado_sii: 'enviado',
                            sii: { estado: 'REC', glosa: 'Envío recibido', track_id: '0212345678' },
                            track_id: '0212345678',
                        },
                    },
                }),
                body,
                response: { 200: issueResponseSchema, ...commonErrors, 409: errorResponse, 422: errorResponse },
            },
        }, async (request) => {
            const auth = requireAuth(request);
            // The issuer travels in the body here: the key must belong to it (same rule as paths).
            if (normalizeRut(request.body.rut) !== auth.issuer.rut)
                throw new AppError('FORBIDDEN_ISSUER');
            const result = await resubmitDocument(ctx, auth.issuer, request.body);
            return issueResponse(ctx, auth.issuer, result);
        });
    };
}
