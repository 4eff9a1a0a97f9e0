/**
 * The issue request schema (src/dte/issue-request.ts): every refusal must name the field it is
 * about, because the 400 response turns zod issue paths into `details[].path`. Each case starts
 * from a request that is valid and breaks exactly one thing, so the issue list is exact.
 */
import { describe, expect, it } from 'vitest';
import { issueRequestSchema, MAX_BOLETA_LINES, MAX_LINES } from '../../src/dte/issue-request.ts';
import { RECEIVER, factura, requestFor } from '../helpers/requests.ts';

/** `path → messages` of the issues of a refused request; throws if it was accepted. */
function issues(request: unknown): Record<string, string[]> {
  const result = issueRequestSchema.safeParse(request);
  if (result.success) throw new Error('the request was accepted');
  const out: Record<string, string[]> = {};
  for (const i of result.error.issues) {
    const key = i.path.join('.');
    out[key] = [...(out[key] ?? []), i.message];
  }
  return out;
}

const paths = (request: unknown) => Object.keys(issues(request));
const accepts = (request: unknown) => issueRequestSchema.safeParse(request).success;

const item = (over: Record<string, unknown> = {}) => ({ name: 'Martillo', qty: 1, price: 8990, ...over });
const withItem = (over: Record<string, unknown>) => factura({ items: [item(over)] });
const lines = (n: number) => Array.from({ length: n }, (_, i) => item({ name: `Línea ${i + 1}` }));
const ref = { type: 33, folio: 120, date: '2026-03-01', reason: 'Anula factura' };
const creditNote = (over: Record<string, unknown> = {}) => ({
  type: 61,
  receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
  refs: [ref],
  items: [item()],
  ...over,
});

describe('valid requests', () => {
  it.each([33, 34, 39, 41, 46, 52])('the type %i fixture is accepted', (type) => {
    expect(issueRequestSchema.safeParse(requestFor(type)).error?.issues).toBeUndefined();
  });

  it('a credit note and a debit note with references are accepted', () => {
    expect(accepts(creditNote())).toBe(true);
    expect(accepts({ ...creditNote(), type: 56, receiver: RECEIVER })).toBe(true);
  });

  it('normalises what it accepts: RUT, trimmed text', () => {
    const req = issueRequestSchema.parse(
      factura({ receiver: { ...RECEIVER, rut: '76.354.771-k', name: '  Ñandú Ltda.  ' } }),
    );
    expect(req.receiver).toMatchObject({ rut: '76354771-K', name: 'Ñandú Ltda.' });
  });
});

describe('type and items', () => {
  it.each([
    ['an unknown type', { type: 35 }],
    ['a missing type', { type: undefined }],
    ['a type as text', { type: '33' }],
    ['a fractional type', { type: 33.5 }],
  ])('%s is refused at type', (_, over) => {
    expect(paths(factura(over))).toEqual(['type']);
  });

  it('missing items are refused at items', () => {
    expect(paths(factura({ items: undefined }))).toEqual(['items']);
  });

  it('an empty items array is refused at items, with one message only', () => {
    expect(issues(factura({ items: [] }))).toEqual({ items: ['must have at least one line'] });
  });

  it(`facturas take at most ${MAX_LINES} lines (Detalle 1..60)`, () => {
    expect(accepts(factura({ items: lines(MAX_LINES) }))).toBe(true);
    expect(issues(factura({ items: lines(MAX_LINES + 1) }))).toEqual({ items: ['must have at most 60 lines'] });
  });

  it(`boletas take up to ${MAX_BOLETA_LINES} lines (EnvioBOLETA NroLinDet 1..1000)`, () => {
    expect(accepts({ type: 39, items: lines(MAX_BOLETA_LINES) })).toBe(true);
    expect(paths({ type: 39, items: lines(MAX_BOLETA_LINES + 1) })).toEqual(['items']);
  });

  it('a 33 or 39 whose every line is exempt must be a 34 or 41', () => {
    expect(issues(withItem({ exempt: true })).items?.[0]).toMatch(/issue type 34/);
    expect(issues({ type: 39, items: [item({ exempt: true })] }).items?.[0]).toMatch(/issue type 41/);
  });
});

