/** GET /api/{rut}/pdf/{type}/{folio} and /api/{rut}/xml/{type}/{folio} (contract §4.5, DESIGN §5). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { documentFile, type FileKind, locateDocument } from '../../issuing/document-files.ts';
import { createLimiter, createPdfRenderer } from '../../issuing/pdf-renderer.ts';
import { commonErrors } from '../schemas.ts';

const params = z.object({
  rut: z.string().max(20),
  type: z
    .string()
    .regex(/^\d{1,3}$/, 'type must be a document type number')
    .transform(Number),
  folio: z
    .string()
    .regex(/^\d{1,10}$/, 'folio must be a whole number')
    .transform(Number),
});

const flag = (name: string) => z.enum(['0', '1'], { message: `${name} must be 0 or 1` });

function querystring(kind: FileKind) {
  return z.strictObject(
    {
      tk: z.string().max(200).optional(),
      download: flag('download').optional(),
      base64: flag('base64').optional(),
      ...(kind === 'pdf'
        ? { format: z.enum(['letter', '80mm'], { message: 'format must be letter or 80mm' }).optional() }
        : {}),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
    },
  );
}

const base64Response = z.object({
  ok: z.literal(true),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  base64: z.string(),
});

export function filesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Renders run in worker threads, PDF_RENDER_CONCURRENCY at a time, for this app's lifetime.
    const renderer = createPdfRenderer({ concurrency: ctx.config.PDF_RENDER_CONCURRENCY });
    app.addHook('onClose', async () => renderer.close());
    const pdfDownloads = createLimiter(ctx.config.PDF_DOWNLOAD_CONCURRENCY);
    for (const kind of ['pdf', 'xml'] as const) {
      app.get(
        `/api/:rut/${kind}/:type/:folio`,
        {
          config: { auth: 'file' },
          schema: {
            summary: kind === 'pdf' ? 'Download the PDF (with the PDF417 stamp)' : 'Download the signed XML',
            tags: ['documents'],
            params,
            querystring: querystring(kind),
            response: { 200: z.any(), ...commonErrors },
          },
        },
        async (request, reply) => {
          const q = request.query as {
            tk?: string;
            download?: '0' | '1';
            base64?: '0' | '1';
            format?: 'letter' | '80mm';
          };
          const { issuer, document } = await locateDocument(ctx, {
            rut: request.params.rut,
            type: request.params.type,
            folio: request.params.folio,
            auth: request.auth,
            tk: q.tk,
          });
          const serve = () => documentFile(ctx, renderer, document, issuer, kind, q.format ?? 'letter');
          const file = kind === 'pdf' ? await pdfDownloads(serve) : await serve();
          reply.header('Cache-Control', 'private, no-store');
          if (q.base64 === '1') {
            return base64Response.parse({
              ok: true,
              filename: file.filename,
              content_type: file.contentType,
              size: file.body.length,
              base64: file.body.toString('base64'),
            });
          }
          reply.header(
            'Content-Disposition',
            `${q.download === '1' ? 'attachment' : 'inline'}; filename="${file.filename}"`,
          );
          reply.type(file.contentType);
          return reply.send(file.body);
        },
      );
    }
  };
}
