/** zod schemas shared by several routes: path parameters, the error envelope, documents. */
import { z } from 'zod';
import { isRealDate } from '../dte/calendar-date.js';
import { DTE_TYPES } from '../dte/model.js';
import { ERROR_CATALOG } from '../errors.js';
import { RULE_IDS, ruleIssue } from '../rules.js';
import { refusedCharacter } from '../dte/xml-text.js';
import { documentCessionSchema } from './cession-schemas.js';
import { ESTADOS_SII } from '../issuing/document-state.js';
/** `{rut}` in paths: any string here; the auth hook compares it with the key's issuer. */
export const rutParam = z
    .string()
    .max(20)
    .meta({ description: "The issuer's RUT, with hyphen and check digit.", examples: ['76086428-5'] });
export const rutParams = z.object({ rut: rutParam });
export const errorDetailSchema = z.object({
    path: z.string().meta({ description: 'The field, e.g. `items[0].qty`, `query`, `Idempotency-Key`.' }),
    rule: z.enum(RULE_IDS).meta({
        description: 'The stable id of the rule the field breaks (e.g. `text.char_not_allowed`, `date.out_of_range`, `refs.totals_mismatch`): match on it, not on `message`. New ids may be added; an id is never renamed or reused.',
    }),
    message: z.string().meta({ description: 'The rule, in English (may change; match on `rule`).' }),
    params: z
        .record(z.string(), z.union([z.string(), z.number()]))
        .optional()
        .meta({
        description: 'The values `message` names (a limit, a character, a date…), by name, for a client that words the rule in its own language: e.g. `{ "max": 40 }` for `text.too_long`, `{ "char": "U+202E" }` for `text.char_not_allowed`.',
    }),
});
/**
 * The error envelope, as the routes serialise it. The published description uses the `Error`
 * schema of src/http/openapi.ts, narrowed per operation to the codes it can answer.
 */
export const errorResponse = z.object({
    ok: z.literal(false),
    error: z.string(),
    code: z.enum(Object.keys(ERROR_CATALOG)),
    request_id: z.string(),
    details: z.array(errorDetailSchema).optional(),
});
/** Error responses every authenticated route may answer. */
export const commonErrors = {
    400: errorResponse,
    401: errorResponse,
    403: errorResponse,
    404: errorResponse,
    429: errorResponse,
    500: errorResponse,
};
/*
 * Query and path values arrive as text and are validated as text (so a bad value answers the
 * same 400 with the same message); `.meta()` gives the published description the type a
 * client sends. zod drops `default` from a transformed input, hence `x-default`, which
 * src/http/openapi.ts turns back into `default`.
 */
/** A query-string integer written in plain digits ("007" and "1e3" are refused). */
export const queryInt = (name, min, max, doc = {}) => z
    .string()
    .regex(/^\d{1,10}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, {
    ...ruleIssue('number.range', { min, max }),
    message: `${name} must be between ${min} and ${max}`,
})
    .meta({
    type: 'integer',
    minimum: min,
    maximum: max,
    pattern: undefined,
    ...(doc.default !== undefined && { 'x-default': doc.default }),
    ...(doc.description !== undefined && { description: doc.description }),
});
export const queryDate = (name, description) => z
    .string()
    .refine(isRealDate, { ...ruleIssue('date.invalid'), message: `${name} must be a real date written YYYY-MM-DD` })
    .meta({ format: 'date', ...(description !== undefined && { description }) });
const dteTypeQuery = z
    .string()
    .refine((s) => DTE_TYPES.includes(Number(s)) && /^\d+$/.test(s), {
    ...ruleIssue('type.unknown', { types: DTE_TYPES.join(', ') }),
    message: `tipo_dte must be one of ${DTE_TYPES.join(', ')}`,
})
    .transform((s) => Number(s))
    .meta({ type: 'integer', enum: [...DTE_TYPES], description: 'Document type.' });
