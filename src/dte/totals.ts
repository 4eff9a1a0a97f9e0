/**
 * From an accepted issue request to the computed document: line amounts and the document
 * totals, in integer arithmetic (BigInt; quantities and prices scaled by 10^6) with half-up
 * rounding to whole pesos. Every rule cites the SII source (docs/sii-reference.md §4.2–§4.4, [FMT] =
 * "Formato Documentos Tributarios Electrónicos" v2.2).
 *
 * Why integers: binary floating point and banker's rounding give $1 differences that the SII
 * rejects ("El Monto Total No Cuadra", docs/sii-reference.md §4.3): 1 350 × 19 % = 256.5 must be 257.
 */
import { AppError } from '../errors.ts';
import type { IssueItem, IssueRequest } from './issue-request.ts';
import { decimalText } from './issue-request.ts';
import {
  type DocumentLine,
  type DocumentReference,
  type DocumentTotals,
  type DteDocument,
  type DteType,
  type IssuerInfo,
  type ReceiverInfo,
  isBoleta,
} from './model.ts';
import { GENERIC_BOLETA_RUT } from './rut.ts';

const SCALE = 1_000_000n; // 6 decimals (Dec12_6Type)

/** A decimal text with ≤ 6 decimals as an integer of millionths. */
export function toMicros(text: string): bigint {
  const [int = '0', frac = ''] = text.split('.');
  return BigInt(int) * SCALE + BigInt(frac.padEnd(6, '0').slice(0, 6));
}

/** Half-up division of non-negative integers: 0.5 goes up ([FMT]; docs/sii-reference.md §4.3). */
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** IVA = round_half_up(neto × rate / 100) — [FMT] field IVA; docs/sii-reference.md §4.3. */
export function vatOf(net: number, ratePercent: number): number {
  return Number(divRoundHalfUp(BigInt(net) * BigInt(ratePercent), 100n));
}

/**
 * Gross (VAT included) to net for boletas and MntBruto documents: neto = round(afecto / 1.rate),
 * IVA = afecto − neto, by subtraction and never recomputed from the net, so neto + IVA always
 * equals the gross the customer paid (docs/sii-reference.md §4.3: 680 → 571 + 109, not 571 + 108).
 */
export function splitGross(gross: number, ratePercent: number): { net: number; vat: number } {
  const net = Number(divRoundHalfUp(BigInt(gross) * 100n, BigInt(100 + ratePercent)));
  return { net, vat: gross - net };
}

