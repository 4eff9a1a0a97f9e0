/**
 * Operator use cases for accounts and issuers (CLI `issuer create|update|deactivate|list`).
 * Field limits are the SII's for the Emisor block (DTE_v10.xsd: RznSoc 100, GiroEmis 80,
 * Acteco 6 digits ×1..4, DirOrigen 70, CmnaOrigen 20, CiudadOrigen 20) so that every issuer we
 * accept can actually issue.
 */
import { z } from 'zod';
import { isUniqueViolation } from '../db/database.js';
import { fromDbDate, toDbDate } from '../dte/calendar-date.js';
import { DTE_TYPES } from '../dte/model.js';
import { normalizeRut } from '../dte/rut.js';
import { AppError, validationError, zodError } from '../errors.js';
import { changing } from './changes.js';
import { ruleIssue } from '../rules.js';
import { isoDate } from './validation.js';
const rut = z.string().transform((v, ctx) => {
    const r = normalizeRut(v);
    if (!r) {
        ctx.addIssue({
            code: 'custom',
            ...ruleIssue('rut.invalid'),
            message: 'is not a valid RUT (format 12345678-9, check digit módulo 11)',
        });
        return z.NEVER;
    }
    return r;
});
const text = (max) => z
    .string()
    .trim()
    .refine((s) => s.length > 0, ruleIssue('text.empty'))
    .refine((s) => s.length <= max, ruleIssue('string.too_long', { max }));
const issuerFieldsSchema = z.object({
    name: text(100),
    giro: text(80),
    acteco: z
        .array(z.string().refine((s) => /^\d{6}$/.test(s), ruleIssue('issuer.activity_code')))
        .min(1, 'needs at least one code')
        .max(4, 'accepts at most 4 codes'),
    address: text(70),
    comuna: text(20),
    city: text(20).nullable().optional(),
    ambiente: z
        .number()
        .int()
        .refine((n) => [0, 1].includes(n), ruleIssue('issuer.ambiente')),
    vatRate: z.number().int('must be a whole percentage').min(0).max(100),
    resolutionDate: isoDate.nullable(),
    resolutionNumber: z.number().int().min(0).max(999_999).nullable(),
    /** The SII unit printed "S.I.I. - <unit>" (MUE §1.1.7), e.g. "SANTIAGO ORIENTE". */
    siiOffice: text(40).nullable(),
});
const createSchema = issuerFieldsSchema
    .partial({
    city: true,
    ambiente: true,
    vatRate: true,
    resolutionDate: true,
    resolutionNumber: true,
    siiOffice: true,
})
    .extend({ rut, accountId: z.string().uuid('must be an account id (uuid)').optional() });
