/**
 * The body of `POST /api/{rut}/emitir` (contract §2 "Issue request", DESIGN §5 extras), as a
 * zod schema: the one place where a request is judged. Every rule names the field it is about
 * so a 400 carries `details[].path`. Lengths are the SII's (DTE_v10.xsd / EnvioBOLETA_v11.xsd,
 * REFERENCE §4.1–§4.2): longer text is refused, never silently cut.
 *
 * Decisions where the contract is silent (README "Issuing"):
 * - Unknown fields are refused (400) at every level, so a misspelt `discount_pct` is not lost.
 * - Text is trimmed; control characters and the other characters of `refusedCharacter`
 *   (src/dte/xml-text.ts) are refused (a line break or tab is allowed only in `items[].description`).
 * - Quantities and prices are JSON numbers with up to 6 decimals (Dec12_6Type); prices may be
 *   0 (a free line) but not negative.
 */
import { z } from 'zod';
import { isRealDate } from '../admin/validation.ts';
import { DTE_TYPES, type DteType, isBoleta } from './model.ts';
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
 * The SII's upload gateway refuses XML lines longer than ~4 090 characters (REFERENCE §7.3).
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
export const FIRST_DATE = '2000-01-01';
export const LAST_DATE = '2050-12-31';
const date = z
  .string()
  .refine(isRealDate, 'must be a real date written YYYY-MM-DD')
  .refine((s) => s >= FIRST_DATE && s <= LAST_DATE, `must be from ${FIRST_DATE} to ${LAST_DATE} (SII FechaType)`);

export const receiverSchema = z.strictObject({
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

export const itemSchema = z.strictObject({
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

export const refSchema = z.strictObject({
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
export const MAX_REFS = 40;
/** Retention codes Timbre computes for type 46: 15 = total VAT retention (REFERENCE §4.4). */
export const RETENTION_CODES = [15] as const;

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
  dispatch: z
    .strictObject({
      transfer_type: z.number().int().min(1).max(9),
      dispatch_type: z.number().int().min(1).max(3).optional(),
    })
    .optional(),
  retention_code: z
    .number()
    .int()
    .refine((n) => (RETENTION_CODES as readonly number[]).includes(n), 'only 15 (total VAT retention) is supported')
    .optional(),
  service_indicator: z.number().int().min(1).max(4).optional(),
});

type BaseRequest = z.infer<typeof baseSchema>;

/** The rules that depend on the document type (contract §7, REFERENCE §4.4). */
function typeRules(req: BaseRequest, ctx: z.RefinementCtx): void {
  const type = req.type as DteType;
  if (!(DTE_TYPES as readonly number[]).includes(type)) return;
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const boleta = isBoleta(type);
  const note = type === 56 || type === 61;

  if (!boleta) {
    if (!req.receiver) issue(['receiver'], 'is required for this document type');
    else if (!req.receiver.name) issue(['receiver', 'name'], 'is required for this document type (RznSocRecep)');
  }
  if (!boleta && req.items.length > MAX_LINES) issue(['items'], `must have at most ${MAX_LINES} lines`);
  if (type === 61 && req.receiver) {
    const extra = Object.keys(req.receiver).filter((k) => k !== 'rut' && k !== 'name');
    if (extra.length)
      issue(['receiver'], `a credit note carries only receiver.rut and receiver.name (not ${extra.join(', ')})`);
  }

  const refs = req.refs ?? [];
  if (note && refs.length === 0) issue(['refs'], `is required for type ${type}: the document this note modifies`);
  if (!boleta) {
    refs.forEach((r, i) => {
      if (!r.date) issue(['refs', i, 'date'], 'is required (FchRef)');
    });
  }
  const codes = refs.map((r) => r.code ?? (type === 61 ? 1 : type === 56 ? 3 : undefined));
  if (type === 61 && refs.length > 1 && codes.some((c) => c === 1 || c === 2)) {
    issue(['refs'], 'a credit note that voids (code 1) or corrects text (code 2) references exactly one document');
  }
  const textCorrection = note && codes.includes(2);

  req.items.forEach((item, i) => {
    if (item.price === undefined && type !== 52 && !textCorrection) issue(['items', i, 'price'], 'is required');
    if (textCorrection && item.price !== undefined && item.price !== 0) {
      issue(['items', i, 'price'], 'a text correction (code 2) carries no amounts: omit price');
    }
  });
  if ((type === 33 || type === 39) && req.items.length > 0 && req.items.every((it) => it.exempt)) {
    issue(['items'], `every line is exempt: issue type ${type === 33 ? 34 : 41} instead`);
  }

  if (type === 52 && !req.dispatch) issue(['dispatch'], 'is required for a guía de despacho: { transfer_type: 1..9 }');
  if (type !== 52 && req.dispatch) issue(['dispatch'], 'applies only to type 52');
  if (type !== 46 && req.retention_code !== undefined) issue(['retention_code'], 'applies only to type 46');
  if (!boleta && req.service_indicator !== undefined) issue(['service_indicator'], 'applies only to boletas (39, 41)');
}

export const issueRequestSchema = baseSchema.superRefine(typeRules);

export type IssueRequest = z.infer<typeof issueRequestSchema>;
export type IssueItem = IssueRequest['items'][number];
export type IssueRef = NonNullable<IssueRequest['refs']>[number];