/** A document type in a JSON body or answer (the documented enum; the runtime check is the caller's). */
export const dteTypeDoc = { enum: [...DTE_TYPES], description: 'Document type: 33, 34, 39, 41, 46, 52, 56 or 61.' };
export const totalsSchema = z.object({
    net: z.number().int(),
    exempt: z.number().int(),
    vat: z.number().int(),
    vat_rate: z.number(),
    total: z.number().int(),
});
/** `estado_sii` in answers (documented enum; the values are ours, src/issuing/list-documents.ts). */
export const estadoSiiSchema = z.string().meta({
    enum: [...ESTADOS_SII],
    description: 'local (sandbox, never sent) · pendiente (not yet received by the SII; retried) · enviado · aceptado · aceptado_con_reparos · rechazado · anulado',
});
export const dateSchema = z.string().meta({ format: 'date' });
export const urlSchema = z.string().meta({ format: 'uri' });
/** docs/claims-registry.md §5: what the customer did with a live 33/34 at the SII's claims registry. */
export const receiverActionSchema = z
    .object({
    outcome: z.enum(['pendiente', 'acuse_recibo', 'aceptado', 'reclamado', 'aceptado_tacitamente']),
    claim: z.object({ code: z.string().meta({ description: 'RCD, RFP or RFT' }), description: z.string() }).nullable(),
    events: z.array(z.object({
        accion: z.string().meta({ description: 'ACD, ERM, RCD, RFP, RFT; NCA/ENC: credit notes that reference it' }),
        description: z.string(),
        rut: z.string().meta({ description: 'Who registered it (empty for NCA/ENC)' }),
        at: z.string().nullable(),
    })),
    sii_received_at: z.string().nullable(),
    deadline: z
        .string()
        .nullable()
        .meta({ description: "The SII's reception + 8 × 24 h: the customer's last moment to claim" }),
    checked_at: z.string().nullable(),
    message: z.string().nullable().meta({ description: 'For a claimed factura: issue a credit note' }),
})
    .nullable()
    .optional()
    .meta({
    description: "Live 33/34 accepted by the SII: what the customer did at the SII's claims registry; null otherwise",
});
export const documentSchema = z.object({
    type: z.number().int().meta(dteTypeDoc),
    folio: z.number().int(),
    date: dateSchema,
    receiver: z.object({ rut: z.string(), name: z.string() }),
    totals: totalsSchema,
    env: z.enum(['sandbox', 'live']),
    estado_sii: estadoSiiSchema,
    track_id: z.string().nullable(),
    pdf_url: urlSchema.meta({ description: 'The PDF, with the document token `tk`: opens without a key.' }),
    xml_url: urlSchema.meta({ description: 'The signed XML, with the document token `tk`.' }),
    created_at: z.string().meta({ format: 'date-time' }),
    /** docs/design.md §9: where the e-mail to the receiver stands. */
    email: z.object({
        status: z.enum(['none', 'pending', 'sent', 'failed', 'disabled']),
        to: z.array(z.string()),
        at: z.string().nullable(),
    }),
    voided_by: z
        .object({ type: z.number().int().meta(dteTypeDoc), folio: z.number().int() })
        .nullable()
        .meta({
        description: 'The note (61, or a 56 voiding a 61) that voided this document (`estado_sii: anulado`); null otherwise.',
    }),
    receiver_action: receiverActionSchema,
    cesion: documentCessionSchema,
});
/** A page of a list (`GET /emisiones`, `GET /events`): the items, the exact total, and the paging asked for. */
export function pageSchema(item) {
    return z.object({
        ok: z.literal(true),
        data: z.array(item),
        total: z.number().int(),
        page: z.number().int(),
        limit: z.number().int(),
    });
}
/**
 * The list filters of GET /api/{rut}/emisiones, and of the dashboard's list of documents
 * (src/web/routes/documents.ts reads each of its URL parameters with this schema's field): one
 * definition of what each filter accepts, its bounds and its default (`listFiltersOf`).
 */
export const listDocumentsQuery = z
    .strictObject({
    tipo_dte: dteTypeQuery.optional(),
    estado_sii: z
        .enum(ESTADOS_SII, { message: `estado_sii must be one of ${ESTADOS_SII.join(', ')}` })
        .optional()
        .meta({ description: "Only documents in this state at the SII (Timbre's normalised state)." }),
    desde: queryDate('desde', 'Issue date from (inclusive).').optional(),
    hasta: queryDate('hasta', 'Issue date up to (inclusive).').optional(),
    q: z
        .string()
        .max(100, 'q must be at most 100 characters')
        .superRefine((s, ctx) => {
        // PostgreSQL text cannot hold NUL (22021); no control or other refused character
        // can match a stored name anyway.
        const refused = refusedCharacter(s);
        if (refused)
            ctx.addIssue({ code: 'custom', ...ruleIssue('text.char_not_allowed', { char: refused }) });
    })
        .optional()
        .meta({ description: "The receiver's RUT or name (case and accents ignored), or an exact folio." }),
    page: queryInt('page', 1, 1_000_000, { default: 1, description: 'Page number, from 1.' }).optional(),
    limit: queryInt('limit', 1, 100, { default: 30, description: 'Page size.' }).optional(),
}, {
    error: (issue) => issue.code === 'unrecognized_keys' ? `unknown query parameter(s): ${issue.keys.join(', ')}` : undefined,
})
    .refine((v) => !v.desde || !v.hasta || v.desde <= v.hasta, {
    ...ruleIssue('date.range_order', { from: 'desde', to: 'hasta' }),
    path: ['desde'],
});
/** The use case's filters from parsed query parameters (absent: the documented defaults). */
export function listFiltersOf(q) {
    return {
        ...(q.tipo_dte !== undefined && { type: q.tipo_dte }),
        ...(q.estado_sii !== undefined && { estadoSii: q.estado_sii }),
        ...(q.desde !== undefined && { from: q.desde }),
        ...(q.hasta !== undefined && { to: q.hasta }),
        ...(q.q !== undefined && { q: q.q }),
        page: q.page ?? 1,
        limit: q.limit ?? 30,
    };
}
