/**
 * Totals in integer arithmetic (src/dte/totals.ts) against the SII rules: docs/sii-reference.md §4.3
 * (half-up rounding, gross-to-net for boletas), §4.4 (per-type differences) and docs/design.md §5.
 * Every expected figure is worked out by hand in the test, never by the code under test.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import type { DteDocument, IssuerInfo } from '../../src/dte/model.ts';
import { computeDocument, divRoundHalfUp, lineAmounts, splitGross, toMicros, vatOf } from '../../src/dte/totals.ts';
import { ISSUER } from '../helpers/dte-pipeline.ts';
import { RECEIVER, requestFor } from '../helpers/requests.ts';

const { rut, name, activity, address, comuna } = RECEIVER;
const receiver = { rut, name, activity, address, comuna };

function compute(request: unknown, issuer: IssuerInfo = ISSUER): DteDocument {
  return computeDocument(issueRequestSchema.parse(request), { issuer, folio: 1, date: '2026-03-05' });
}

const boleta = (...items: { price: number; exempt?: boolean }[]) => ({
  type: 39,
  items: items.map((it, i) => ({ name: `Producto ${i + 1}`, qty: 1, ...it })),
});

describe('IVA is rounded half-up in integers (docs/sii-reference.md §4.3)', () => {
  it('neto 1 350 → IVA 257 (1 350 × 19 % = 256.5; banker’s rounding would give 256)', () => {
    expect(vatOf(1350, 19)).toBe(257);
    const doc = compute({ type: 33, receiver, items: [{ name: 'Caja', qty: 1, price: 1350 }] });
    expect(doc.totals).toEqual({ net: 1350, exempt: 0, vat: 257, vatRate: 19, total: 1607 });
  });

  it('rounds below .5 down and at .5 up', () => {
    expect(vatOf(1349, 19)).toBe(256); // 256.31
    expect(vatOf(1005, 10)).toBe(101); // 100.5
    expect(vatOf(1004, 10)).toBe(100); // 100.4
    expect(divRoundHalfUp(5n, 2n)).toBe(3n);
    expect(divRoundHalfUp(7n, 2n)).toBe(4n);
    expect(divRoundHalfUp(4n, 3n)).toBe(1n);
  });
});

describe('boletas: gross prices, neto back-computed and IVA by subtraction (docs/sii-reference.md §4.3)', () => {
  it('gross 680 → neto 571 + IVA 109 (not 571 + 108 = 679)', () => {
    expect(splitGross(680, 19)).toEqual({ net: 571, vat: 109 });
    expect(compute(boleta({ price: 680 })).totals).toEqual({ net: 571, exempt: 0, vat: 109, vatRate: 19, total: 680 });
  });

  it.each([
    [29800, 0, 25042, 4758],
    [2040, 0, 1714, 326],
    [4100, 0, 3445, 655],
    [3500, 0, 2941, 559],
    [14720 - 2000, 2000, 10689, 2031],
  ])('the SII-accepted boleta with afecto %i and exento %i → neto %i + IVA %i', (afecto, exento, net, vat) => {
    const items = exento ? [{ price: afecto }, { price: exento, exempt: true }] : [{ price: afecto }];
    const { totals } = compute(boleta(...items));
    expect(totals).toEqual({ net, exempt: exento, vat, vatRate: 19, total: afecto + exento });
    expect(totals.net + totals.vat).toBe(afecto);
  });
});

describe('totals per document type (docs/sii-reference.md §4.4, docs/design.md §5)', () => {
  it('33 with taxable and exempt lines: IVA only on the taxable ones', () => {
    // 10 × 1 350 + 2 × 8 990 = 31 480 neto; 31 480 × 19 % = 5 981.2 → 5 981; flete 5 000 exento.
    const doc = compute(requestFor(33));
    expect(doc.lines.map((l) => [l.amount, l.exempt])).toEqual([
      [13500, false],
      [17980, false],
      [5000, true],
    ]);
    expect(doc.totals).toEqual({ net: 31480, exempt: 5000, vat: 5981, vatRate: 19, total: 42461 });
  });

  it('34 factura exenta: every line exempt, no IVA', () => {
    // 150 000 + 3 × 45 000 = 285 000, without the lines saying "exempt".
    const doc = compute(requestFor(34));
    expect(doc.lines.some((l) => l.exempt)).toBe(false); // rule 10: no IndExe on 34/41
    expect(doc.totals).toEqual({ net: 0, exempt: 285000, vat: 0, vatRate: 19, total: 285000 });
  });

  it('41 boleta exenta: every line exempt, no IVA', () => {
    const doc = compute(requestFor(41));
    expect(doc.lines.some((l) => l.exempt)).toBe(false); // rule 10: no IndExe on 34/41
    expect(doc.totals).toEqual({ net: 0, exempt: 6000, vat: 0, vatRate: 19, total: 6000 });
  });

  it('46 factura de compra with total VAT retention (code 15): MntTotal = neto + exento, retention = IVA', () => {
    // 120 × 3 500 = 420 000 neto; IVA 79 800 retained by the buyer; 10 000 exento.
    const request = requestFor(46) as { items: unknown[] };
    const doc = compute({
      ...request,
      items: [...request.items, { name: 'Flete', qty: 1, price: 10000, exempt: true }],
    });
    expect(doc.totals).toEqual({
      net: 420000,
      exempt: 10000,
      vat: 79800,
      vatRate: 19,
      total: 430000,
      retention: { code: 15, rate: 19, amount: 79800 },
    });
  });

  it('52 guía without prices (a transfer that is not a sale): total 0, lines without price', () => {
    const doc = compute(requestFor(52));
    expect(doc.lines[0]).toMatchObject({ qty: '4', amount: 0 });
    expect(doc.lines[0]!.price).toBeUndefined();
    expect(doc.totals).toEqual({ net: 0, exempt: 0, vat: 0, vatRate: 19, total: 0 });
    expect(doc.dispatch).toEqual({ transferType: 6 });
  });

  it('61 with CodRef 2 (text correction): every amount is 0', () => {
    const doc = compute({
      type: 61,
      receiver,
      refs: [{ type: 33, folio: 120, date: '2026-03-01', code: 2, reason: 'Corrige giro del receptor' }],
      items: [{ name: 'DONDE DICE Comercio DEBE DECIR Ferretería', qty: 1 }],
    });
    expect(doc.refs[0]).toMatchObject({ type: '33', folio: '120', code: 2 });
    expect(doc.lines[0]!.amount).toBe(0);
    expect(doc.totals).toEqual({ net: 0, exempt: 0, vat: 0, vatRate: 19, total: 0 });
  });

  it('61 voiding a document (default CodRef 1) carries its amounts', () => {
    const doc = compute({
      type: 61,
      receiver,
      refs: [{ type: 33, folio: 120, date: '2026-03-01' }],
      items: [{ name: 'Anula factura 120', qty: 1, price: 1350 }],
    });
    expect(doc.refs[0]!.code).toBe(1);
    expect(doc.totals).toMatchObject({ net: 1350, vat: 257, total: 1607 });
  });

  it('56 defaults its references to CodRef 3 (corrects amounts)', () => {
    const doc = compute({
      type: 56,
      receiver,
      refs: [{ type: 33, folio: 120, date: '2026-03-01' }],
      items: [{ name: 'Intereses por mora', qty: 1, price: 2000 }],
    });
    expect(doc.refs[0]!.code).toBe(3);
    expect(doc.totals).toMatchObject({ net: 2000, vat: 380, total: 2380 });
  });
});

describe('a non-default issuer VAT rate is used everywhere', () => {
  const issuer = { ...ISSUER, vatRate: 10 };

  it('factura: 1 350 × 10 % = 135', () => {
    const doc = compute({ type: 33, receiver, items: [{ name: 'Caja', qty: 1, price: 1350 }] }, issuer);
    expect(doc.totals).toEqual({ net: 1350, exempt: 0, vat: 135, vatRate: 10, total: 1485 });
  });

  it('boleta: gross 1 100 → 1 000 + 100', () => {
    expect(compute(boleta({ price: 1100 }), issuer).totals).toEqual({
      net: 1000,
      exempt: 0,
      vat: 100,
      vatRate: 10,
      total: 1100,
    });
  });

  it('factura de compra: the retention carries the issuer rate', () => {
    const doc = compute(requestFor(46), issuer);
    expect(doc.totals).toMatchObject({ vat: 42000, total: 420000, retention: { code: 15, rate: 10, amount: 42000 } });
  });
});

describe('line amounts: decimal quantities, prices and discounts, half-up (docs/design.md §5, [FMT] field 38)', () => {
  it.each([
    // qty, price, discount %, MontoItem, DescuentoMonto
    ['1.5', '2400', undefined, 3600, undefined],
    ['1.5', '999', undefined, 1499, undefined], // 1 498.5 → 1 499
    ['100', '2.675', undefined, 268, undefined], // 267.5 exactly; 100 * 2.675 in binary floats is 267.4999…
    ['0.333333', '3', undefined, 1, undefined], // 0.999999
    ['2', '0.25', undefined, 1, undefined], // 0.5
    ['3', '12500', 10, 33750, 3750],
    ['1', '1999', 12.5, 1749, 250], // discount 249.875 → 250
    ['1', '1001', 50, 500, 501], // discount 500.5 → 501
    ['2', '1000', 100, 0, 2000],
  ])('%s × %s − %s %% → %i (discount %s)', (qty, price, pct, amount, discount) => {
    expect(lineAmounts(qty, price, pct, 'items[0]')).toEqual({ amount, discountAmount: discount });
  });

  it('a line without price is worth 0', () => {
    expect(lineAmounts('4', undefined, undefined, 'items[0]')).toEqual({ amount: 0, discountAmount: undefined });
  });

  it('decimal text is read exactly, in millionths', () => {
    expect(toMicros('1.5')).toBe(1_500_000n);
    expect(toMicros('0.000001')).toBe(1n);
    expect(toMicros('2400')).toBe(2_400_000_000n);
  });

  it('the document keeps the caller’s decimal text and the rounded amounts', () => {
    const doc = compute({
      type: 33,
      receiver,
      items: [
        { name: 'Cable', qty: 1.5, price: 999, discount_pct: 12.5 },
        { name: 'Pintura', qty: 100, price: 2.675 },
      ],
    });
    // 1 498.5 − 187.3125 → 1 499 − 187 = 1 312; 267.5 → 268.
    expect(doc.lines[0]).toMatchObject({ qty: '1.5', price: '999', discountPct: '12.5', discountAmount: 187 });
    expect(doc.lines[0]!.amount).toBe(1312);
    expect(doc.lines[1]).toMatchObject({ qty: '100', price: '2.675', amount: 268 });
    expect(doc.totals).toMatchObject({ net: 1580, vat: 300, total: 1880 }); // 1 580 × 19 % = 300.2
  });
});

describe('amounts beyond exact integer range are refused, not rounded', () => {
  const expectTooLarge = (fn: () => unknown, path: string) => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe('VALIDATION_FAILED');
      expect((e as AppError).details).toEqual([{ path, rule: 'amount.too_large', message: 'the amount is too large' }]);
      return;
    }
    expect.unreachable('no error thrown');
  };

  it('a single line too large', () => {
    expectTooLarge(
      () => compute({ type: 33, receiver, items: [{ name: 'X', qty: 999_999_999_999, price: 999_999_999_999 }] }),
      'items[0]',
    );
  });

  it('lines that fit alone but not together', () => {
    const item = { name: 'X', qty: 5000, price: 999_999_999_999 }; // 4.999… × 10^15 each
    expectTooLarge(() => compute({ type: 33, receiver, items: [item, item] }), 'items');
  });

  it('a neto that fits but whose total with IVA does not', () => {
    // 8 000 × 999 999 999 999 ≈ 8.0 × 10^15 < 2^53, + 19 % ≈ 9.5 × 10^15 > 2^53.
    expectTooLarge(
      () => compute({ type: 33, receiver, items: [{ name: 'X', qty: 8000, price: 999_999_999_999 }] }),
      'items',
    );
    // The same line in a boleta already includes IVA, so it fits.
    expect(compute({ type: 39, items: [{ name: 'X', qty: 8000, price: 999_999_999_999 }] }).totals.total).toBe(
      7_999_999_999_992_000,
    );
  });
});
