/** GET /api/{rut}/folios and POST /api/{rut}/folios_sii (contract §4.6, DESIGN §5). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { DTE_TYPES, type DteType } from '../../dte/model.ts';
import { listFolios, requestFolios } from '../../issuing/folios.ts';
import { requireAuth } from '../auth.ts';
import { commonErrors, errorResponse, rutParams } from '../schemas.ts';

const rangeSchema = z.object({
  from: z.number().int(),
  to: z.number().int(),
  next: z.number().int(),
  available: z.number().int(),
  authorised_at: z.string(),
  expires_at: z.string().nullable(),
  expired: z.boolean(),
  used: z.number().int().describe('Folios stored in documents'),
  reserved: z.number().int().describe('Folios taken by requests still building their document'),
  status: z.enum(['active', 'exhausted', 'expired']),
  to_annul: z
    .array(z.object({ from: z.number().int(), to: z.number().int(), count: z.number().int() }))
    .describe('Unused folios of an expired range: annul them at the SII'),
});

const requestBody = z.strictObject({
  tipo_dte: z
    .number({ message: 'tipo_dte must be a number' })
    .int()
    .refine((t) => (DTE_TYPES as readonly number[]).includes(t), `tipo_dte must be one of ${DTE_TYPES.join(', ')}`),
  cantidad: z
    .number({ message: 'cantidad must be a number' })
    .int('cantidad must be a whole number')
    .min(1, 'cantidad must be at least 1')
    .max(10_000, 'cantidad must be at most 10000'),
});

export function foliosRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/folios',
      {
        config: { auth: 'read' },
        schema: {
          summary: 'Folio ledger per document type',
          description:
            'Per CAF range: used, reserved and available folios, expiry (180 days for 33/43/46/56/61; other types never), status, and the unused folios of expired ranges to annul at the SII.',
          tags: ['folios'],
          params: rutParams,
          response: {
            200: z.object({
              ok: z.literal(true),
              env: z.enum(['sandbox', 'live']),
              data: z.array(
                z.object({
                  type: z.number().int(),
                  ranges: z.array(rangeSchema),
                  available: z.number().int(),
                  low_threshold: z.number().int().describe('folios.low fires when available falls below this'),
                  to_annul: z.array(
                    z.object({ from: z.number().int(), to: z.number().int(), count: z.number().int() }),
                  ),
                }),
              ),
            }),
            ...commonErrors,
          },
        },
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        return { ok: true as const, ...(await listFolios(ctx, issuer)) };
      },
    );

    app.post(
      '/api/:rut/folios_sii',
      {
        config: { auth: 'write', idempotent: true },
        schema: {
          summary: 'Request a new CAF folio range',
          tags: ['folios'],
          params: rutParams,
          body: requestBody,
          response: {
            200: z.object({
              ok: z.literal(true),
              env: z.enum(['sandbox', 'live']),
              type: z.number().int(),
              from: z.number().int(),
              to: z.number().int(),
              count: z.number().int(),
            }),
            ...commonErrors,
            422: errorResponse,
            502: errorResponse,
          },
        },
      },
      async (request) => {
        const { issuer } = requireAuth(request);
        const caf = await requestFolios(ctx, issuer, request.body.tipo_dte as DteType, request.body.cantidad);
        return {
          ok: true as const,
          env: caf.environment,
          type: caf.type,
          from: caf.rangeFrom,
          to: caf.rangeTo,
          count: caf.rangeTo - caf.rangeFrom + 1,
        };
      },
    );
  };
}