describe('receiver', () => {
  it('a RUT with a wrong check digit is refused at receiver.rut', () => {
    expect(paths(factura({ receiver: { ...RECEIVER, rut: '76354771-1' } }))).toEqual(['receiver.rut']);
    expect(paths(factura({ receiver: { ...RECEIVER, rut: '76354771' } }))).toEqual(['receiver.rut']);
  });

  it('facturas need a receiver with a name; boletas do not', () => {
    expect(paths(factura({ receiver: undefined }))).toEqual(['receiver']);
    const { name: _, ...noName } = RECEIVER;
    expect(paths(factura({ receiver: noName }))).toEqual(['receiver.name']);
    expect(accepts({ type: 39, items: [item()] })).toBe(true);
  });

  it('rule 2: giro, address and comuna are required on 33/34/46/52/56 (FMT 57, 60, 61), 400 naming them', () => {
    const bare = { rut: RECEIVER.rut, name: RECEIVER.name };
    for (const type of [33, 34, 46, 52, 56]) {
      const base = type === 56 ? creditNote({ type }) : (requestFor(type) as Record<string, unknown>);
      expect(issues({ ...base, receiver: bare })).toEqual({
        'receiver.activity': [`is required for type ${type} (GiroRecep)`],
        'receiver.address': [`is required for type ${type} (DirRecep)`],
        'receiver.comuna': [`is required for type ${type} (CmnaRecep)`],
      });
    }
  });

  it('rule 2: a credit note may carry only rut and name, and accepts the rest when given', () => {
    expect(accepts(creditNote())).toBe(true);
    expect(accepts(creditNote({ receiver: { ...RECEIVER } }))).toBe(true);
  });

  it('an e-mail must look like one', () => {
    expect(paths(factura({ receiver: { ...RECEIVER, email: 'facturas.nandu.cl' } }))).toEqual(['receiver.email']);
  });
});

describe('quantities and prices (Dec12_6Type)', () => {
  it.each([
    ['qty 0', { qty: 0 }, 'items.0.qty'],
    ['a negative qty', { qty: -1 }, 'items.0.qty'],
    ['a negative price', { price: -1 }, 'items.0.price'],
    ['7 decimals in qty', { qty: 1.1234567 }, 'items.0.qty'],
    ['7 decimals in price (written 1e-7 by JSON)', { price: 0.0000001 }, 'items.0.price'],
    ['a qty of 10^12', { qty: 1e12 }, 'items.0.qty'],
    ['a qty as text', { qty: '1' }, 'items.0.qty'],
    ['a discount above 100 %', { discount_pct: 101 }, 'items.0.discount_pct'],
    ['a discount with 3 decimals', { discount_pct: 12.345 }, 'items.0.discount_pct'],
  ])('%s is refused', (_, over, path) => {
    expect(paths(withItem(over))).toEqual([path]);
  });

  it('6 decimals, a free line (price 0) and a 2-decimal discount are accepted', () => {
    expect(accepts(withItem({ qty: 1.123456, price: 0.000001 }))).toBe(true);
    expect(accepts(factura({ items: [item(), item({ price: 0 })] }))).toBe(true);
    expect(accepts(withItem({ discount_pct: 12.25 }))).toBe(true);
  });

  it('a price is required except on guías and text corrections', () => {
    expect(paths(withItem({ price: undefined }))).toEqual(['items.0.price']);
    expect(accepts({ ...(requestFor(52) as object), items: [{ name: 'Estantería', qty: 4 }] })).toBe(true);
  });
});

describe('dates', () => {
  it.each(['2023-02-29', '2026-13-01', '2026-04-31', '05-03-2026', '2026-3-5'])('%s is refused at date', (date) => {
    expect(paths(factura({ date }))).toEqual(['date']);
  });

  it('a leap day is a real date', () => {
    expect(accepts(factura({ date: '2024-02-29' }))).toBe(true);
  });

  it.each(['1999-12-31', '2051-01-01', '1000-01-01', '9999-12-31'])(
    '%s, outside the SII FechaType, is refused',
    (date) => {
      expect(issues(factura({ date }))).toEqual({ date: ['must be from 2000-01-01 to 2050-12-31 (SII FechaType)'] });
      expect(paths(creditNote({ refs: [{ ...ref, date }] }))).toEqual(['refs.0.date']);
    },
  );

  it('the first and last days of FechaType are accepted', () => {
    expect(accepts(factura({ date: '2000-01-01' }))).toBe(true);
    expect(accepts(factura({ date: '2050-12-31' }))).toBe(true);
  });

  it('a reference date is checked too, at refs.N.date', () => {
    expect(paths(creditNote({ refs: [{ ...ref, date: '2026-02-30' }] }))).toEqual(['refs.0.date']);
  });
});