export async function createIssuer(ctx, input) {
    const parsed = createSchema.safeParse(input);
    if (!parsed.success)
        throw zodError(parsed.error.issues);
    const v = parsed.data;
    const { prisma } = ctx.db;
    try {
        return await prisma.$transaction(async (tx) => {
            let accountId = v.accountId;
            if (accountId) {
                const account = await tx.account.findUnique({ where: { id: accountId } });
                if (!account)
                    throw new AppError('ACCOUNT_NOT_FOUND', `No account with id ${accountId}.`);
            }
            else {
                accountId = (await tx.account.create({ data: { name: v.name } })).id;
            }
            return tx.issuer.create({
                data: {
                    accountId,
                    rut: v.rut,
                    name: v.name,
                    giro: v.giro,
                    acteco: v.acteco,
                    address: v.address,
                    comuna: v.comuna,
                    city: v.city ?? null,
                    siiAmbiente: v.ambiente ?? 0,
                    vatRate: v.vatRate ?? 19,
                    resolutionDate: toDbDate(v.resolutionDate ?? null),
                    resolutionNumber: v.resolutionNumber ?? null,
                    siiOffice: v.siiOffice ?? null,
                },
            });
        });
    }
    catch (e) {
        if (isUniqueViolation(e))
            throw new AppError('ISSUER_EXISTS', `An issuer with RUT ${v.rut} already exists.`);
        throw e;
    }
}
function mergeFolioAlerts(current, changes) {
    const merged = { ...current };
    for (const [type, n] of Object.entries(changes)) {
        if (!DTE_TYPES.includes(Number(type)) || !/^\d+$/.test(type)) {
            throw validationError('folio-alert', 'folio_alert.type', { type, types: DTE_TYPES.join(', ') });
        }
        if (n === null)
            delete merged[type];
        else if (!Number.isInteger(n) || n < 0 || n > 1_000_000) {
            throw validationError('folio-alert', 'folio_alert.threshold', { type });
        }
        else
            merged[type] = n;
    }
    return merged;
}
export async function updateIssuer(ctx, rutText, input) {
    const issuer = await findIssuerOrThrow(ctx, rutText, { includeInactive: true });
    const { folioAlerts, ...fields } = input;
    const parsed = issuerFieldsSchema.partial().safeParse(fields);
    if (!parsed.success)
        throw zodError(parsed.error.issues);
    const v = parsed.data;
    return changing(ctx, { kind: 'issuer', issuerId: issuer.id }, (tx) => tx.issuer.update({
        where: { id: issuer.id },
        data: {
            ...(v.name !== undefined && { name: v.name }),
            ...(v.giro !== undefined && { giro: v.giro }),
            ...(v.acteco !== undefined && { acteco: v.acteco }),
            ...(v.address !== undefined && { address: v.address }),
            ...(v.comuna !== undefined && { comuna: v.comuna }),
            ...(v.city !== undefined && { city: v.city }),
            ...(v.ambiente !== undefined && { siiAmbiente: v.ambiente }),
            ...(v.vatRate !== undefined && { vatRate: v.vatRate }),
            ...(v.resolutionDate !== undefined && { resolutionDate: toDbDate(v.resolutionDate) }),
            ...(v.resolutionNumber !== undefined && { resolutionNumber: v.resolutionNumber }),
            ...(v.siiOffice !== undefined && { siiOffice: v.siiOffice }),
            ...(folioAlerts && { folioAlerts: mergeFolioAlerts(issuer.folioAlerts, folioAlerts) }),
        },
    }));
}
export async function deactivateIssuer(ctx, rutText) {
    const issuer = await findIssuerOrThrow(ctx, rutText, { includeInactive: true });
    return changing(ctx, { kind: 'issuer', issuerId: issuer.id }, (tx) => tx.issuer.update({ where: { id: issuer.id }, data: { active: false } }));
}
export async function listIssuers(ctx) {
    return ctx.db.prisma.issuer.findMany({ orderBy: { createdAt: 'asc' } });
}
export async function findIssuerOrThrow(ctx, rutText, opts = {}) {
    const r = normalizeRut(rutText);
    if (!r)
        throw new AppError('INVALID_RUT', `"${rutText}" is not a valid RUT.`);
    const issuer = await ctx.db.prisma.issuer.findUnique({ where: { rut: r } });
    if (!issuer || (!opts.includeInactive && !issuer.active)) {
        throw new AppError('ISSUER_NOT_FOUND', `No ${opts.includeInactive ? '' : 'active '}issuer with RUT ${r}.`);
    }
    return issuer;
}
/** The JSON shape the CLI prints for an issuer (docs/design.md §5 "Admin"). */
export function issuerView(i) {
    return {
        rut: i.rut,
        account_id: i.accountId,
        name: i.name,
        giro: i.giro,
        acteco: i.acteco,
        address: i.address,
        comuna: i.comuna,
        city: i.city,
        ambiente: i.siiAmbiente,
        env: i.siiAmbiente === 0 ? 'sandbox' : 'live',
        vat_rate: i.vatRate,
        resolution_date: fromDbDate(i.resolutionDate),
        resolution_number: i.resolutionNumber,
        sii_office: i.siiOffice,
        active: i.active,
        created_at: i.createdAt.toISOString(),
        folio_alerts: i.folioAlerts,
    };
}
