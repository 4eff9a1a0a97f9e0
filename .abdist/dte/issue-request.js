/**
 * The body of `POST /api/{rut}/emitir` (docs/api.md §2 "Issue request", docs/design.md §5 "Issue request extras"), as a
 * zod schema: the one place where a request is judged. Every rule names the field it is about
 * so a 400 carries `details[].path`. Lengths are the SII's (DTE_v10.xsd / EnvioBOLETA_v11.xsd,
 * docs/sii-reference.md §4.1–§4.2): longer text is refused, never silently cut.
 *
 * Decisions the API's fixed points leave open (README "The issue request"):
 * - Unknown fields are refused (400) at every level, so a misspelt `discount_pct` is not lost.
 * - Text is trimmed; control characters and the other characters of `refusedCharacter`
 *   (src/dte/xml-text.ts) are refused (a line break or tab is allowed only in `items[].description`).
 * - Quantities and prices are JSON numbers with up to 6 decimals (Dec12_6Type); prices may be
 *   0 (a free line) but not negative.
 */
import { z } from 'zod';
import { isRealDate } from './calendar-date.js';
import { DTE_TYPES, isBoleta, referenceCode } from './model.js';
import { normalizeRut } from './rut.js';
import { ruleIssue } from '../rules.js';
import { isEmailAddress } from './email-address.js';
import { refusedCharacter } from './xml-text.js';
const LINE_BREAKS = /[\n\t]/;
/**
 * A text field of at most `max` characters (SII length), trimmed, non-empty, made only of
 * characters that survive the signed XML byte-exact (`refusedCharacter`, src/dte/xml-text.ts):
 * any other is a 400 naming the field and the character, e.g. "character U+2028 is not allowed".
 */
function siiText(max, opts = {}) {
    return z
        .string()
        .trim()
        .refine((s) => s.length > 0, ruleIssue('text.empty'))
        .refine((s) => [...s].length <= max, ruleIssue('text.too_long', { max }))
        .superRefine((s, ctx) => {
        const refused = refusedCharacter(s);
        if (refused)
            ctx.addIssue({ code: 'custom', ...ruleIssue('text.char_not_allowed', { char: refused }) });
    })
        .refine((s) => opts.multiline || !LINE_BREAKS.test(s), ruleIssue('text.multiline'));
}
/** Decimal text of a finite JSON number ("1.5", "1350"), or null if it needs exponent notation. */
export function decimalText(n) {
    const s = String(n);
    return /e/i.test(s) ? null : s;
}
/**
 * The SII's upload gateway refuses XML lines longer than ~4 090 characters (docs/sii-reference.md §7.3).
 * DscItem is written on one line; `&` becomes `&amp;` and characters beyond Latin-1 become
 * character references, so up to 1 000 characters can grow past that.
 */
const MAX_ENCODED_LINE = 3900;
function encodedLength(s) {
    let n = 0;
    for (const ch of s) {
        const c = ch.codePointAt(0) ?? 0;
        n += ch === '&' ? 5 : ch === '<' || ch === '>' ? 4 : c > 0xff ? String(c).length + 3 : 1;
    }
    return n;
}
const decimals = (s) => (s.split('.')[1] ?? '').length;
/** Dec12_6Type: up to 12 integer digits and 6 decimals. */
function siiDecimal(label, opts) {
    return z
        .number({ error: `${label} must be a number` })
        .finite()
        .refine((n) => (opts.positive ? n > 0 : n >= 0), opts.positive ? ruleIssue('number.not_positive') : ruleIssue('number.negative'))
        .refine((n) => n < 1e12, ruleIssue('amount.over_limit', { limit: '1 000 000 000 000' }))
        .refine((n) => {
        const t = decimalText(n);
        return t !== null && decimals(t) <= 6;
    }, ruleIssue('number.too_many_decimals', { max: 6 }));
}
const rut = z
    .string()
    .refine((s) => s.length <= 20, { ...ruleIssue('rut.invalid'), abort: true })
    .transform((s, ctx) => {
    const r = normalizeRut(s);
    if (!r) {
        ctx.addIssue({ code: 'custom', ...ruleIssue('rut.invalid') });
        return z.NEVER;
    }
    return r;
});
/** FechaType (SiiTypes_v10.xsd): a real date from 2000-01-01 to 2050-12-31. */
const FIRST_DATE = '2000-01-01';
const LAST_DATE = '2050-12-31';
const date = z
    .string()
    .refine(isRealDate, ruleIssue('date.invalid'))
    .refine((s) => s >= FIRST_DATE && s <= LAST_DATE, ruleIssue('date.out_of_range', { from: FIRST_DATE, to: LAST_DATE }));