describe('SII lengths: longer text is refused, never cut', () => {
  it.each([
    ['items.0.name', 80, (s: string) => withItem({ name: s })],
    ['items.0.unit', 4, (s: string) => withItem({ unit: s })],
    ['items.0.code', 35, (s: string) => withItem({ code: s })],
    ['items.0.description', 1000, (s: string) => withItem({ description: s })],
    ['receiver.name', 100, (s: string) => factura({ receiver: { ...RECEIVER, name: s } })],
    ['receiver.activity', 40, (s: string) => factura({ receiver: { ...RECEIVER, activity: s } })],
    ['receiver.address', 70, (s: string) => factura({ receiver: { ...RECEIVER, address: s } })],
    ['receiver.comuna', 20, (s: string) => factura({ receiver: { ...RECEIVER, comuna: s } })],
    ['refs.0.reason', 90, (s: string) => creditNote({ refs: [{ ...ref, reason: s }] })],
  ])('%s: %i characters pass, one more is refused', (path, max, build) => {
    // Accented letters count as one character each (the SII counts ISO-8859-1 characters).
    expect(accepts(build('ñ'.repeat(max)))).toBe(true);
    expect(paths(build('ñ'.repeat(max + 1)))).toEqual([path]);
  });

  it('the 81-character item name of the brief is refused with the SII limit in the message', () => {
    expect(issues(withItem({ name: 'x'.repeat(81) }))).toEqual({
      'items.0.name': ['must be at most 80 characters (SII limit)'],
    });
  });

  it('an emoji counts as one character', () => {
    expect(accepts(withItem({ name: `${'x'.repeat(79)}😀` }))).toBe(true);
  });
});

describe('text content', () => {
  it.each([
    ['a bell', 'Mar\u0007tillo', 'U+0007'],
    ['a NUL', 'Mar\u0000tillo', 'U+0000'],
    ['a carriage return', 'Mar\rtillo', 'U+000D'],
    ['a lone surrogate', 'Mar\ud800tillo', 'U+D800'],
    ['a lone low surrogate', 'Mar\udc00tillo', 'U+DC00'],
    ['DEL', 'Mar\u007ftillo', 'U+007F'],
    ['a C1 control', 'Mar\u0080tillo', 'U+0080'],
    ['NEL', 'Mar\u0085tillo', 'U+0085'],
    ['the last C1 control', 'Mar\u009ftillo', 'U+009F'],
    ['a line separator', 'Mar\u2028tillo', 'U+2028'],
    ['a paragraph separator', 'Mar\u2029tillo', 'U+2029'],
    ['the replacement character', 'Mar\ufffdtillo', 'U+FFFD'],
    ['a noncharacter', 'Mar\ufdd0tillo', 'U+FDD0'],
    ['U+FFFE', 'Mar\ufffetillo', 'U+FFFE'],
    ['an astral noncharacter', 'Mar\u{1fffe}tillo', 'U+1FFFE'],
    ['a bidi override', 'Mar\u202etillo', 'U+202E'],
    ['a bidi isolate', 'Mar\u2066tillo', 'U+2066'],
    ['a right-to-left mark', 'Mar\u200ftillo', 'U+200F'],
  ])('%s is refused, naming the character', (_, name, code) => {
    expect(issues(withItem({ name }))).toEqual({ 'items.0.name': [`character ${code} is not allowed`] });
  });

  it.each([
    ['Latin-1 letters and signs', 'Ñandú ç ß ÿ ° ª º « » ¡ ¿ \u00a0'],
    ['an emoji', 'Martillo 💥'],
    ['a combining mark', 'Marti\u0301llo'],
    ['a zero-width joiner sequence', '👩\u200d🔧'],
    ['CJK and Cyrillic', '锤子 молоток'],
    ['private use', 'x\ue000'],
    ['typographic quotes and a dash', '“Martillo” – 16 oz'],
  ])('%s is accepted', (_, name) => {
    expect(accepts(withItem({ name }))).toBe(true);
  });

  it('a line break is refused in a name but allowed in a description', () => {
    expect(issues(withItem({ name: 'Mar\ntillo' }))).toEqual({ 'items.0.name': ['must be a single line'] });
    expect(accepts(withItem({ description: 'Mango de fibra\n16 oz' }))).toBe(true);
  });

  it('blank text is refused', () => {
    expect(paths(withItem({ name: '   ' }))).toEqual(['items.0.name']);
  });

  it('a description that would exceed the SII gateway line length once encoded is refused', () => {
    // 1 000 characters, but `&amp;` ×1000 = 5 000 characters on one XML line (docs/sii-reference.md §7.3).
    expect(paths(withItem({ description: '&'.repeat(1000) }))).toEqual(['items.0.description']);
    expect(paths(withItem({ description: '—'.repeat(1000) }))).toEqual(['items.0.description']);
    expect(accepts(withItem({ description: `${'Á'.repeat(900)} & ${'x'.repeat(90)}` }))).toBe(true);
  });
});

describe('unknown fields are refused at every level', () => {
  it('at the root', () => {
    const result = issueRequestSchema.safeParse(factura({ discount: 10 }));
    expect(result.error?.issues).toMatchObject([{ code: 'unrecognized_keys', path: [], keys: ['discount'] }]);
  });

  it('in an item (a misspelt discount_pct is not silently lost)', () => {
    const result = issueRequestSchema.safeParse(withItem({ discount_percent: 10 }));
    expect(result.error?.issues).toMatchObject([
      { code: 'unrecognized_keys', path: ['items', 0], keys: ['discount_percent'] },
    ]);
  });

  it('in the receiver, a reference and dispatch', () => {
    expect(paths(factura({ receiver: { ...RECEIVER, phone: '123' } }))).toEqual(['receiver']);
    expect(paths(creditNote({ refs: [{ ...ref, note: 'x' }] }))).toEqual(['refs.0']);
    expect(paths({ ...(requestFor(52) as object), dispatch: { transfer_type: 5, truck: 'AB1234' } })).toEqual([
      'dispatch',
    ]);
  });
});

