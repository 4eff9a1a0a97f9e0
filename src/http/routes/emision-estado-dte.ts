/** POST /api/{rut}/emision_estado_dte — a document's state at the SII, asked now (contract §4.3, DESIGN §5). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { documentStatus } from '../../issuing/document-status.ts';
import { requireAuth } from '../auth.ts';
import { commonErrors, errorResponse, rutParams } from '../schemas.ts';

const body = z.strictObject({
  type: z.number().int().min(1).max(999),
  folio: z.number().int().min(1).max(9_999_999_999),
});

const statusResponse = z.object({
  ok: z.literal(true),
  type: z.number().int(),
  folio: z.number().int(),
  env: z.enum(['sandbox', 'live']),
  estado_sii: z.string(),
  sii: z
    .object({
      estado: z.string().nullable(),
      glosa: z.string().nullable(),
      track_id: z.string(),
      checked_at: z.string().nullable(),
    })
    .nullable(),
});

export function emisionEstadoDteRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/:rut/emision_estado_dte',
      {
        // Asking the SII is a read: any role may do it (it stores the answer it got).
        config: { auth: 'read' },
        schema: {
          summary: "A document's state at the SII",
          tags: ['documents'],
          params: rutParams,
          body,
          response: { 200: statusResponse, ...commonErrors, 502: errorResponse },
        },
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        const { document: d, env, checkedAt } = await documentStatus(ctx, issuer, request.body);
        return {
          ok: true as const,
          type: d.type,
          folio: d.folio,
          env,
          estado_sii: d.estadoSii,
          sii:
            env === 'live'
              ? {
                  estado: d.siiCode,
                  glosa: d.siiGlosa,
                  track_id: d.trackId ?? '',
                  checked_at: (checkedAt ?? d.siiCheckedAt)?.toISOString() ?? null,
                }
              : null,
        };
      },
    );
  };
}
