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
import { isRealDate } from './calendar-date.ts';
import { DTE_TYPES, type DteType, isBoleta, referenceCode } from './model.ts';
import { normalizeRut } from './rut.ts';
import { refusedCharacter } from './xml-text.ts';

const LINE_BREAKS = /[\n\t]/;

/**
 * A text field of at most `max` characters (SII length), trimmed, non-empty, made only of
 * characters that survive the signed XML byte-exact (`refusedCharacter`, src/dte/xml-text.ts):
 * any other is a 400 naming the field and the character, e.g. "character U+2028 is not allowed".
 */
function siiText(max: number, opts: { multiline?: boolean } = {}) {
  return z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((s) => [...s].length <= max, `must be at most ${max} characters (SII limit)`)
    .superRefine((s, ctx) => {
      const refused = refusedCharacter(s);
      if (refused) ctx.addIssue({ code: 'custom', message: `character ${refused} is not allowed` });
    })
    .refine((s) => opts.multiline || !LINE_BREAKS.test(s), 'must be a single line');
}

/** Decimal text of a finite JSON number ("1.5", "1350"), or null if it needs exponent notation. */
export function decimalText(n: number): string | null {
  const s = String(n);
  return /e/i.test(s) ? null : s;
}

/**
 * The SII's upload gateway refuses XML lines longer than ~4 090 characters (docs/sii-reference.md §7.3).
 * DscItem is written on one line; `&` becomes `&amp;` and characters beyond Latin-1 become
 * character references, so up to 1 000 characters can grow past that.
 */
const MAX_ENCODED_LINE = 3900;
function encodedLength(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    n += ch === '&' ? 5 : ch === '<' || ch === '>' ? 4 : c > 0xff ? String(c).length + 3 : 1;
  }
  return n;
}

const decimals = (s: string) => (s.split('.')[1] ?? '').length;

/** Dec12_6Type: up to 12 integer digits and 6 decimals. */
function siiDecimal(label: string, opts: { positive: boolean }) {
  return z
    .number({ error: `${label} must be a number` })
    .finite()
    .refine((n) => (opts.positive ? n > 0 : n >= 0), opts.positive ? 'must be greater than 0' : 'must not be negative')
    .refine((n) => n < 1e12, 'must be less than 1 000 000 000 000')
    .refine((n) => {
      const t = decimalText(n);
      return t !== null && decimals(t) <= 6;
    }, 'may carry at most 6 decimals');
}

const rut = z
  .string()
  .max(20, 'must be a RUT with hyphen and check digit, e.g. 76354771-K')
  .transform((s, ctx) => {
    const r = normalizeRut(s);
    if (!r) {
      ctx.addIssue({ code: 'custom', message: 'must be a RUT with hyphen and check digit, e.g. 76354771-K' });
      return z.NEVER;
    }
    return r;
  });

/** FechaType (SiiTypes_v10.xsd): a real date from 2000-01-01 to 2050-12-31. */
const FIRST_DATE = '2000-01-01';
const LAST_DATE = '2050-12-31';
const date = z
  .string()
  .refine(isRealDate, 'must be a real date written YYYY-MM-DD')
  .refine((s) => s >= FIRST_DATE && s <= LAST_DATE, `must be from ${FIRST_DATE} to ${LAST_DATE} (SII FechaType)`);

const receiverSchema = z.strictObject({
  rut,
  name: siiText(100).optional(),
  activity: siiText(40).optional(),
  address: siiText(70).optional(),
  comuna: siiText(20).optional(),
  city: siiText(20).optional(),
  email: siiText(80)
    .refine((s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), 'must be an e-mail address')
    .optional(),
});

const itemSchema = z.strictObject({
  name: siiText(80),
  qty: siiDecimal('qty', { positive: true }),
  price: siiDecimal('price', { positive: false }).optional(),
  exempt: z.boolean().optional(),
  unit: siiText(4).optional(),
  code: siiText(35).optional(),
  description: siiText(1000, { multiline: true })
    .refine(
      (s) => encodedLength(s) <= MAX_ENCODED_LINE,
      'is too long once written as ISO-8859-1 XML (the SII refuses lines over ~4 000 characters)',
    )
    .optional(),
  discount_pct: z
    .number()
    .finite()
    .refine((n) => n > 0 && n <= 100, 'must be greater than 0 and at most 100')
    .refine((n) => decimals(decimalText(n) ?? '0.000') <= 2, 'may carry at most 2 decimals')
    .optional(),
});