describe('rules that depend on the type (docs/sii-reference.md §4.4)', () => {
  it.each([56, 61])('type %i requires refs', (type) => {
    expect(issues(creditNote({ type, receiver: RECEIVER, refs: undefined }))).toEqual({
      refs: [`is required for type ${type}: the document this note modifies`],
    });
    expect(paths(creditNote({ type, receiver: RECEIVER, refs: [] }))).toEqual(['refs']);
  });

  it('a factura reference needs its date (FchRef)', () => {
    expect(paths(creditNote({ refs: [{ type: 33, folio: 120 }] }))).toEqual(['refs.0.date']);
  });

  it('rule 3: a voiding, text- or amount-correcting note references exactly one tax document', () => {
    expect(paths(creditNote({ refs: [ref, { ...ref, folio: 121 }] }))).toEqual(['refs']);
    expect(paths(creditNote({ refs: [ref, { ...ref, folio: 121 }].map((r) => ({ ...r, code: 3 })) }))).toEqual([
      'refs',
    ]);
    // A purchase order next to the tax document is fine.
    expect(accepts(creditNote({ refs: [ref, { type: 801, folio: 'OC-77', date: '2026-02-27' }] }))).toBe(true);
  });

  it('rule 3: which notes may void what, and CodRef only where it applies', () => {
    const full = { receiver: RECEIVER };
    expect(paths(creditNote({ type: 56, ...full, refs: [{ ...ref, code: 1 }] }))).toEqual(['refs.0.code']);
    expect(accepts(creditNote({ type: 56, ...full, refs: [{ ...ref, type: 61, code: 1 }] }))).toBe(true);
    expect(paths(creditNote({ refs: [{ ...ref, type: 61 }] }))).toEqual(['refs.0.code']);
    expect(paths(creditNote({ type: 56, ...full, refs: [{ ...ref, code: 2 }] }))).toContain('refs.0.code');
    expect(paths(creditNote({ refs: [{ ...ref, type: 52 }] }))).toEqual(['refs.0.type']);
    expect(paths(creditNote({ refs: [{ ...ref, type: 30 }] }))).toEqual(['refs.0.type']);
    expect(paths(creditNote({ refs: [ref, { type: 801, folio: 'OC-1', date: '2026-02-01', code: 1 }] }))).toEqual([
      'refs.1.code',
    ]);
    expect(paths(factura({ refs: [{ ...ref, code: 1 }] }))).toEqual(['refs.0.code']);
  });

  it('a text correction (CodRef 2) carries no amounts', () => {
    const textFix = { refs: [{ ...ref, code: 2 }] };
    expect(accepts(creditNote({ ...textFix, items: [{ name: 'DONDE DICE x DEBE DECIR y', qty: 1 }] }))).toBe(true);
    expect(paths(creditNote({ ...textFix, items: [item({ price: 100 })] }))).toEqual(['items.0.price']);
  });

  it('52 requires dispatch, and dispatch applies only to 52', () => {
    expect(paths({ ...(requestFor(52) as object), dispatch: undefined })).toEqual(['dispatch']);
    expect(paths({ ...(requestFor(52) as object), dispatch: { transfer_type: 10 } })).toEqual([
      'dispatch.transfer_type',
    ]);
    expect(paths(factura({ dispatch: { transfer_type: 1 } }))).toEqual(['dispatch']);
  });

  it('retention_code applies only to 46, and only 15 is supported', () => {
    expect(accepts({ ...(requestFor(46) as object), retention_code: 15 })).toBe(true);
    expect(paths({ ...(requestFor(46) as object), retention_code: 34 })).toEqual(['retention_code']);
    expect(paths(factura({ retention_code: 15 }))).toEqual(['retention_code']);
  });

  it('service_indicator applies only to boletas, 1..4', () => {
    const periodic = {
      service_period: { from: '2026-02-01', to: '2026-02-28' },
      receiver: { rut: RECEIVER.rut, address: 'Calle 1' },
    };
    expect(accepts({ ...(requestFor(39) as object), service_indicator: 1, ...periodic })).toBe(true);
    expect(paths({ ...(requestFor(39) as object), service_indicator: 5 })).toEqual(['service_indicator']);
    expect(paths(factura({ service_indicator: 3 }))).toEqual(['service_indicator']);
  });
});
