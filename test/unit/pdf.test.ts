/**
 * The printed representation (src/dte/pdf/) checked with independent tools, as a reader of
 * the paper would: poppler rasterises the PDF at 300 dpi, ZXing decodes the PDF417 and must
 * return exactly the TED's ISO-8859-1 bytes (docs/sii-reference.md §3.3); pdftotext must find
 * the data the SII requires on the page ([MUE]).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentLine, DteDocument, IssuerInfo } from '../../src/dte/model.ts';
import {
  formatAmount,
  formatDateLong,
  formatDecimal,
  renderPdf,
  SANDBOX_MARK,
  tedBarcode,
} from '../../src/dte/pdf/index.ts';

const ISSUER: IssuerInfo = {
  rut: '76086428-5',
  name: 'Ferretería El Ñandú & Cía. <Sur> SpA',
  giro: 'Venta al por menor de artículos de ferretería',
  acteco: ['475201'],
  address: 'Av. Irarrázaval 1234, piso 2°',
  comuna: 'Ñuñoa',
  city: 'Santiago',
  vatRate: 19,
  resolutionDate: '2014-08-22',
  resolutionNumber: 80,
  siiOffice: 'Santiago Oriente',
};

const RECEIVER_NAME = 'Panadería Ñuñoa & Hijos <Ltda.>';

/** Totals by hand: neto 33.750 + 4.975 = 38.725; IVA 19 % = 7.357,75 → 7.358; exento 8.000. */
const FACTURA: DteDocument = {
  type: 33,
  folio: 4821,
  date: '2026-03-05',
  issuer: ISSUER,
  receiver: {
    rut: '76354771-K',
    name: RECEIVER_NAME,
    activity: 'Elaboración de pan y pastelería',
    address: 'Av. Irarrázaval 2850, local 4°',
    comuna: 'Ñuñoa',
    city: 'Santiago',
  },
  lines: [
    {
      number: 1,
      code: 'HAR-25',
      name: 'Harina de trigo 25 kg',
      description: 'Sacos de 25 kg, tipo 000; entrega en bodega',
      unit: 'SACO',
      qty: '3',
      price: '12500',
      discountPct: '10',
      discountAmount: 3750,
      exempt: false,
      amount: 33750,
    },
    { number: 2, name: 'Levadura fresca ½ kg', unit: 'UN', qty: '2.5', price: '1990', exempt: false, amount: 4975 },
    { number: 3, name: 'Flete a Ñuñoa', qty: '1', price: '8000', exempt: true, amount: 8000 },
  ],
  refs: [{ number: 1, type: '801', folio: 'OC-2026-118', date: '2026-03-01', reason: 'Orden de compra' }],
  totals: { net: 38725, exempt: 8000, vat: 7358, vatRate: 19, total: 54083 },
};

/**
 * A TED as the SII defines it (docs/sii-reference.md §3.1): flattened, with `&` and `<` escaped as in the
 * XML text and Latin-1 letters. The CAF part is the SII's published example.
 */
const TED =
  '<TED version="1.0"><DD><RE>76086428-5</RE><TD>33</TD><F>4821</F><FE>2026-03-05</FE><RR>76354771-K</RR>' +
  '<RSR>Panadería Ñuñoa &amp; Hijos &lt;Ltda.&gt;</RSR><MNT>54083</MNT><IT1>Harina de trigo 25 kg</IT1>' +
  '<CAF version="1.0"><DA><RE>76086428-5</RE><RS>FERRETERIA EL ÑANDU</RS><TD>33</TD><RNG><D>1</D><H>5000</H></RNG>' +
  '<FA>2026-01-02</FA><RSAPK><M>0a4O6Kbx8Qj3K4iWSP4w7KneZYeJ+g/prihYtIEolKt3cykSxl1zO8vSXu397QhTmsX7SBEudTUx++2zDXBhZw==</M>' +
  '<E>Aw==</E></RSAPK><IDK>100</IDK></DA><FRMA algoritmo="SHA1withRSA">g1AQX0sy8NJugX52k2hTJEZAE9Cuul6pqYBdFxj1N17umW7zG/hAavCALKByHzdYAfZ3LhGTXCai5zNxOo4lDQ==</FRMA></CAF>' +
  '<TSTED>2026-03-05T10:15:00</TSTED></DD><FRMT algoritmo="SHA1withRSA">pqjXHHQLJmyFPMRvxScN7tYHvIsty0pqL2LLYaG43jMmnfiZfllLA0wb32lP+HBJ/tf8nziSeorvjlx410ZImw==</FRMT></TED>';
