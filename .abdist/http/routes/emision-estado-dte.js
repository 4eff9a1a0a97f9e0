import { z } from 'zod';
import { documentStatus } from '../../issuing/document-status.js';
import { receiverActionOf } from '../../issuing/receiver-actions.js';
import { liveCessionsOf } from '../../cession/list-cessions.js';
import { documentCessionSchema } from '../cession-schemas.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, dteTypeDoc, errorResponse, estadoSiiSchema, receiverActionSchema, rutParams, } from '../schemas.js';
const body = z.strictObject({
    type: z.number().int().min(1).max(999).meta(dteTypeDoc),
    folio: z.number().int().min(1).max(9_999_999_999),
});
const statusResponse = z.object({
    ok: z.literal(true),
    type: z.number().int().meta(dteTypeDoc),
    folio: z.number().int(),
    env: z.enum(['sandbox', 'live']),
    estado_sii: estadoSiiSchema,
    sii: z
        .object({
        estado: z.string().nullable().meta({ description: 'The raw SII state code (e.g. EPR, DOK, RCH).' }),
        glosa: z.string().nullable(),
        track_id: z.string(),
        checked_at: z.string().nullable().meta({ format: 'date-time' }),
    })
        .nullable()
        .meta({ description: 'Live only: what the SII answered. null in sandbox.' }),
    receiver_action: receiverActionSchema,
    cesion: documentCessionSchema,
});
export function emisionEstadoDteRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/emision_estado_dte', {
            // Asking the SII is a read: any role may do it (it stores the answer it got).
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'getDocumentStatus',
                    summary: "A document's state at the SII",
                    description: "Live: asks the SII now (the upload's state by track id, then the document's) and stores the answer. Sandbox: the stored document, `sii: null`, without asking anyone.",
                    tags: ['documents'],
                    success: "The document's state",
                    errors: [
                        'DOCUMENT_NOT_FOUND',
                        'NO_CERTIFICATE',
                        'CERTIFICATE_EXPIRED',
                        'CERTIFICATE_NOT_YET_VALID',
                        'SII_UNAVAILABLE',
                    ],
                    example: {
                        request: { type: 33, folio: 1 },
                        response: {
                            ok: true,
                            type: 33,
                            folio: 1,
                            env: 'live',
                            estado_sii: 'aceptado',
                            sii: {
                                estado: 'DOK',
                                glosa: 'Documento Recibido por el SII. Datos Coinciden con los Registrados',
                                track_id: '0212345678',
                                checked_at: '2026-11-23T13:07:10.000Z',
                            },
                        },
                    },
                }),
                params: rutParams,
                body,
                response: { 200: statusResponse, ...commonErrors, 422: errorResponse, 502: errorResponse },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const { document: d, env, checkedAt } = await documentStatus(ctx, issuer, request.body);
            return {
                ok: true,
                type: d.type,
                folio: d.folio,
                env,
                estado_sii: d.estadoSii,
                sii: env === 'live'
                    ? {
                        estado: d.siiCode,
                        glosa: d.siiGlosa,
                        track_id: d.trackId ?? '',
                        checked_at: (checkedAt ?? d.siiCheckedAt)?.toISOString() ?? null,
                    }
                    : null,
                receiver_action: await receiverActionOf(ctx, d.id),
                cesion: (await liveCessionsOf(ctx, issuer.id, [d.id])).get(d.id) ?? null,
            };
        });
    };
}
