import { z } from 'zod';
import { normalizeRut } from '../../dte/rut.js';
import { envelopeFile, receivedXml } from '../../receiving/list-received.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { envelopeParams, receivedParams } from '../received-schemas.js';
import { commonErrors } from '../schemas.js';
const xmlResponse = (description) => ({
    description,
    content: { 'application/xml': { schema: z.string().meta({ format: 'binary' }) } },
});
const FILES = [
    {
        url: '/api/:rut/recibidos/:emisor/:type/:folio/xml',
        operationId: 'downloadReceivedXml',
        summary: 'Download a received DTE as received',
        description: "The DTE exactly as it stood in the received file (cut out of its envelope, after the envelope's XML declaration; a lone DTE is the whole file).",
        errors: ['RECEIVED_DOCUMENT_NOT_FOUND'],
        envelope: null,
    },
    {
        url: '/api/:rut/recibidos_envios/:number/xml',
        operationId: 'downloadReceivedEnvelope',
        summary: 'Download a received file as received',
        description: 'The received file (EnvioDTE or lone DTE) exactly as it came, refused or not.',
        errors: ['RECEIVED_ENVELOPE_NOT_FOUND'],
        envelope: 'xml',
    },
    {
        url: '/api/:rut/recibidos_envios/:number/respuesta',
        operationId: 'downloadReceivedAnswer',
        summary: 'Download the RespuestaDTE answering a received file',
        description: 'The signed RespuestaDTE with the RecepcionEnvio that answers the received envelope (RespuestaEnvioDTE_v10.xsd), to send to the supplier. A lone DTE or a file that names no sender has none (404).',
        errors: ['RECEIVED_ENVELOPE_NOT_FOUND'],
        envelope: 'respuesta',
    },
];
export function recibidosFilesRoutes(ctx) {
    return async (app) => {
        for (const f of FILES) {
            app.get(f.url, {
                config: { auth: 'read' },
                schema: {
                    ...routeDoc({
                        operationId: f.operationId,
                        summary: f.summary,
                        description: f.description,
                        tags: ['received'],
                        success: 'The XML file',
                        errors: [...f.errors],
                        file: { mediaType: 'application/xml', description: f.description },
                        example: { response: { ok: true } },
                    }),
                    params: f.envelope ? envelopeParams : receivedParams,
                    response: { 200: xmlResponse(f.description), ...commonErrors },
                },
            }, async (request, reply) => {
                const { issuer } = requireAuth(request);
                const p = request.params;
                const file = f.envelope
                    ? await envelopeFile(ctx, issuer, p.number, f.envelope)
                    : await receivedXml(ctx, issuer, {
                        emisor: normalizeRut(p.emisor) ?? p.emisor,
                        type: p.type,
                        folio: p.folio,
                    });
                reply.header('Cache-Control', 'private, no-store');
                reply.header('Content-Disposition', `attachment; filename="${file.filename.replace(/"/g, '')}"`);
                reply.type('application/xml');
                return reply.send(file.body);
            });
        }
    };
}