const TED_BYTES = Buffer.from(TED, 'latin1');

let dir: string;
let counter = 0;

function save(bytes: Buffer, ext: string): string {
  const file = join(dir, `f${++counter}.${ext}`);
  writeFileSync(file, bytes);
  return file;
}

const run = (cmd: string, args: string[]): Buffer => execFileSync(cmd, args, { maxBuffer: 64 * 1024 * 1024 });

function pageSizes(pdf: string): Array<{ width: number; height: number }> {
  const out = run('pdfinfo', ['-f', '1', '-l', '9999', pdf]).toString('utf8');
  return [...out.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({
    width: Number(m[1]),
    height: Number(m[2]),
  }));
}

/** Rasterises one page (optionally only a band of it, in points from the top) at 300 dpi. */
function rasterise(pdf: string, page: number, band?: { y: number; height: number }): string {
  const prefix = join(dir, `r${++counter}`);
  const crop = band
    ? ['-y', String(Math.floor((band.y * 300) / 72)), '-H', String(Math.ceil((band.height * 300) / 72))]
    : [];
  run('pdftoppm', ['-r', '300', '-png', '-f', String(page), '-l', String(page), '-singlefile', ...crop, pdf, prefix]);
  return `${prefix}.png`;
}

const decodeBytes = (png: string): Buffer => run('ZXingReader', ['-format', 'PDF417', '-bytes', png]);
const decodeReport = (png: string): string => run('ZXingReader', ['-format', 'PDF417', png]).toString('utf8');
const pdfText = (pdf: string, page?: number): string =>
  run('pdftotext', [...(page ? ['-f', String(page), '-l', String(page)] : []), '-enc', 'UTF-8', pdf, '-']).toString(
    'utf8',
  );

function manyLines(n: number, boleta = false): DocumentLine[] {
  return Array.from({ length: n }, (_, i) => ({
    number: i + 1,
    code: boleta ? undefined : `ART-${i + 1}`,
    name: `Artículo Nº ${i + 1} — pan amasado ñ`,
    description:
      i % 4 === 0 ? 'Detalle largo del ítem para obligar a envolver el texto en varias líneas de la celda.' : undefined,
    qty: '2',
    price: '1000',
    exempt: false,
    amount: 2000,
  }));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'timbre-pdf-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('number and date formatting', () => {
  it('uses Chilean thousands dots and decimal commas', () => {
    expect(formatAmount(0)).toBe('0');
    expect(formatAmount(999)).toBe('999');
    expect(formatAmount(1000)).toBe('1.000');
    expect(formatAmount(1234567)).toBe('1.234.567');
    expect(formatAmount(-47500)).toBe('-47.500');
    expect(formatDecimal('2.5')).toBe('2,5');
    expect(formatDecimal('1234.000001')).toBe('1.234,000001');
    expect(formatDecimal('12500')).toBe('12.500');
  });

  it('writes dates in Spanish', () => {
    expect(formatDateLong('2026-03-05')).toBe('5 de marzo de 2026');
    expect(formatDateLong('2026-12-31')).toBe('31 de diciembre de 2026');
  });
});