const receiverSchema = z.strictObject({
    rut,
    name: siiText(100).optional(),
    activity: siiText(40).optional(),
    address: siiText(70).optional(),
    comuna: siiText(20).optional(),
    city: siiText(20).optional(),
    email: siiText(80).refine(isEmailAddress, ruleIssue('email.invalid')).optional(),
});
const itemSchema = z.strictObject({
    name: siiText(80),
    qty: siiDecimal('qty', { positive: true }),
    price: siiDecimal('price', { positive: false }).optional(),
    exempt: z.boolean().optional(),
    unit: siiText(4).optional(),
    code: siiText(35).optional(),
    description: siiText(1000, { multiline: true })
        .refine((s) => encodedLength(s) <= MAX_ENCODED_LINE, ruleIssue('text.encoded_too_long'))
        .optional(),
    discount_pct: z
        .number()
        .finite()
        .refine((n) => n > 0 && n <= 100, ruleIssue('number.percent_range'))
        .refine((n) => decimals(decimalText(n) ?? '0.000') <= 2, ruleIssue('number.too_many_decimals', { max: 2 }))
        .optional(),
});
const refSchema = z.strictObject({
    /** TpoDocRef: a document type (33, 801 …) or a short code such as "SET". */
    type: z.union([
        z.number().int().min(1).max(999),
        z
            .string()
            .trim()
            .refine((s) => /^[0-9A-Za-z]{1,3}$/.test(s), ruleIssue('refs.type_code')),
    ]),
    /** FolioRef: up to 18 characters. */
    folio: z.union([z.number().int().min(0).max(999_999_999_999_999), siiText(18)]),
    date: date.optional(),
    reason: siiText(90).optional(),
    /** CodRef: 1 voids, 2 corrects text, 3 corrects amounts. */
    code: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
});
export const MAX_LINES = 60;
export const MAX_BOLETA_LINES = 1000;
const MAX_REFS = 40;
/** Retention codes Timbre computes for type 46: 15 = total VAT retention (docs/sii-reference.md §4.4). */
const RETENTION_CODES = [15];
const baseSchema = z.strictObject({
    type: z
        .number({ error: 'type is required: one of 33, 34, 39, 41, 46, 52, 56, 61' })
        .int()
        .refine((n) => DTE_TYPES.includes(n), ruleIssue('type.unknown', { types: DTE_TYPES.join(', ') })),
    date: date.optional(),
    receiver: receiverSchema.optional(),
    items: z
        .array(itemSchema, { error: 'items is required: an array of lines' })
        .refine((a) => a.length >= 1, ruleIssue('items.none'))
        .refine((a) => a.length <= MAX_BOLETA_LINES, ruleIssue('items.too_many', { max: MAX_BOLETA_LINES })),
    refs: z
        .array(refSchema)
        .refine((a) => a.length <= MAX_REFS, ruleIssue('refs.too_many', { max: MAX_REFS }))
        .optional(),
    /** FmaPago ([FMT] IdDoc field 13): 1 contado, 2 crédito, 3 sin costo (entrega gratuita). */
    payment: z.literal([1, 2, 3], { error: 'must be 1, 2 or 3' }).optional(),
    dispatch: z
        .strictObject({
        transfer_type: z.number().int().min(1).max(9),
        dispatch_type: z.number().int().min(1).max(3).optional(),
        /** [FMT] Transporte: Patente, RUTTrans, Chofer, DirDest, CmnaDest, CiudadDest. */
        transport: z
            .strictObject({
            plate: siiText(8).optional(),
            carrier_rut: rut.optional(),
            driver: z.strictObject({ rut, name: siiText(30) }).optional(),
            address: siiText(70).optional(),
            comuna: siiText(20).optional(),
            city: siiText(20).optional(),
        })
            .optional(),
    })
        .optional(),
    /** Boletas: MedioPago ([FMTB] field 10): 1 efectivo, 2 pago electrónico, 3 transferencia, 4 cheque, 5 otro. */
    payment_method: z.number().int().min(1).max(5).optional(),
    /** Boletas of periodic services: PeriodoDesde / PeriodoHasta ([FMTB] fields 7, 8). */
    service_period: z.strictObject({ from: date, to: date }).optional(),
    /** Boletas: FchVenc, the payment due date ([FMTB] field 9). */
    due_date: date.optional(),
    retention_code: z
        .number()
        .int()
        .refine((n) => RETENTION_CODES.includes(n), ruleIssue('retention.unsupported'))
        .optional(),
    service_indicator: z.number().int().min(1).max(4).optional(),
});
/** Receiver fields the SII makes mandatory outside boletas ([FMT] Receptor fields 57 GiroRecep,
 * 60 DirRecep, 61 CmnaRecep; "obligatorio" for 33, 34, 46, 52, 56). A 61 may leave them out:
 * Timbre copies them from the referenced document (src/issuing/references.ts). */
