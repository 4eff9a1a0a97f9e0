import { z } from 'zod';
import { decisionXml } from '../../receiving/decisions.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { decisionParams as params } from '../received-schemas.js';
import { commonErrors } from '../schemas.js';
const FILES = [
    {
        which: 'resultado',
        operationId: 'downloadDecisionResultado',
        summary: "Download a decision's ResultadoDTE",
        description: 'The signed RespuestaDTE with one ResultadoDTE (EstadoDTE 0 ACEPTADO OK, 1 ACEPTADO CON DISCREPANCIAS, 2 RECHAZADO) sent to the supplier, exactly as signed (ISO-8859-1). 404 until the decision holds, and for a 43 (the schema has no room for it).',
    },
    {
        which: 'recibos',
        operationId: 'downloadDecisionRecibos',
        summary: "Download a decision's EnvioRecibos",
        description: 'The signed EnvioRecibos (Ley 19.983 receipt of goods or services, with its fixed Declaracion) of an acceptance with `recibo`, exactly as signed (ISO-8859-1).',
    },
];
export function recibidosDecisionFilesRoutes(ctx) {
    return async (app) => {
        for (const f of FILES) {
            app.get(`/api/:rut/recibidos_decisiones/:number/${f.which}`, {
                config: { auth: 'read' },
                schema: {
                    ...routeDoc({
                        operationId: f.operationId,
                        summary: f.summary,
                        description: f.description,
                        tags: ['received'],
                        success: 'The XML file',
                        errors: ['DECISION_NOT_FOUND'],
                        file: { mediaType: 'application/xml', description: f.description },
                        example: { response: { ok: true } },
                    }),
                    params,
                    response: {
                        200: {
                            description: f.description,
                            content: { 'application/xml': { schema: z.string().meta({ format: 'binary' }) } },
                        },
                        ...commonErrors,
                    },
                },
            }, async (request, reply) => {
                const { issuer } = requireAuth(request);
                const file = await decisionXml(ctx, issuer, request.params.number, f.which);
                reply.header('Cache-Control', 'private, no-store');
                reply.header('Content-Disposition', `attachment; filename="${file.filename}"`);
                reply.type('application/xml');
                return reply.send(file.bytes);
            });
        }
    };
}