describe('PDF417 of the TED', () => {
  it('meets the SII module and size limits on letter and on the 80 mm roll', () => {
    const letter = tedBarcode(TED, 'letter');
    const mm = (pt: number) => (pt / 72) * 25.4;
    expect(letter.moduleMm).toBeGreaterThanOrEqual(0.17);
    expect(mm(letter.width)).toBeGreaterThanOrEqual(50);
    expect(mm(letter.width)).toBeLessThanOrEqual(90);
    expect(mm(letter.height)).toBeGreaterThanOrEqual(20);
    expect(mm(letter.height)).toBeLessThanOrEqual(40);
    // Row height 3X and the (17·cols + 69)·X width of ISO/IEC 15438.
    expect(mm(letter.height)).toBeCloseTo(letter.rows * 3 * letter.moduleMm, 6);
    expect(mm(letter.width)).toBeCloseTo((17 * letter.columns + 69) * letter.moduleMm, 6);

    const roll = tedBarcode(TED, '80mm');
    expect(roll.moduleMm).toBeGreaterThanOrEqual(0.17);
    expect(mm(roll.width)).toBeLessThanOrEqual(80 - 2 * 6.35);
  });

  it('decodes to the exact Latin-1 bytes with EC level 5, whatever the length mod 6 (latch 901 or 924)', () => {
    for (let pad = 0; pad < 6; pad++) {
      const ted = TED.replace('</FRMT>', `${'ñ'.repeat(pad)}</FRMT>`);
      const png = save(tedBarcode(ted, pad % 2 ? 'letter' : '80mm').png, 'png');
      expect(decodeBytes(png).equals(Buffer.from(ted, 'latin1'))).toBe(true);
      if (pad === 0) expect(decodeReport(png)).toMatch(/EC Level:\s+5/);
    }
  });

  it('refuses a TED with characters outside ISO-8859-1', () => {
    expect(() => tedBarcode(TED.replace('Ñuñoa', 'Ñuñoa €'), 'letter')).toThrow(/ISO-8859-1/);
  });
});

