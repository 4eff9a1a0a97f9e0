/**
 * The received files, byte-exact (README "Received documents"): a received DTE as it came
 * (`/recibidos/{emisor}/{type}/{folio}/xml`), a received file as a whole
 * (`/recibidos_envios/{number}/xml`) and the RespuestaDTE that answered it
 * (`/recibidos_envios/{number}/respuesta`). Any key of the issuer opens them.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { normalizeRut } from '../../dte/rut.ts';
import { envelopeFile, receivedXml } from '../../receiving/list-received.ts';
import { requireAuth } from '../auth.ts';
import { routeDoc } from '../openapi.ts';
import { envelopeParams, receivedParams } from '../received-schemas.ts';
import { commonErrors } from '../schemas.ts';

const xmlResponse = (description: string) => ({
  description,
  content: { 'application/xml': { schema: z.string().meta({ format: 'binary' }) } },
});

const FILES = [
  {
    url: '/api/:rut/recibidos/:emisor/:type/:folio/xml',
    operationId: 'downloadReceivedXml',
    summary: 'Download a received DTE as received',
    description:
      "The DTE exactly as it stood in the received file (cut out of its envelope, after the envelope's XML declaration; a lone DTE is the whole file).",
    errors: ['RECEIVED_DOCUMENT_NOT_FOUND'] as const,
    envelope: null,
  },
  {
    url: '/api/:rut/recibidos_envios/:number/xml',
    operationId: 'downloadReceivedEnvelope',
    summary: 'Download a received file as received',
    description: 'The received file (EnvioDTE or lone DTE) exactly as it came, refused or not.',
    errors: ['RECEIVED_ENVELOPE_NOT_FOUND'] as const,
    envelope: 'xml' as const,
  },
  {
    url: '/api/:rut/recibidos_envios/:number/respuesta',
    operationId: 'downloadReceivedAnswer',
    summary: 'Download the RespuestaDTE answering a received file',
    description:
      'The signed RespuestaDTE with the RecepcionEnvio that answers the received envelope (RespuestaEnvioDTE_v10.xsd), to send to the supplier. A lone DTE or a file that names no sender has none (404).',
    errors: ['RECEIVED_ENVELOPE_NOT_FOUND'] as const,
    envelope: 'respuesta' as const,
  },
];

export function recibidosFilesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    for (const f of FILES) {
      app.get(
        f.url,
        {
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
        },
        async (request, reply) => {
          const { issuer } = requireAuth(request);
          const p = request.params as { emisor?: string; type?: number; folio?: number; number?: number };
          const file = f.envelope
            ? await envelopeFile(ctx, issuer, p.number!, f.envelope)
            : await receivedXml(ctx, issuer, {
                emisor: normalizeRut(p.emisor!) ?? p.emisor!,
                type: p.type!,
                folio: p.folio!,
              });
          reply.header('Cache-Control', 'private, no-store');
          reply.header('Content-Disposition', `attachment; filename="${file.filename.replace(/"/g, '')}"`);
          reply.type('application/xml');
          return reply.send(file.body as unknown as string);
        },
      );
    }
  };
}