const refSchema = z.strictObject({
  /** TpoDocRef: a document type (33, 801 …) or a short code such as "SET". */
  type: z.union([
    z.number().int().min(1).max(999),
    z
      .string()
      .trim()
      .regex(/^[0-9A-Za-z]{1,3}$/, 'must be a document type code of 1 to 3 letters or digits'),
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
const RETENTION_CODES = [15] as const;

const baseSchema = z.strictObject({
  type: z
    .number({ error: 'type is required: one of 33, 34, 39, 41, 46, 52, 56, 61' })
    .int()
    .refine((n) => (DTE_TYPES as readonly number[]).includes(n), `must be one of ${DTE_TYPES.join(', ')}`),
  date: date.optional(),
  receiver: receiverSchema.optional(),
  items: z
    .array(itemSchema, { error: 'items is required: an array of lines' })
    .min(1, 'must have at least one line')
    .max(MAX_BOLETA_LINES, `must have at most ${MAX_BOLETA_LINES} lines`),
  refs: z.array(refSchema).max(MAX_REFS, `must have at most ${MAX_REFS} references`).optional(),
  /** FmaPago ([FMT] IdDoc field 13): 1 contado, 2 crédito, 3 sin costo (entrega gratuita). */
  payment: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: 'must be 1, 2 or 3' }).optional(),
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
    .refine((n) => (RETENTION_CODES as readonly number[]).includes(n), 'only 15 (total VAT retention) is supported')
    .optional(),
  service_indicator: z.number().int().min(1).max(4).optional(),
});

type BaseRequest = z.infer<typeof baseSchema>;

/** Receiver fields the SII makes mandatory outside boletas ([FMT] Receptor fields 57 GiroRecep,
 * 60 DirRecep, 61 CmnaRecep; "obligatorio" for 33, 34, 46, 52, 56). A 61 may leave them out:
 * Timbre copies them from the referenced document (src/issuing/references.ts). */
const REQUIRED_RECEIVER_FIELDS = [
  ['activity', 'GiroRecep'],
  ['address', 'DirRecep'],
  ['comuna', 'CmnaRecep'],
] as const;

/** Non-tax reference types ([FMT] TpoDocRef 801…: orden de compra, nota de pedido, contrato,
 * resolución, HES …, and "SET" of the certification): they carry no CodRef. */
function isTaxDocumentType(type: string): boolean {
  return /^\d+$/.test(type) && Number(type) < 800;
}

/** Document types a note may void or correct ([FMT] CodRef, [MUE] notes): facturas, boletas,
 * facturas de compra, liquidaciones (43), exportación (110/111/112) and the notes themselves.
 * Paper documents (30, 32, 35, 38, 45, 55, 60) and guías (50, 52) are not voided by a DTE note. */
const NOTE_TARGETS = new Set(['33', '34', '39', '41', '43', '46', '56', '61', '110', '111', '112']);

/** The rules that depend on the document type (docs/api.md §7, docs/sii-reference.md §4.4). */
function typeRules(req: BaseRequest, ctx: z.RefinementCtx): void {
  const type = req.type as DteType;
  if (!(DTE_TYPES as readonly number[]).includes(type)) return;
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const boleta = isBoleta(type);
  const note = type === 56 || type === 61;

  if (!boleta) {
    // Guía 52 with IndTraslado 5 (traslado interno): the receiver is the issuer itself ([MUE]),
    // so Timbre fills it in when it is left out.
    const internal = type === 52 && req.dispatch?.transfer_type === 5;
    if (!req.receiver) {
      if (!internal) issue(['receiver'], 'is required for this document type');
    } else {
      if (!req.receiver.name) issue(['receiver', 'name'], 'is required for this document type (RznSocRecep)');
      // SII format rule 2: GiroRecep, DirRecep and CmnaRecep are mandatory on 33/34/46/52/56 ([FMT] 57, 60, 61).
      if (type !== 61) {
        for (const [field, tag] of REQUIRED_RECEIVER_FIELDS) {
          if (!req.receiver[field]) issue(['receiver', field], `is required for type ${type} (${tag})`);
        }
      }
    }
  }
  if (!boleta && req.items.length > MAX_LINES) issue(['items'], `must have at most ${MAX_LINES} lines`);

  const refs = req.refs ?? [];
  if (note && refs.length === 0) issue(['refs'], `is required for type ${type}: the document this note modifies`);
  if (!boleta) {
    refs.forEach((r, i) => {
      if (!r.date) issue(['refs', i, 'date'], 'is required (FchRef)');
    });
  }
  // SII format rule 3: references ([FMT] Referencias fields TpoDocRef, CodRef; [MUE] notes).
  refs.forEach((r, i) => {
    const refType = String(r.type).toUpperCase();
    if (r.code !== undefined && !isTaxDocumentType(refType)) {
      issue(['refs', i, 'code'], `a reference to a non-tax document (${refType}) carries no CodRef`);
    }
    if (r.code !== undefined && !note) issue(['refs', i, 'code'], 'CodRef applies only to notes (56, 61)');
    if (r.code === 2 && type !== 61) {
      issue(['refs', i, 'code'], 'CodRef 2 (text correction) exists only on a credit note (61)');
    }
    if (note && r.code === 1 && type === 56 && refType !== '61') {
      issue(['refs', i, 'code'], 'a debit note voids (CodRef 1) only a credit note (61)');
    }
    if (type === 61 && refType === '61' && referenceCode(type, r.code, refType) === 1) {
      issue(['refs', i, 'code'], 'a credit note is voided by a debit note (56), not by another credit note');
    }
    if (note && isTaxDocumentType(refType) && referenceCode(type, r.code, refType) !== undefined) {
      if (!NOTE_TARGETS.has(refType)) {
        issue(['refs', i, 'type'], `a note does not modify a document of type ${refType} (paper document or guía)`);
      }
    }
  });
  const taxRefs = refs.filter((r) => isTaxDocumentType(String(r.type)));
  if (note && taxRefs.length === 0 && refs.length > 0) {
    issue(['refs'], 'a note references at least one tax document (the one it modifies)');
  }
  const codes = taxRefs.map((r) => referenceCode(type, r.code, String(r.type)));
  if (note && taxRefs.length > 1) {
    issue(['refs'], 'a note that voids or corrects references exactly one tax document (CodRef 1, 2 or 3)');
  }
  const textCorrection = note && codes.includes(2);

  req.items.forEach((item, i) => {
    const unpriced = type === 52 && req.dispatch?.transfer_type !== 1;
    if (item.price === undefined && !unpriced && !textCorrection) {
      issue(
        ['items', i, 'price'],
        type === 52 ? 'is required on a guía that is a sale (IndTraslado 1)' : 'is required',
      );
    }
    if (textCorrection && item.price !== undefined && item.price !== 0) {
      issue(['items', i, 'price'], 'a text correction (code 2) carries no amounts: omit price');
    }
  });
  if ((type === 33 || type === 39) && req.items.length > 0 && req.items.every((it) => it.exempt)) {
    issue(['items'], `every line is exempt: issue type ${type === 33 ? 34 : 41} instead`);
  }

  if (type === 52 && !req.dispatch) issue(['dispatch'], 'is required for a guía de despacho: { transfer_type: 1..9 }');
  if (type !== 52 && req.dispatch) issue(['dispatch'], 'applies only to type 52');
  if (type === 52 && req.dispatch) {
    const d = req.dispatch;
    // SII format rule 6: exports need Aduana/Transporte and foreign-currency fields Timbre does not build yet
    // ([FMT] Encabezado 38, 84, 86; Detalle 21, 23, 28).
    if (d.transfer_type === 8 || d.transfer_type === 9) {
      issue(
        ['dispatch', 'transfer_type'],
        'export transfers (8, 9) need customs and foreign-currency fields that Timbre does not support yet',
      );
    }
    // DirDest/CmnaDest when the issuer delivers (TipoDespacho 2 or 3, [FMT] Transporte).
    if (d.dispatch_type === 2 || d.dispatch_type === 3) {
      if (!d.transport?.address)
        issue(['dispatch', 'transport', 'address'], 'is required when the issuer delivers (DirDest)');
      if (!d.transport?.comuna)
        issue(['dispatch', 'transport', 'comuna'], 'is required when the issuer delivers (CmnaDest)');
    }
  }
  if (type !== 46 && req.retention_code !== undefined) issue(['retention_code'], 'applies only to type 46');
  if (boleta && req.payment !== undefined) {
    issue(['payment'], 'boletas have no FmaPago; give payment_method (MedioPago) instead');
  }
  if (!boleta) {
    if (req.service_indicator !== undefined) issue(['service_indicator'], 'applies only to boletas (39, 41)');
    if (req.payment_method !== undefined) issue(['payment_method'], 'applies only to boletas (39, 41)');
    if (req.service_period !== undefined) issue(['service_period'], 'applies only to boletas (39, 41)');
    if (req.due_date !== undefined) issue(['due_date'], 'applies only to boletas (39, 41)');
  } else {
    // SII format rule 7: periodic services carry their period; domiciliary ones (2) their due date and the
    // address where the service is given ([FMTB] fields 7, 8, 9, 24).
    const si = req.service_indicator ?? 3;
    if ((si === 1 || si === 2) && !req.service_period) {
      issue(['service_period'], `is required for periodic services (service_indicator ${si}): { from, to }`);
    }
    if (si === 2 && !req.due_date) issue(['due_date'], 'is required for periodic domiciliary services (FchVenc)');
    if ((si === 1 || si === 2) && !req.receiver?.address) {
      issue(['receiver', 'address'], `is required for periodic services (service_indicator ${si}, DirRecep)`);
    }
    if (req.service_period && req.service_period.from > req.service_period.to) {
      issue(['service_period', 'to'], 'must not be before service_period.from');
    }
  }
}

export const issueRequestSchema = baseSchema.superRefine(typeRules);

export type IssueRequest = z.infer<typeof issueRequestSchema>;
export type IssueItem = IssueRequest['items'][number];