describe('letter factura', () => {
  let sandboxPdf: string;
  let livePdf: string;

  beforeAll(async () => {
    sandboxPdf = save(await renderPdf(FACTURA, TED, { format: 'letter', sandbox: true }), 'pdf');
    livePdf = save(await renderPdf(FACTURA, TED, { format: 'letter', sandbox: false }), 'pdf');
  });

  it('rule 12: is two US-letter pages, the tributary copy and the CEDIBLE copy with the acuse de recibo box', () => {
    expect(pageSizes(livePdf)).toEqual([
      { width: 612, height: 792 },
      { width: 612, height: 792 },
    ]);
    const [first, second] = [pdfText(livePdf, 1), pdfText(livePdf, 2)];
    for (const text of [first, second]) expect(text).toContain('Timbre Electrónico SII');
    expect(first).not.toContain('CEDIBLE');
    expect(first).not.toContain('ACUSE DE RECIBO');
    expect(second).toContain('CEDIBLE');
    const flat = second.replace(/\s+/g, ' ');
    for (const field of ['ACUSE DE RECIBO', 'Nombre:', 'R.U.T.:', 'Fecha:', 'Recinto:', 'Firma:']) {
      expect(flat).toContain(field);
    }
    expect(flat).toContain('letra b) del Art. 4°, y la letra c) del Art. 5° de la Ley 19.983');
    expect(flat).not.toMatch(/Recib[ií] conforme/i);
  });

  it('rule 12: a guía prints "CEDIBLE CON SU FACTURA"; notes and boletas print one copy', async () => {
    const guia: DteDocument = { ...FACTURA, type: 52, dispatch: { transferType: 1 } };
    const guiaPdf = save(await renderPdf(guia, TED, { format: 'letter', sandbox: false }), 'pdf');
    expect(pageSizes(guiaPdf)).toHaveLength(2);
    expect(pdfText(guiaPdf, 2)).toContain('CEDIBLE CON SU FACTURA');
    for (const type of [56, 61, 39] as const) {
      const pdf = save(await renderPdf({ ...FACTURA, type }, TED, { format: 'letter', sandbox: false }), 'pdf');
      expect(pageSizes(pdf)).toHaveLength(1);
      expect(pdfText(pdf)).not.toContain('CEDIBLE');
    }
  });

  it('rule 12: "S.I.I. - <unit>" is the issuer\'s SII office, never its city or comuna', async () => {
    expect(pdfText(livePdf)).toContain('S.I.I. - SANTIAGO ORIENTE');
    const { siiOffice: _, ...noOffice } = ISSUER;
    const pdf = save(
      await renderPdf({ ...FACTURA, issuer: noOffice }, TED, { format: 'letter', sandbox: false }),
      'pdf',
    );
    expect(pdfText(pdf)).not.toContain('S.I.I. -');
  });

  it('rule 1: prints FmaPago in words', async () => {
    const pdf = save(await renderPdf({ ...FACTURA, payment: 2 }, TED, { format: 'letter', sandbox: false }), 'pdf');
    expect(pdfText(pdf, 1)).toMatch(/Forma de pago:\s+Crédito/);
  });

  it("rule 12: a credit note prints the receiver's giro and address", async () => {
    const note: DteDocument = { ...FACTURA, type: 61 };
    for (const format of ['letter', '80mm'] as const) {
      const text = pdfText(save(await renderPdf(note, TED, { format, sandbox: false }), 'pdf'));
      expect(text).toContain('Elaboración de pan y pastelería');
      expect(text).toContain('Av. Irarrázaval 2850, local 4°');
    }
  });

  it('carries a PDF417 that decodes to the TED bytes (300 dpi)', () => {
    for (const pdf of [sandboxPdf, livePdf]) {
      const png = rasterise(pdf, 1);
      expect(decodeBytes(png).equals(TED_BYTES)).toBe(true);
      expect(decodeReport(png)).toMatch(/EC Level:\s+5/);
    }
  });

  it('prints the data the SII requires, with Spanish characters intact', () => {
    const text = pdfText(livePdf);
    for (const expected of [
      'R.U.T.: 76.086.428-5',
      'FACTURA ELECTRÓNICA',
      'Nº 4821',
      'S.I.I. - SANTIAGO ORIENTE',
      'Ferretería El Ñandú & Cía. <Sur> SpA',
      '5 de marzo de 2026',
      RECEIVER_NAME,
      '76.354.771-K',
      'Av. Irarrázaval 2850, local 4°',
      'Levadura fresca ½ kg',
      '12.500',
      '33.750',
      'Orden de compra',
      'OC-2026-118',
      'IVA 19%',
      '$ 38.725',
      '$ 7.358',
      '$ 8.000',
      '$ 54.083',
      'Timbre Electrónico SII',
      'Res. 80 de 2014',
      'Verifique documento: www.sii.cl',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('shows the sandbox mark only on sandbox documents', () => {
    expect(SANDBOX_MARK).toBe('SANDBOX — SIN VALIDEZ TRIBUTARIA');
    expect(pdfText(sandboxPdf)).toContain(SANDBOX_MARK);
    expect(pdfText(livePdf)).not.toContain('SANDBOX');
  });

  it('replaces characters the standard fonts cannot show instead of writing garbage', async () => {
    const doc = { ...FACTURA, receiver: { ...FACTURA.receiver, name: 'Comercial 漢字 “Sur” Ltda.' } };
    const text = pdfText(save(await renderPdf(doc, TED, { format: 'letter', sandbox: false }), 'pdf'));
    expect(text).toContain('Comercial ?? “Sur” Ltda.');
  });

  it('wraps a description without spaces inside its cell, losing nothing', async () => {
    const word = Array.from({ length: 120 }, (_, i) => `ñ${i}`).join('_');
    const first = FACTURA.lines[0] as DocumentLine;
    const doc = { ...FACTURA, lines: [{ ...first, description: word }, ...FACTURA.lines.slice(1)] };
    const text = pdfText(save(await renderPdf(doc, TED, { format: 'letter', sandbox: false }), 'pdf'));
    expect(text.replace(/\s+/g, '')).toContain(word);
  });
});

describe('80 mm roll', () => {
  it('is 80 mm wide, sized to its content, and its PDF417 decodes to the TED bytes', async () => {
    const pdf = save(await renderPdf(FACTURA, TED, { format: '80mm', sandbox: false }), 'pdf');
    const sizes = pageSizes(pdf);
    expect(sizes).toHaveLength(2); // the tributary and the cedible copy
    expect(sizes[0]?.width).toBeCloseTo((80 / 25.4) * 72, 2);
    expect(sizes[0]?.height).toBeLessThan(792);
    expect(decodeBytes(rasterise(pdf, 1)).equals(TED_BYTES)).toBe(true);
    const text = pdfText(pdf);
    for (const expected of [
      '76.086.428-5',
      'FACTURA ELECTRÓNICA',
      'Nº 4821',
      RECEIVER_NAME,
      '$ 54.083',
      'Timbre Electrónico SII',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('SANDBOX');
  });

  it('rule 12: follows the MUE order for continuous paper, the red box first', async () => {
    const pdf = save(await renderPdf(FACTURA, TED, { format: '80mm', sandbox: false }), 'pdf');
    const text = pdfText(pdf, 2);
    const order = [
      'R.U.T.: 76.086.428-5', // 1. red box
      'S.I.I. - SANTIAGO ORIENTE', // 2. SII office
      'Ferretería El Ñandú', // 3. issuer
      RECEIVER_NAME, // 4. receiver
      'Fecha emisión:', // 5. date
      'Referencias', // 6. references
      'Levadura fresca', // 7. detail
      'TOTAL', // 8. totals
      'ACUSE DE RECIBO', // 9. acuse de recibo
      'Timbre Electrónico SII', // 10. stamp
      'CEDIBLE', // 11. destination legend
    ].map((s) => text.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('carries the sandbox mark', async () => {
    const pdf = save(await renderPdf(FACTURA, TED, { format: '80mm', sandbox: true }), 'pdf');
    expect(pdfText(pdf)).toContain(SANDBOX_MARK);
  });
});

describe('pagination', () => {
  it('spreads a 60-line factura over pages: header repeated, totals and stamp on the last page', async () => {
    const doc: DteDocument = {
      ...FACTURA,
      lines: manyLines(60),
      totals: { net: 120000, exempt: 0, vat: 22800, vatRate: 19, total: 142800 },
    };
    const pdf = save(await renderPdf(doc, TED, { format: 'letter', sandbox: true }), 'pdf');
    // Two copies (tributary and cedible), each paginated on its own.
    const all2 = pageSizes(pdf).length;
    const pages = all2 / 2;
    expect(pages).toBeGreaterThan(1);
    for (let n = 1; n <= all2; n++) {
      const p = ((n - 1) % pages) + 1;
      const text = pdfText(pdf, n);
      expect(text).toContain('Descripción');
      expect(text).toContain('Nº 4821');
      expect(text).toContain(`Página ${p} de ${pages}`);
      expect(text.includes('Timbre Electrónico SII')).toBe(p === pages);
      expect(text.includes('$ 142.800')).toBe(p === pages);
    }
    const all = pdfText(pdf);
    for (let i = 1; i <= 60; i++) expect(all).toContain(`Artículo Nº ${i} — pan amasado ñ`);
    expect(decodeBytes(rasterise(pdf, pages)).equals(TED_BYTES)).toBe(true);
  });

  it('splits a 1000-line boleta roll into pages within the PDF size limit, stamp at the end', async () => {
    const doc: DteDocument = {
      ...FACTURA,
      type: 39,
      receiver: { rut: '66666666-6' },
      lines: manyLines(1000, true),
      refs: [],
      totals: { net: 1680672, exempt: 0, vat: 319328, vatRate: 0, total: 2000000 },
    };
    const pdf = save(await renderPdf(doc, TED, { format: '80mm', sandbox: false }), 'pdf');
    const sizes = pageSizes(pdf);
    expect(sizes.length).toBeGreaterThan(1);
    for (const s of sizes) expect(s.height).toBeLessThanOrEqual(14_400);
    const last = sizes.length;
    const text = pdfText(pdf, last);
    expect(text).toContain('Artículo Nº 1000');
    expect(text).toContain('$ 2.000.000');
    expect(text).toContain('$ 319.328');
    expect(pdfText(pdf, 1)).toContain('BOLETA ELECTRÓNICA');
    const height = sizes[last - 1]?.height ?? 0;
    expect(decodeBytes(rasterise(pdf, last, { y: height - 260, height: 260 })).equals(TED_BYTES)).toBe(true);
  });
});