function tooLarge(path: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path}: the amount is too large`, {
    details: [{ path, message: 'the amount is too large' }],
  });
}

const safe = (v: bigint, path: string): number => {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw tooLarge(path);
  return Number(v);
};

/**
 * MontoItem = PrcItem × QtyItem − DescuentoMonto ([FMT] field 38), each product rounded half-up
 * to whole pesos; DescuentoMonto = round_half_up(PrcItem × QtyItem × DescuentoPct / 100).
 */
export function lineAmounts(qty: string, price: string | undefined, discountPct: number | undefined, path: string) {
  if (price === undefined) return { amount: 0, discountAmount: undefined };
  const exact = toMicros(qty) * toMicros(price); // scaled by 10^12
  const gross = divRoundHalfUp(exact, SCALE * SCALE);
  let discount = 0n;
  if (discountPct !== undefined) {
    const pct = toMicros(decimalText(discountPct) ?? '0'); // scaled by 10^6
    discount = divRoundHalfUp(exact * pct, SCALE * SCALE * SCALE * 100n);
  }
  return {
    amount: safe(gross - discount, path),
    discountAmount: discountPct !== undefined ? safe(discount, path) : undefined,
  };
}

/** Types whose lines are all exempt by definition: 34 (factura exenta) and 41 (boleta exenta). */
const ALL_EXEMPT: readonly DteType[] = [34, 41];

function buildLine(item: IssueItem, index: number, type: DteType, textCorrection: boolean): DocumentLine {
  const qty = decimalText(item.qty) ?? '1';
  const price = textCorrection || item.price === undefined || item.price === 0 ? undefined : decimalText(item.price)!;
  const { amount, discountAmount } = lineAmounts(qty, price, price ? item.discount_pct : undefined, `items[${index}]`);
  return {
    number: index + 1,
    name: item.name,
    ...(item.description !== undefined && { description: item.description }),
    ...(item.code !== undefined && { code: item.code }),
    ...(item.unit !== undefined && { unit: item.unit }),
    qty,
    ...(price !== undefined && { price }),
    exempt: ALL_EXEMPT.includes(type) || item.exempt === true,
    ...(price !== undefined && item.discount_pct !== undefined && { discountPct: decimalText(item.discount_pct)! }),
    ...(discountAmount !== undefined && discountAmount > 0 && { discountAmount }),
    amount,
  };
}

/** The CodRef of a reference: given, or 1 (voids) on a 61 and 3 (corrects amounts) on a 56. */
export function referenceCode(type: DteType, code: 1 | 2 | 3 | undefined): 1 | 2 | 3 | undefined {
  return code ?? (type === 61 ? 1 : type === 56 ? 3 : undefined);
}

export interface ComputeContext {
  issuer: IssuerInfo;
  folio: number;
  /** FchEmis, YYYY-MM-DD. */
  date: string;
}

/** The whole document model (lines, references, totals) from a validated request. */
export function computeDocument(req: IssueRequest, ctx: ComputeContext): DteDocument {
  const type = req.type as DteType;
  const rate = ctx.issuer.vatRate;
  const refs: DocumentReference[] = (req.refs ?? []).map((r, i) => {
    const code = referenceCode(type, r.code);
    return {
      number: i + 1,
      type: String(r.type).toUpperCase(),
      folio: String(r.folio),
      date: r.date ?? ctx.date,
      ...(code !== undefined && { code }),
      ...(r.reason !== undefined && { reason: r.reason }),
    };
  });
  const textCorrection = (type === 56 || type === 61) && refs.some((r) => r.code === 2);
  const lines = req.items.map((item, i) => buildLine(item, i, type, textCorrection));

  const sum = (pred: (l: DocumentLine) => boolean) =>
    safe(
      lines.filter(pred).reduce((s, l) => s + BigInt(l.amount), 0n),
      'items',
    );
  const taxable = sum((l) => !l.exempt);
  const exempt = sum((l) => l.exempt);

  let totals: DocumentTotals;
  if (type === 39) {
    // Boleta: prices include VAT; MntNeto and IVA are back-computed from the gross ([FMTB]).
    const { net, vat } = splitGross(taxable, rate);
    totals = { net, exempt, vat, vatRate: rate, total: safe(BigInt(taxable) + BigInt(exempt), 'items') };
  } else if (ALL_EXEMPT.includes(type)) {
    // 34 / 41: MntExe = MntTotal, no MntNeto, no IVA ([FMT] note 10, docs/sii-reference.md §4.4).
    totals = { net: 0, exempt, vat: 0, vatRate: rate, total: exempt };
  } else {
    // 33, 46, 52, 56, 61: prices are net; IVA = round(MntNeto × TasaIVA) ([FMT] field 124).
    const vat = vatOf(taxable, rate);
    totals = {
      net: taxable,
      exempt,
      vat,
      vatRate: rate,
      total: safe(BigInt(taxable) + BigInt(exempt) + BigInt(vat), 'items'),
    };
    if (type === 46) {
      // Factura de compra with total VAT retention (ImptoReten code 15): the buyer retains the
      // whole IVA, so MntTotal = MntNeto + MntExe (docs/sii-reference.md §4.4).
      const code = req.retention_code ?? 15;
      totals = { ...totals, total: totals.total - vat, retention: { code, rate, amount: vat } };
    }
  }

  // Boletas may omit the receiver: the SII's generic customer 66666666-6 ([FMTB]).
  const receiver: ReceiverInfo = req.receiver ? { ...req.receiver } : { rut: GENERIC_BOLETA_RUT };
  return {
    type,
    folio: ctx.folio,
    date: ctx.date,
    issuer: ctx.issuer,
    receiver,
    lines,
    refs,
    totals,
    ...(req.dispatch && {
      dispatch: {
        transferType: req.dispatch.transfer_type,
        ...(req.dispatch.dispatch_type !== undefined && { dispatchType: req.dispatch.dispatch_type }),
      },
    }),
    ...(isBoleta(type) && { serviceIndicator: req.service_indicator ?? 3 }),
  };
}