const REQUIRED_RECEIVER_FIELDS = [
    ['activity', 'GiroRecep'],
    ['address', 'DirRecep'],
    ['comuna', 'CmnaRecep'],
];
/** Non-tax reference types ([FMT] TpoDocRef 801…: orden de compra, nota de pedido, contrato,
 * resolución, HES …, and "SET" of the certification): they carry no CodRef. */
function isTaxDocumentType(type) {
    return /^\d+$/.test(type) && Number(type) < 800;
}
/** Document types a note may void or correct ([FMT] CodRef, [MUE] notes): facturas, boletas,
 * facturas de compra, liquidaciones (43), exportación (110/111/112) and the notes themselves.
 * Paper documents (30, 32, 35, 38, 45, 55, 60) and guías (50, 52) are not voided by a DTE note. */
const NOTE_TARGETS = new Set(['33', '34', '39', '41', '43', '46', '56', '61', '110', '111', '112']);
/** The rules that depend on the document type (docs/api.md §7, docs/sii-reference.md §4.4). */
function typeRules(req, ctx) {
    const type = req.type;
    if (!DTE_TYPES.includes(type))
        return;
    const issue = (path, id, ...args) => ctx.addIssue({ code: 'custom', path, ...ruleIssue(id, ...args) });
    const boleta = isBoleta(type);
    const note = type === 56 || type === 61;
    if (!boleta) {
        // Guía 52 with IndTraslado 5 (traslado interno): the receiver is the issuer itself ([MUE]),
        // so Timbre fills it in when it is left out.
        const internal = type === 52 && req.dispatch?.transfer_type === 5;
        if (!req.receiver) {
            if (!internal)
                issue(['receiver'], 'receiver.required');
        }
        else {
            if (!req.receiver.name)
                issue(['receiver', 'name'], 'receiver.name_required');
            // SII format rule 2: GiroRecep, DirRecep and CmnaRecep are mandatory on 33/34/46/52/56 ([FMT] 57, 60, 61).
            if (type !== 61) {
                for (const [field, tag] of REQUIRED_RECEIVER_FIELDS) {
                    if (!req.receiver[field])
                        issue(['receiver', field], 'receiver.field_required', { type, tag });
                }
            }
        }
    }
    if (!boleta && req.items.length > MAX_LINES)
        issue(['items'], 'items.too_many', { max: MAX_LINES });
    const refs = req.refs ?? [];
    if (note && refs.length === 0)
        issue(['refs'], 'refs.note_requires_ref', { type });
    if (!boleta) {
        refs.forEach((r, i) => {
            if (!r.date)
                issue(['refs', i, 'date'], 'refs.date_required');
        });
    }
    // SII format rule 3: references ([FMT] Referencias fields TpoDocRef, CodRef; [MUE] notes).
    refs.forEach((r, i) => {
        const refType = String(r.type).toUpperCase();
        if (r.code !== undefined && !isTaxDocumentType(refType)) {
            issue(['refs', i, 'code'], 'refs.code_on_non_tax', { ref_type: refType });
        }
        if (r.code !== undefined && !note)
            issue(['refs', i, 'code'], 'refs.code_not_on_note');
        if (r.code === 2 && type !== 61) {
            issue(['refs', i, 'code'], 'refs.text_correction_only_61');
        }
        if (note && r.code === 1 && type === 56 && refType !== '61') {
            issue(['refs', i, 'code'], 'refs.debit_voids_credit_only');
        }
        if (type === 61 && refType === '61' && referenceCode(type, r.code, refType) === 1) {
            issue(['refs', i, 'code'], 'refs.credit_voided_by_debit');
        }
        if (note && isTaxDocumentType(refType) && referenceCode(type, r.code, refType) !== undefined) {
            if (!NOTE_TARGETS.has(refType)) {
                issue(['refs', i, 'type'], 'refs.target_type_not_allowed', { ref_type: refType });
            }
        }
    });
    const taxRefs = refs.filter((r) => isTaxDocumentType(String(r.type)));
    if (note && taxRefs.length === 0 && refs.length > 0) {
        issue(['refs'], 'refs.no_tax_document');
    }
    const codes = taxRefs.map((r) => referenceCode(type, r.code, String(r.type)));
    if (note && taxRefs.length > 1) {
        issue(['refs'], 'refs.one_tax_document');
    }
    const textCorrection = note && codes.includes(2);
    req.items.forEach((item, i) => {
        const unpriced = type === 52 && req.dispatch?.transfer_type !== 1;
        if (item.price === undefined && !unpriced && !textCorrection) {
            issue(['items', i, 'price'], type === 52 ? 'items.price_required_on_sale' : 'items.price_required');
        }
        if (textCorrection && item.price !== undefined && item.price !== 0) {
            issue(['items', i, 'price'], 'refs.text_correction_amounts');
        }
    });
    if ((type === 33 || type === 39) && req.items.length > 0 && req.items.every((it) => it.exempt)) {
        issue(['items'], 'items.all_exempt', { type: type === 33 ? 34 : 41 });
    }
    if (type === 52 && !req.dispatch)
        issue(['dispatch'], 'dispatch.required');
    if (type !== 52 && req.dispatch)
        issue(['dispatch'], 'dispatch.only_type_52');
    if (type === 52 && req.dispatch) {
        const d = req.dispatch;
        // SII format rule 6: exports need Aduana/Transporte and foreign-currency fields Timbre does not build yet
        // ([FMT] Encabezado 38, 84, 86; Detalle 21, 23, 28).
        if (d.transfer_type === 8 || d.transfer_type === 9) {
            issue(['dispatch', 'transfer_type'], 'dispatch.export_unsupported');
        }
        // DirDest/CmnaDest when the issuer delivers (TipoDespacho 2 or 3, [FMT] Transporte).
        if (d.dispatch_type === 2 || d.dispatch_type === 3) {
            if (!d.transport?.address)
                issue(['dispatch', 'transport', 'address'], 'dispatch.destination_required', { tag: 'DirDest' });
            if (!d.transport?.comuna)
                issue(['dispatch', 'transport', 'comuna'], 'dispatch.destination_required', { tag: 'CmnaDest' });
        }
    }
    if (type !== 46 && req.retention_code !== undefined)
        issue(['retention_code'], 'retention.only_type_46');
    if (boleta && req.payment !== undefined) {
        issue(['payment'], 'boleta.no_fma_pago');
    }
    if (!boleta) {
        if (req.service_indicator !== undefined)
            issue(['service_indicator'], 'boleta.only');
        if (req.payment_method !== undefined)
            issue(['payment_method'], 'boleta.only');
        if (req.service_period !== undefined)
            issue(['service_period'], 'boleta.only');
        if (req.due_date !== undefined)
            issue(['due_date'], 'boleta.only');
    }
    else {
        // SII format rule 7: periodic services carry their period; domiciliary ones (2) their due date and the
        // address where the service is given ([FMTB] fields 7, 8, 9, 24).
        const si = req.service_indicator ?? 3;
        if ((si === 1 || si === 2) && !req.service_period) {
            issue(['service_period'], 'boleta.period_required', { indicator: si });
        }
        if (si === 2 && !req.due_date)
            issue(['due_date'], 'boleta.due_date_required');
        if ((si === 1 || si === 2) && !req.receiver?.address) {
            issue(['receiver', 'address'], 'boleta.address_required', { indicator: si });
        }
        if (req.service_period && req.service_period.from > req.service_period.to) {
            issue(['service_period', 'to'], 'boleta.period_order');
        }
    }
}
/**
 * The receiver's missing fields when another field has already failed in a way that stops the
 * type rules (a bad RUT aborts the rest): reported together, so a person corrects the receiver
 * in one round, not two. Runs exactly when typeRules does not (zod skips a refinement after an
 * aborting issue), so a field is never reported twice.
 */
function missingReceiverFields(req, ctx) {
    // Runs after an aborting issue, so the body may not even be an object (`null`, a number).
    if (req === null || typeof req !== 'object')
        return;
    const type = req.type;
    const receiver = req.receiver;
    if (!DTE_TYPES.includes(type) || isBoleta(type))
        return;
    if (!receiver || typeof receiver !== 'object')
        return;
    const issue = (path, id, ...args) => ctx.addIssue({ code: 'custom', path, ...ruleIssue(id, ...args) });
    if (receiver.name === undefined)
        issue(['receiver', 'name'], 'receiver.name_required');
    if (type === 61)
        return;
    for (const [field, tag] of REQUIRED_RECEIVER_FIELDS) {
        if (receiver[field] === undefined)
            issue(['receiver', field], 'receiver.field_required', { type, tag });
    }
}
/** Whether an earlier issue stops the refinements that follow (zod's own test for it). */
const aborted = (payload) => payload.issues.some((i) => i.continue !== true);
export const issueRequestSchema = baseSchema
    .superRefine(missingReceiverFields, { when: aborted })
    .superRefine(typeRules);
