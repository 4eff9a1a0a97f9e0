import { z } from 'zod';
import { DTE_TYPES } from '../../dte/model.js';
import { listFolios, requestFolios } from '../../issuing/folios.js';
import { ruleIssue } from '../../rules.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, dateSchema, dteTypeDoc, errorResponse, rutParams } from '../schemas.js';
const rangeSchema = z.object({
    from: z.number().int(),
    to: z.number().int(),
    next: z.number().int().meta({ description: 'The next folio to be used.' }),
    available: z.number().int(),
    authorised_at: dateSchema,
    expires_at: z.string().nullable().meta({ format: 'date' }),
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
        .refine((t) => DTE_TYPES.includes(t), {
        ...ruleIssue('type.unknown', { types: DTE_TYPES.join(', ') }),
        message: `tipo_dte must be one of ${DTE_TYPES.join(', ')}`,
    })
        .meta(dteTypeDoc),
    cantidad: z
        .number({ message: 'cantidad must be a number' })
        .int('cantidad must be a whole number')
        .min(1, 'cantidad must be at least 1')
        .max(10_000, 'cantidad must be at most 10000'),
});
export function foliosRoutes(ctx) {
    return async (app) => {
        app.get('/api/:rut/folios', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listFolios',
                    summary: 'Folio ledger per document type',
                    description: "The issuer's CAF ranges of its current environment, per document type. Per range: used, reserved and available folios, expiry (180 days for 33/43/46/56/61; other types never), status, and the unused folios of expired ranges to annul at the SII.",
                    tags: ['folios'],
                    success: 'Folio ranges per type',
                    errors: [],
                    example: {
                        response: {
                            ok: true,
                            env: 'sandbox',
                            data: [
                                {
                                    type: 33,
                                    ranges: [
                                        {
                                            from: 1,
                                            to: 100,
                                            next: 2,
                                            available: 99,
                                            authorised_at: '2026-11-23',
                                            expires_at: null,
                                            expired: false,
                                            used: 1,
                                            reserved: 0,
                                            status: 'active',
                                            to_annul: [],
                                        },
                                    ],
                                    available: 99,
                                    low_threshold: 20,
                                    to_annul: [],
                                },
                            ],
                        },
                    },
                }),
                params: rutParams,
                response: {
                    200: z.object({
                        ok: z.literal(true),
                        env: z.enum(['sandbox', 'live']),
                        data: z.array(z.object({
                            type: z.number().int().meta(dteTypeDoc),
                            ranges: z.array(rangeSchema),
                            available: z.number().int(),
                            low_threshold: z.number().int().describe('folios.low fires when available falls below this'),
                            to_annul: z.array(z.object({ from: z.number().int(), to: z.number().int(), count: z.number().int() })),
                        })),
                    }),
                    ...commonErrors,
                },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            return { ok: true, ...(await listFolios(ctx, issuer)) };
        });
        app.post('/api/:rut/folios_sii', {
            config: { auth: 'write', idempotent: true },
            schema: {
                ...routeDoc({
                    operationId: 'requestFolios',
                    summary: 'Request a new CAF folio range',
                    description: "Live: obtains a CAF from the SII with the issuer's certificate, verifies it and stores it. Sandbox: generates a sandbox range at once. Send `Idempotency-Key` to retry safely (no second range).",
                    tags: ['folios'],
                    success: 'The new folio range',
                    errors: [
                        'NO_CERTIFICATE',
                        'CERTIFICATE_EXPIRED',
                        'CERTIFICATE_NOT_YET_VALID',
                        'CAF_INVALID',
                        'CAF_ISSUER_MISMATCH',
                        'CAF_KEY_MISMATCH',
                        'CAF_SIGNATURE_INVALID',
                        'CAF_ALREADY_IMPORTED',
                        'SII_UNAVAILABLE',
                    ],
                    example: {
                        request: { tipo_dte: 33, cantidad: 100 },
                        response: { ok: true, env: 'sandbox', type: 33, from: 101, to: 200, count: 100 },
                    },
                }),
                params: rutParams,
                body: requestBody,
                response: {
                    200: z.object({
                        ok: z.literal(true),
                        env: z.enum(['sandbox', 'live']),
                        type: z.number().int().meta(dteTypeDoc),
                        from: z.number().int(),
                        to: z.number().int(),
                        count: z.number().int(),
                    }),
                    ...commonErrors,
                    409: errorResponse,
                    422: errorResponse,
                    502: errorResponse,
                },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const caf = await requestFolios(ctx, issuer, request.body.tipo_dte, request.body.cantidad);
            return {
                ok: true,
                env: caf.environment,
                type: caf.type,
                from: caf.rangeFrom,
                to: caf.rangeTo,
                count: caf.rangeTo - caf.rangeFrom + 1,
            };
        });
    };
}
