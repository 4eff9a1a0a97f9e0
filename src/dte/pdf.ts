/**
 * The printed representation of a DTE (SII "Manual de Muestras Impresas" [MUE]; REFERENCE §3.3
 * and §4): issuer block, the red-bordered RUT / document name / folio box, receiver, lines,
 * references, totals, and the TED as a PDF417 symbol with its legend. Two layouts: US letter
 * (the classic factura) and an 80 mm thermal roll (boletas, point of sale).
 *
 * Pure: no DB, no network, no files. Fonts are pdfkit's built-in standard Helvetica family
 * (WinAnsi), whose metrics ship inside pdfkit's JavaScript, so nothing is read from disk at run
 * time. Nothing that depends on a document is cached between calls.
 *
 * The PDF417 path is the expensive part, so it avoids bwip-js's renderer (its PNG output costs
 * ~190 ms, TOOLCHAIN §5): bwip-js only turns our codewords into the module matrix, and the
 * image is a 1-bit PNG written here with node:zlib. See `tedBarcode` for the reasoning.
 */
import { crc32, deflateSync } from 'node:zlib';
import bwipjs from 'bwip-js';
import PDFDocument from 'pdfkit';
import { DTE_NAMES, type DocumentLine, type DocumentReference, type DteDocument, type DteType } from './model.ts';
import { formatRutDisplay, GENERIC_BOLETA_RUT } from './rut.ts';

export type PdfFormat = 'letter' | '80mm';

export interface PdfOptions {
  format: PdfFormat;
  /** Sandbox documents carry a visible "SANDBOX — SIN VALIDEZ TRIBUTARIA" mark (DESIGN §4). */
  sandbox: boolean;
  /**
   * A preview before issuing (DESIGN §8): marked "BORRADOR — SIN FOLIO" instead of the
   * sandbox mark, and no PDF417 stamp (there is no TED without a folio).
   */
  draft?: boolean;
}

export const SANDBOX_MARK = 'SANDBOX — SIN VALIDEZ TRIBUTARIA';
export const DRAFT_MARK = 'BORRADOR — SIN FOLIO';

const MM = 72 / 25.4;

// ---------------------------------------------------------------------------------------------
// Text and number formatting
// ---------------------------------------------------------------------------------------------

/**
 * Characters above U+00FF that WinAnsiEncoding (the encoding of pdfkit's standard fonts) can
 * still show. Anything else would be written as garbage bytes, so it is replaced by "?".
 */
const WIN_ANSI_EXTRA = new Set([
  0x152, 0x153, 0x160, 0x161, 0x178, 0x17d, 0x17e, 0x192, 0x2c6, 0x2dc, 0x2013, 0x2014, 0x2018, 0x2019, 0x201a, 0x201c,
  0x201d, 0x201e, 0x2020, 0x2021, 0x2022, 0x2026, 0x2030, 0x2039, 0x203a, 0x20ac, 0x2122,
]);
const PLAIN_TEXT = /^[\x20-\x7e\xa0-\xff]*$/;

/** Makes caller-supplied text printable with a WinAnsi font: controls → space, the rest → "?". */
function printable(text: string): string {
  if (PLAIN_TEXT.test(text)) return text;
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const c = ch.codePointAt(0) ?? 0x3f;
    if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += ' ';
    else if (c <= 0xff || WIN_ANSI_EXTRA.has(c)) out += ch;
    else out += '?';
  }
  return out;
}

const groupThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');

/** Whole pesos with Chilean thousands dots: 1234567 → "1.234.567". */
export function formatAmount(value: number): string {
  if (!Number.isInteger(value)) return formatDecimal(String(value));
  return (value < 0 ? '-' : '') + groupThousands(String(Math.abs(value)));
}

/** Decimal text as stored in the model ("1234.5") in Chilean notation ("1.234,5"). */
export function formatDecimal(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return text;
  const [, sign = '', int = '0', frac] = m;
  return `${sign}${groupThousands(int)}${frac ? `,${frac}` : ''}`;
}

const MONTHS = [
  'enero',
  'febrero',
  'marzo',
  'abril',
  'mayo',
  'junio',
  'julio',
  'agosto',
  'septiembre',
  'octubre',
  'noviembre',
  'diciembre',
];

/** "2026-11-22" → "22 de noviembre de 2026". */
export function formatDateLong(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  const month = m ? MONTHS[Number(m[2]) - 1] : undefined;
  if (!m || !month) return iso;
  return `${Number(m[3])} de ${month} de ${m[1]}`;
}

/** "2026-11-22" → "22-11-2026" (the usual Chilean short form). */
function formatDateShort(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[3]}-${m[2]}-${m[1]}` : iso;
}

const peso = (value: number): string => `$ ${formatAmount(value)}`;

/** TpoDocRef names ([FMT] table of document types; 801+ are the non-tax codes of §E). */
const REFERENCE_TYPE_NAMES: Record<string, string> = {
  '30': 'Factura',
  '32': 'Factura no afecta o exenta',
  '33': 'Factura electrónica',
  '34': 'Factura no afecta o exenta electrónica',
  '35': 'Boleta',
  '38': 'Boleta exenta',
  '39': 'Boleta electrónica',
  '41': 'Boleta exenta electrónica',
  '45': 'Factura de compra',
  '46': 'Factura de compra electrónica',
  '50': 'Guía de despacho',
  '52': 'Guía de despacho electrónica',
  '55': 'Nota de débito',
  '56': 'Nota de débito electrónica',
  '60': 'Nota de crédito',
  '61': 'Nota de crédito electrónica',
  '801': 'Orden de compra',
  '802': 'Nota de pedido',
  '803': 'Contrato',
  '804': 'Resolución',
  '805': 'Proceso ChileCompra',
  '806': 'Ficha ChileCompra',
  '807': 'DUS',
  '808': 'B/L (conocimiento de embarque)',
  '809': 'AWB (guía aérea)',
  '810': 'MIC/DTA',
  '811': 'Carta de porte',
  '813': 'Pasaporte',
};

/** CodRef ([FMT] §E): what the reference does to the referenced document. */
const REFERENCE_CODE_TEXT: Record<1 | 2 | 3, string> = {
  1: 'Anula documento de referencia',
  2: 'Corrige texto del documento de referencia',
  3: 'Corrige montos',
};

/** IndTraslado of a guía de despacho (REFERENCE §4.4, [FMT]). */
const TRANSFER_TYPES: Record<number, string> = {
  1: 'Operación constituye venta',
  2: 'Ventas por efectuar',
  3: 'Consignaciones',
  4: 'Entrega gratuita',
  5: 'Traslado interno',
  6: 'Otros traslados no venta',
  7: 'Guía de devolución',
  8: 'Traslado para exportación (no venta)',
  9: 'Venta para exportación',
};

/** TipoDespacho ([FMT] IdDoc). */
const DISPATCH_TYPES: Record<number, string> = {
  1: 'Por cuenta del receptor',
  2: 'Por cuenta del emisor a instalaciones del cliente',
  3: 'Por cuenta del emisor a otras instalaciones',
};

const referenceTypeName = (type: string): string => REFERENCE_TYPE_NAMES[type] ?? type;

function referenceReason(ref: DocumentReference): string {
  const code = ref.code ? REFERENCE_CODE_TEXT[ref.code] : undefined;
  if (code && ref.reason) return `${code}: ${ref.reason}`;
  return ref.reason ?? code ?? '';
}

function transferText(doc: DteDocument): { transfer?: string; dispatch?: string } {
  if (doc.type !== 52 || !doc.dispatch) return {};
  const t = doc.dispatch.transferType;
  const d = doc.dispatch.dispatchType;
  return {
    transfer: `${t} - ${TRANSFER_TYPES[t] ?? 'Otro'}`,
    ...(d ? { dispatch: `${d} - ${DISPATCH_TYPES[d] ?? 'Otro'}` } : {}),
  };
}

const isExemptType = (t: DteType): boolean => t === 34 || t === 41;

interface TotalRow {
  label: string;
  value: string;
  strong?: boolean;
}

/** The totals block ([FMT] Totales): neto / exento / IVA / retention / total; boletas print the
 * total and the VAT it includes. */
function totalRows(doc: DteDocument): TotalRow[] {
  const t = doc.totals;
  const rate = t.vatRate || doc.issuer.vatRate;
  const rows: TotalRow[] = [];
  if (doc.type === 39 || doc.type === 41) {
    if (t.exempt > 0 && doc.type === 39) rows.push({ label: 'Monto exento', value: peso(t.exempt) });
    rows.push({ label: 'TOTAL', value: peso(t.total), strong: true });
    if (doc.type === 39) rows.push({ label: `IVA (${rate}%) incluido en el total`, value: peso(t.vat) });
    return rows;
  }
  const exemptOnly = isExemptType(doc.type) || (t.net === 0 && t.vat === 0 && t.exempt > 0);
  if (!exemptOnly) rows.push({ label: 'Monto neto', value: peso(t.net) });
  if (exemptOnly || t.exempt > 0) rows.push({ label: 'Monto exento', value: peso(t.exempt) });
  if (!exemptOnly) rows.push({ label: `IVA ${rate}%`, value: peso(t.vat) });
  if (t.retention) {
    const r = t.retention;
    const label = r.code === 15 ? `IVA retenido total ${r.rate}%` : `Impuesto retenido (cód. ${r.code}) ${r.rate}%`;
    rows.push({ label, value: `-$ ${formatAmount(r.amount)}` });
  }
  rows.push({ label: 'TOTAL', value: peso(t.total), strong: true });
  return rows;
}

/** Boletas to an anonymous buyer (66.666.666-6 without a name) may omit the receiver block [FMTB]. */
function hasReceiver(doc: DteDocument): boolean {
  const r = doc.receiver;
  return !(r.rut === GENERIC_BOLETA_RUT && !r.name && !r.address);
}

// ---------------------------------------------------------------------------------------------
// PDF417 (the TED)
// ---------------------------------------------------------------------------------------------

/** Error-correction level 5 (REFERENCE §3.3): 2^(5+1) = 64 EC codewords (ISO/IEC 15438 §5.7). */
const EC_LEVEL = 5;
const EC_CODEWORDS = 2 ** (EC_LEVEL + 1);

/**
 * Byte Compaction (ISO/IEC 15438 §5.4.3), mandatory for the TED because text compaction
 * mangles accented characters (REFERENCE §3.3). Latch 924 when the length is a multiple of 6,
 * otherwise 901; each 6-byte group becomes 5 base-900 codewords (48 bits: exact in a double),
 * and with 901 the remaining 1..5 bytes are one codeword each. We do this ourselves and hand
 * bwip-js raw codewords because its encoder picks compaction modes on its own.
 */
function byteCompaction(bytes: Uint8Array): number[] {
  const out = [bytes.length % 6 === 0 ? 924 : 901];
  let i = 0;
  for (; i + 6 <= bytes.length; i += 6) {
    let v = 0;
    for (let k = 0; k < 6; k++) v = v * 256 + (bytes[i + k] ?? 0);
    const group = [0, 0, 0, 0, 0];
    for (let k = 4; k >= 0; k--) {
      group[k] = v % 900;
      v = Math.floor(v / 900);
    }
    out.push(...group);
  }
  for (; i < bytes.length; i++) out.push(bytes[i] ?? 0);
  return out;
}

/**
 * Module sizes tried, largest first, as (pixels per module, image dpi): 7, 6 and 5 dots at
 * 600 dpi (0.296, 0.254, 0.212 mm), then 9 dots at 1200 dpi (0.19 mm). All respect the SII's
 * X ≥ 0.17 mm (6.7 mils); a whole number of image pixels per module means the image is never
 * resampled inside a module, and a 600/1200 dpi printer reproduces every module identically.
 */
const MODULE_STEPS = [
  { px: 7, dpi: 600 },
  { px: 6, dpi: 600 },
  { px: 5, dpi: 600 },
  { px: 9, dpi: 1200 },
] as const;

/**
 * Where the symbol must fit, in mm, tried in order of height. Letter: [MUE] allows up to
 * 4 × 9 cm and the Instructivo recommends ≤ 3 cm high, so ≤ 3 cm is tried first. Roll: the width
 * leaves a 0.25" quiet zone each side of the 80 mm paper, and the height goes straight to the
 * 4 cm limit because on a 203 dpi thermal head a bigger module matters more than a lower symbol.
 */
const SYMBOL_BOX: Record<PdfFormat, { maxWidth: number; heights: number[] }> = {
  letter: { maxWidth: 90, heights: [30, 40] },
  '80mm': { maxWidth: 66, heights: [40] },
};

/** The symbol's row height is 3 × X (REFERENCE §3.3). */
const ROW_HEIGHT_MODULES = 3;

export interface TedBarcode {
  /** 1-bit grayscale PNG of the symbol (no quiet zone: the layout keeps that white). */
  png: Buffer;
  /** Printed size in PDF points. */
  width: number;
  height: number;
  columns: number;
  rows: number;
  /** X-dimension in mm. */
  moduleMm: number;
}

function chooseGeometry(codewords: number, format: PdfFormat): { columns: number; px: number; dpi: number } {
  const box = SYMBOL_BOX[format];
  for (const maxHeight of box.heights) {
    for (const step of MODULE_STEPS) {
      const x = (step.px / step.dpi) * 25.4;
      // The widest symbol that fits is also the shortest one for this module size.
      const columns = Math.min(30, Math.floor((box.maxWidth / x - 69) / 17));
      if (columns < 1) continue;
      const rows = Math.max(3, Math.ceil(codewords / columns));
      if (rows <= 90 && rows * ROW_HEIGHT_MODULES * x <= maxHeight) return { columns, ...step };
    }
  }
  throw new Error(`TED too large for a PDF417 within the SII size limits (${codewords} codewords)`);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A 1-bit grayscale PNG, `px` pixels per module and 3·px pixels per row. Every symbol row is
 * written once (filter None) and repeated as all-zero "Up"-filtered scanlines, so deflate has
 * almost nothing to do. pdfkit embeds such a PNG's IDAT as is (FlateDecode + PNG predictor),
 * without decoding it.
 */
function symbolPng(pixs: ArrayLike<number>, cols: number, rows: number, px: number, dpi: number): Buffer {
  const width = cols * px;
  const lineHeight = ROW_HEIGHT_MODULES * px;
  const stride = Math.ceil(width / 8) + 1;
  const raw = Buffer.alloc(rows * lineHeight * stride);
  for (let r = 0; r < rows; r++) {
    const base = r * lineHeight * stride;
    raw.fill(0xff, base + 1, base + stride);
    for (let c = 0; c < cols; c++) {
      if (!pixs[r * cols + c]) continue;
      for (let p = c * px, end = p + px; p < end; p++) raw[base + 1 + (p >> 3)]! &= ~(0x80 >> (p & 7));
    }
    for (let k = 1; k < lineHeight; k++) raw[base + k * stride] = 2;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(rows * lineHeight, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // grayscale
  const phys = Buffer.alloc(9);
  const ppm = Math.round(dpi / 0.0254);
  phys.writeUInt32BE(ppm, 0);
  phys.writeUInt32BE(ppm, 4);
  phys[8] = 1; // unit: metre
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr),
    pngChunk('pHYs', phys),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The TED as a PDF417 image (REFERENCE §3.3): the exact ISO-8859-1 bytes of `ted`, Byte
 * Compaction, EC level 5, row height 3X, X ≥ 0.17 mm, sized to the format's box.
 *
 * Why an image and not vector modules: the SII prefers an embedded PNG and asks that vector
 * output be rasterised at ≥ 600 dpi ([MUE], REFERENCE §3.3). We rasterise ourselves at exactly
 * 600 dpi (1200 for the smallest module), each module a whole number of dots, so the printed
 * symbol does not depend on how a viewer or driver antialiases hundreds of tiny rectangles,
 * and the page needs one image draw instead of ~10⁴ path operations. bwip-js only computes the
 * module matrix (`raw`, ~4 ms); its PNG renderer (~190 ms, TOOLCHAIN §5) is not used.
 */
export function tedBarcode(ted: string, format: PdfFormat): TedBarcode {
  if (/[^\x00-\xff]/.test(ted)) throw new Error('The TED must contain only ISO-8859-1 characters');
  const data = byteCompaction(Buffer.from(ted, 'latin1'));
  // Symbol length descriptor + data + EC codewords (ISO/IEC 15438 §5.2); bwip-js pads the rest.
  const { columns, px, dpi } = chooseGeometry(1 + data.length + EC_CODEWORDS, format);
  const text = data.map((cw) => `^${String(cw).padStart(3, '0')}`).join('');
  const [symbol] = bwipjs.raw('pdf417', text, `raw eclevel=${EC_LEVEL} columns=${columns} rowmult=1`);
  if (!symbol || !('pixs' in symbol)) throw new Error('bwip-js returned no PDF417 matrix');
  const { pixs, pixx, pixy } = symbol;
  const moduleMm = (px / dpi) * 25.4;
  return {
    png: symbolPng(pixs, pixx, pixy, px, dpi),
    width: pixx * moduleMm * MM,
    height: pixy * ROW_HEIGHT_MODULES * moduleMm * MM,
    columns,
    rows: pixy,
    moduleMm,
  };
}

// ---------------------------------------------------------------------------------------------
// Drawing primitives
// ---------------------------------------------------------------------------------------------

type FontName = 'Helvetica' | 'Helvetica-Bold' | 'Helvetica-Oblique';
const REGULAR: FontName = 'Helvetica';
const BOLD: FontName = 'Helvetica-Bold';
const ITALIC: FontName = 'Helvetica-Oblique';

const INK = '#1a1a1a';
const MUTED = '#5a5a5a';
const RED = '#c8102e';
const RULE = '#b8b8b8';
const SHADE = '#ececec';

type Align = 'left' | 'center' | 'right';

/** pdfkit with the current font/size/colour remembered, fast single-line text and our own
 * greedy word wrap (measured once, so block heights are known before anything is drawn). */
class Pen {
  private font = '';
  private size = 0;
  private color = '';

  constructor(readonly doc: PDFKit.PDFDocument) {}

  private setFont(font: FontName, size: number): void {
    if (font !== this.font) {
      this.doc.font(font);
      this.font = font;
    }
    if (size !== this.size) {
      this.doc.fontSize(size);
      this.size = size;
    }
  }

  /** Only while a page is open: pdfkit writes the colour operator into the page content. */
  private setColor(color: string): void {
    if (color !== this.color) {
      this.doc.fillColor(color);
      this.color = color;
    }
  }

  /** Forget the remembered colour after graphics calls that change the fill colour. */
  resetColor(): void {
    this.color = '';
  }

  width(text: string, font: FontName, size: number): number {
    this.setFont(font, size);
    return this.doc.widthOfString(text);
  }

  /** Greedy word wrap; words longer than the width are split by characters. */
  wrap(text: string, font: FontName, size: number, maxWidth: number): string[] {
    const clean = printable(text).trim();
    if (!clean) return [];
    this.setFont(font, size);
    const fits = (s: string) => this.doc.widthOfString(s) <= maxWidth;
    if (fits(clean)) return [clean];
    const lines: string[] = [];
    let line = '';
    for (const word of clean.split(/\s+/)) {
      const candidate = line ? `${line} ${word}` : word;
      if (fits(candidate)) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      line = '';
      let rest = word;
      while (!fits(rest)) {
        // Longest prefix that fits (at least one character), by bisection: words can be long.
        let lo = 1;
        let hi = rest.length - 1;
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if (fits(rest.slice(0, mid))) lo = mid;
          else hi = mid - 1;
        }
        lines.push(rest.slice(0, lo));
        rest = rest.slice(lo);
      }
      line = rest;
    }
    if (line) lines.push(line);
    return lines;
  }

  /** One line of text; `x` is the left edge, the centre or the right edge depending on `align`. */
  text(text: string, x: number, y: number, font: FontName, size: number, color = INK, align: Align = 'left'): void {
    const s = printable(text);
    if (!s) return;
    this.setFont(font, size);
    this.setColor(color);
    let left = x;
    if (align !== 'left') {
      const w = this.doc.widthOfString(s);
      left = align === 'right' ? x - w : x - w / 2;
    }
    this.doc.text(s, left, y, { lineBreak: false });
  }

  lines(
    lines: string[],
    x: number,
    y: number,
    font: FontName,
    size: number,
    leading: number,
    color = INK,
    align: Align = 'left',
  ): number {
    for (let i = 0; i < lines.length; i++) this.text(lines[i] ?? '', x, y + i * leading, font, size, color, align);
    return lines.length * leading;
  }

  rule(x1: number, x2: number, y: number, color = RULE, width = 0.5): void {
    this.doc.moveTo(x1, y).lineTo(x2, y).lineWidth(width).strokeColor(color).stroke();
  }

  fillRect(x: number, y: number, w: number, h: number, color: string): void {
    this.doc.rect(x, y, w, h).fillColor(color).fill();
    this.resetColor();
  }
}

/** Something with a known height that can draw itself at a given top y. */
interface Block {
  height: number;
  draw(y: number): void;
}

/** Rows that may break across pages; `header` is repeated at the top of each continuation. */
interface Flow {
  header?: Block;
  rows: Block[];
}

interface Layout {
  pageWidth: number;
  /** Fixed page height, or null to size each page to its content (the roll). */
  pageHeight: number | null;
  top: number;
  /** Flow rows and the final block must end above this y. */
  bottom: number;
  bottomMargin: number;
  firstPage: Block[];
  continuation: Block[];
  flows: Flow[];
  /** Totals and stamp: together, on the last page. */
  final: Block;
  /** Letter: the final block sits at the bottom of the page, where [MUE] puts the stamp. */
  finalAtBottom: boolean;
  /** Page furniture drawn before (underlay) and after the content. */
  underlay(): void;
  overlay(page: number, pages: number): void;
}

interface PlacedPage {
  items: Array<{ block: Block; y: number }>;
  end: number;
}

/** Longest page the roll uses: 200 in (14 400 pt), the page-size limit of PDF 1.x viewers
 * (ISO 32000-1 Annex C.2). Longer receipts continue on a further page. */
const ROLL_MAX_PAGE = 14_400;

function paginate(layout: Layout): PlacedPage[] {
  const pages: PlacedPage[] = [];
  let page: PlacedPage = { items: [], end: layout.top };
  let y = layout.top;
  let rowsOnPage = 0;
  const place = (block: Block, at = y) => {
    page.items.push({ block, y: at });
    y = at + block.height;
    page.end = y;
  };
  const newPage = (blocks: Block[]) => {
    page = { items: [], end: layout.top };
    pages.push(page);
    y = layout.top;
    rowsOnPage = 0;
    for (const b of blocks) place(b);
  };
  newPage(layout.firstPage);
  for (const flow of layout.flows) {
    const first = flow.rows[0];
    if (!first) continue;
    const headerHeight = flow.header?.height ?? 0;
    if (rowsOnPage > 0 && y + headerHeight + first.height > layout.bottom) newPage(layout.continuation);
    if (flow.header) place(flow.header);
    for (const row of flow.rows) {
      if (rowsOnPage > 0 && y + row.height > layout.bottom) {
        newPage(layout.continuation);
        if (flow.header) place(flow.header);
      }
      place(row);
      rowsOnPage++;
    }
  }
  if (y + layout.final.height > layout.bottom) newPage(layout.continuation);
  place(layout.final, layout.finalAtBottom ? Math.max(y, layout.bottom - layout.final.height) : y);
  return pages;
}

// ---------------------------------------------------------------------------------------------
// Shared blocks
// ---------------------------------------------------------------------------------------------

const gap = (height: number): Block => ({ height, draw() {} });

/** The stamp: quiet zone, symbol, quiet zone, legend ([MUE]; REFERENCE §3.3, font ≥ 6 pt). */
function stampBlock(pen: Pen, doc: DteDocument, barcode: TedBarcode | null, x: number, captionSize: number): Block {
  if (!barcode) return draftStampBlock(pen, x, captionSize);
  const quiet = 0.25 * 72; // 0.25" on every side (REFERENCE §3.3)
  const year = doc.issuer.resolutionDate.slice(0, 4);
  const caption = [
    'Timbre Electrónico SII',
    `Res. ${doc.issuer.resolutionNumber} de ${year}`,
    'Verifique documento: www.sii.cl',
  ];
  const leading = captionSize + 2.5;
  return {
    height: quiet + barcode.height + quiet + caption.length * leading,
    draw(y) {
      // White under the symbol and its quiet zone, whatever was drawn before (sandbox mark).
      pen.fillRect(x - quiet, y, barcode.width + 2 * quiet, barcode.height + 2 * quiet, '#ffffff');
      pen.doc.image(barcode.png, x, y + quiet, { width: barcode.width, height: barcode.height });
      const cx = x + barcode.width / 2;
      const cy = y + quiet + barcode.height + quiet;
      pen.text(caption[0] ?? '', cx, cy, BOLD, captionSize, INK, 'center');
      pen.lines(caption.slice(1), cx, cy + leading, REGULAR, captionSize, leading, INK, 'center');
    },
  };
}

/** A draft has no TED: the stamp's place says so, in the symbol's size. */
function draftStampBlock(pen: Pen, x: number, captionSize: number): Block {
  const width = 2 * 72;
  const height = 1 * 72;
  return {
    height: height + 0.5 * 72,
    draw(y) {
      pen.doc
        .rect(x, y + 18, width, height)
        .dash(3, { space: 3 })
        .lineWidth(0.75)
        .strokeColor(RULE)
        .stroke()
        .undash();
      pen.text(
        'Sin timbre electrónico',
        x + width / 2,
        y + 18 + height / 2 - captionSize,
        BOLD,
        captionSize,
        MUTED,
        'center',
      );
      pen.text('(borrador, sin folio)', x + width / 2, y + 18 + height / 2 + 2, REGULAR, captionSize, MUTED, 'center');
    },
  };
}

function sandboxBand(pen: Pen, x: number, y: number, width: number, height: number, size: number, mark: string): void {
  pen.fillRect(x, y, width, height, RED);
  pen.text(mark, x + width / 2, y + (height - size) / 2 + 0.5, BOLD, size, '#ffffff', 'center');
}

function newDocument(doc: DteDocument): PDFKit.PDFDocument {
  const title = `${DTE_NAMES[doc.type]} Nº ${doc.folio}`;
  return new PDFDocument({
    autoFirstPage: false,
    compress: true,
    margin: 0,
    // Transparency (the sandbox watermark) is a PDF 1.4 feature.
    pdfVersion: '1.4',
    info: {
      Title: printable(title),
      Author: printable(doc.issuer.name),
      Subject: `${formatRutDisplay(doc.issuer.rut)} ${title}`,
      Creator: 'Timbre',
      Producer: 'Timbre',
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Letter layout
// ---------------------------------------------------------------------------------------------

const LETTER = { width: 612, height: 792 };
const MARGIN = 15 * MM;
/** The symbol's left edge: ≥ 2 cm from the paper edge ([MUE]). */
const STAMP_X = 22 * MM;

function letterLayout(pen: Pen, doc: DteDocument, barcode: TedBarcode | null, mark: string | null): Layout {
  const left = MARGIN;
  const right = LETTER.width - MARGIN;
  const contentWidth = right - left;

  // Header: issuer on the left, the red box on the right ([MUE] "recuadro" with RUT, type, folio).
  const boxWidth = 74 * MM;
  const boxX = right - boxWidth;
  const boxTitle = pen.wrap(DTE_NAMES[doc.type], BOLD, 12, boxWidth - 20);
  const boxLeading = 16;
  const boxHeight = 12 + boxLeading * (boxTitle.length + 2) + 4;
  const office = doc.issuer.city || doc.issuer.comuna;
  const issuerWidth = boxX - left - 18;
  const issuerName = pen.wrap(doc.issuer.name, BOLD, 13, issuerWidth);
  const issuerLines = [
    ...pen.wrap(doc.issuer.giro, REGULAR, 8.5, issuerWidth),
    ...pen.wrap(doc.issuer.address, REGULAR, 8.5, issuerWidth),
    ...pen.wrap([doc.issuer.comuna, doc.issuer.city].filter(Boolean).join(', '), REGULAR, 8.5, issuerWidth),
  ];
  const acteco = doc.type === 39 || doc.type === 41 ? [] : doc.issuer.acteco;
  if (acteco.length > 0) issuerLines.push(`Actividad económica: ${acteco.join(' · ')}`);
  const issuerHeight = issuerName.length * 15 + 3 + issuerLines.length * 11;
  const header: Block = {
    height: Math.max(issuerHeight, boxHeight + (office ? 16 : 0)) + 12,
    draw(y) {
      pen.doc.rect(boxX, y, boxWidth, boxHeight).lineWidth(2).strokeColor(RED).stroke();
      const cx = boxX + boxWidth / 2;
      let by = y + 12;
      pen.text(`R.U.T.: ${formatRutDisplay(doc.issuer.rut)}`, cx, by, BOLD, 12, RED, 'center');
      by += boxLeading;
      by += pen.lines(boxTitle, cx, by, BOLD, 12, boxLeading, RED, 'center');
      pen.text(`Nº ${doc.folio}`, cx, by, BOLD, 12, RED, 'center');
      if (office) pen.text(`S.I.I. - ${office.toUpperCase()}`, cx, y + boxHeight + 5, BOLD, 8.5, INK, 'center');
      const iy = y + pen.lines(issuerName, left, y, BOLD, 13, 15) + 3;
      pen.lines(issuerLines, left, iy, REGULAR, 8.5, 11, MUTED);
    },
  };

  // Receiver and document data: a framed two-column grid.
  const fields: Array<[string, string | undefined]> = [];
  const r = doc.receiver;
  const t = transferText(doc);
  if (hasReceiver(doc)) {
    fields.push(['Señor(es):', r.name], ['R.U.T.:', formatRutDisplay(r.rut)]);
    fields.push(['Giro:', r.activity], ['Fecha emisión:', formatDateLong(doc.date)]);
    fields.push(['Dirección:', r.address], ['Comuna:', r.comuna]);
    fields.push(['Ciudad:', r.city], ['Correo:', r.email]);
  } else {
    fields.push(['Fecha emisión:', formatDateLong(doc.date)], ['', undefined]);
  }
  if (t.transfer) fields.push(['Traslado:', t.transfer], ['Despacho:', t.dispatch]);
  const pad = 7;
  const colX = [left + pad, left + contentWidth * 0.6];
  const labelWidth = [0, 1].map((c) => {
    const labels = fields.filter((_, i) => i % 2 === c).map((f) => f[0]);
    return Math.max(0, ...labels.map((l) => pen.width(l, BOLD, 8.5))) + 8;
  });
  const colRight = [left + contentWidth * 0.6 - 10, right - pad];
  const gridRows: Array<{
    cells: Array<{ label: string; lines: string[]; x: number; valueX: number }>;
    height: number;
  }> = [];
  for (let i = 0; i < fields.length; i += 2) {
    const cells = [0, 1].flatMap((c) => {
      const f = fields[i + c];
      const x = colX[c] ?? left;
      const valueX = x + (labelWidth[c] ?? 0);
      if (!f?.[1]) return [];
      return [{ label: f[0], lines: pen.wrap(f[1], REGULAR, 8.5, (colRight[c] ?? right) - valueX), x, valueX }];
    });
    if (cells.length === 0) continue;
    gridRows.push({ cells, height: Math.max(...cells.map((c) => c.lines.length)) * 11 + 2 });
  }
  const gridHeight = gridRows.reduce((s, g) => s + g.height, 0) + 2 * pad - 2;
  const receiver: Block = {
    height: gridHeight + 12,
    draw(y) {
      pen.doc.roundedRect(left, y, contentWidth, gridHeight, 3).lineWidth(0.75).strokeColor(RULE).stroke();
      let gy = y + pad;
      for (const row of gridRows) {
        for (const cell of row.cells) {
          pen.text(cell.label, cell.x, gy, BOLD, 8.5);
          pen.lines(cell.lines, cell.valueX, gy, REGULAR, 8.5, 11);
        }
        gy += row.height;
      }
    },
  };

  // Lines table.
  const cols = {
    code: { x: left, w: 52 },
    desc: { x: left + 52, w: contentWidth - 52 - 44 - 34 - 62 - 48 - 66 },
    qty: { x: 0, w: 44 },
    unit: { x: 0, w: 34 },
    price: { x: 0, w: 62 },
    disc: { x: 0, w: 48 },
    amount: { x: 0, w: 66 },
  };
  cols.qty.x = cols.desc.x + cols.desc.w;
  cols.unit.x = cols.qty.x + cols.qty.w;
  cols.price.x = cols.unit.x + cols.unit.w;
  cols.disc.x = cols.price.x + cols.price.w;
  cols.amount.x = cols.disc.x + cols.disc.w;
  const cellPad = 4;
  const tableHeader: Block = {
    height: 17,
    draw(y) {
      pen.fillRect(left, y, contentWidth, 15, SHADE);
      const ty = y + 4.5;
      pen.text('Código', cols.code.x + cellPad, ty, BOLD, 7.5);
      pen.text('Descripción', cols.desc.x + cellPad, ty, BOLD, 7.5);
      pen.text('Cantidad', cols.qty.x + cols.qty.w - cellPad, ty, BOLD, 7.5, INK, 'right');
      pen.text('Unidad', cols.unit.x + cellPad, ty, BOLD, 7.5);
      pen.text('P. unitario', cols.price.x + cols.price.w - cellPad, ty, BOLD, 7.5, INK, 'right');
      pen.text('Descto.', cols.disc.x + cols.disc.w - cellPad, ty, BOLD, 7.5, INK, 'right');
      pen.text('Valor', cols.amount.x + cols.amount.w - cellPad, ty, BOLD, 7.5, INK, 'right');
    },
  };
  const lineRow = (line: DocumentLine): Block => {
    const w = cols.desc.w - 2 * cellPad;
    const name = pen.wrap(line.name + (line.exempt ? ' (exento)' : ''), REGULAR, 8, w);
    const detail = line.description ? pen.wrap(line.description, ITALIC, 7, w) : [];
    const code = line.code ? pen.wrap(line.code, REGULAR, 7.5, cols.code.w - 2 * cellPad).slice(0, 2) : [];
    const unit = line.unit ? pen.wrap(line.unit, REGULAR, 7.5, cols.unit.w - 2 * cellPad).slice(0, 2) : [];
    const height = 4 + Math.max(name.length * 10 + detail.length * 8.5, code.length * 9.5, unit.length * 9.5) + 3;
    return {
      height,
      draw(y) {
        const ty = y + 4;
        pen.lines(code, cols.code.x + cellPad, ty, REGULAR, 7.5, 9.5);
        const dy = ty + pen.lines(name, cols.desc.x + cellPad, ty, REGULAR, 8, 10);
        pen.lines(detail, cols.desc.x + cellPad, dy, ITALIC, 7, 8.5, MUTED);
        pen.text(formatDecimal(line.qty), cols.qty.x + cols.qty.w - cellPad, ty, REGULAR, 8, INK, 'right');
        pen.lines(unit, cols.unit.x + cellPad, ty, REGULAR, 7.5, 9.5);
        if (line.price)
          pen.text(formatDecimal(line.price), cols.price.x + cols.price.w - cellPad, ty, REGULAR, 8, INK, 'right');
        const disc = discountText(line);
        if (disc) pen.text(disc, cols.disc.x + cols.disc.w - cellPad, ty, REGULAR, 8, INK, 'right');
        pen.text(formatAmount(line.amount), cols.amount.x + cols.amount.w - cellPad, ty, REGULAR, 8, INK, 'right');
        pen.rule(left, right, y + height - 0.5, '#dddddd');
      },
    };
  };
  const flows: Flow[] = [{ header: tableHeader, rows: doc.lines.map(lineRow) }];

  // References (required on 56/61: [FMT] §E).
  if (doc.refs.length > 0) {
    const rc = {
      type: { x: left, w: 150 },
      folio: { x: left + 150, w: 78 },
      date: { x: left + 228, w: 64 },
      reason: { x: left + 292, w: contentWidth - 292 },
    };
    const refHeader: Block = {
      height: 39,
      draw(y) {
        pen.text('Referencias', left, y + 10, BOLD, 8.5);
        pen.fillRect(left, y + 22, contentWidth, 15, SHADE);
        const ty = y + 26.5;
        pen.text('Tipo de documento', rc.type.x + cellPad, ty, BOLD, 7.5);
        pen.text('Folio', rc.folio.x + cellPad, ty, BOLD, 7.5);
        pen.text('Fecha', rc.date.x + cellPad, ty, BOLD, 7.5);
        pen.text('Razón de la referencia', rc.reason.x + cellPad, ty, BOLD, 7.5);
      },
    };
    const refRow = (ref: DocumentReference): Block => {
      const type = pen.wrap(referenceTypeName(ref.type), REGULAR, 8, rc.type.w - 2 * cellPad);
      const reason = pen.wrap(referenceReason(ref), REGULAR, 8, rc.reason.w - 2 * cellPad);
      const height = 4 + Math.max(type.length, reason.length, 1) * 10 + 3;
      return {
        height,
        draw(y) {
          const ty = y + 4;
          pen.lines(type, rc.type.x + cellPad, ty, REGULAR, 8, 10);
          pen.text(ref.folio, rc.folio.x + cellPad, ty, REGULAR, 8);
          pen.text(formatDateShort(ref.date), rc.date.x + cellPad, ty, REGULAR, 8);
          pen.lines(reason, rc.reason.x + cellPad, ty, REGULAR, 8, 10);
          pen.rule(left, right, y + height - 0.5, '#dddddd');
        },
      };
    };
    flows.push({ header: refHeader, rows: doc.refs.map(refRow) });
  }

  // Final block: stamp bottom-left, totals bottom-right.
  const stamp = stampBlock(pen, doc, barcode, STAMP_X, 7.5);
  const totals = totalRows(doc);
  const totalsWidth = 72 * MM;
  const totalsX = right - totalsWidth;
  const totalsLeading = 15;
  const totalsHeight = totals.length * totalsLeading + 10;
  const final: Block = {
    height: Math.max(stamp.height, totalsHeight + 24) + 4,
    draw(y) {
      stamp.draw(y);
      const ty = y + 18;
      pen.doc.roundedRect(totalsX, ty, totalsWidth, totalsHeight, 3).lineWidth(0.75).strokeColor(RULE).stroke();
      let ry = ty + 7;
      for (const row of totals) {
        if (row.strong) {
          pen.fillRect(totalsX + 0.5, ry - 3.5, totalsWidth - 1, totalsLeading, SHADE);
          pen.text(row.label, totalsX + 10, ry, BOLD, 10);
          pen.text(row.value, right - 10, ry, BOLD, 10, INK, 'right');
        } else {
          pen.text(row.label, totalsX + 10, ry + 1, REGULAR, 8.5, MUTED);
          pen.text(row.value, right - 10, ry + 1, REGULAR, 8.5, INK, 'right');
        }
        ry += totalsLeading;
      }
    },
  };

  const footerY = LETTER.height - 10 * MM;
  return {
    pageWidth: LETTER.width,
    pageHeight: LETTER.height,
    top: MARGIN,
    bottom: footerY - 6,
    bottomMargin: 0,
    firstPage: [header, receiver],
    continuation: [header],
    flows,
    final,
    finalAtBottom: true,
    underlay() {
      if (!mark) return;
      // A large, faint diagonal mark across the middle of the page, plus a band at the top.
      const d = pen.doc;
      const cx = LETTER.width / 2;
      const cy = LETTER.height / 2;
      const size = Math.min(40, 520 / pen.width(mark, BOLD, 1));
      d.save();
      d.rotate(-35, { origin: [cx, cy] });
      d.fillOpacity(0.1);
      pen.resetColor();
      pen.text(mark, cx, cy - size / 2, BOLD, size, RED, 'center');
      d.restore();
      pen.resetColor();
      sandboxBand(pen, left, MARGIN - 26, contentWidth, 16, 9, mark);
    },
    overlay(page, pages) {
      if (pages > 1) pen.text(`Página ${page} de ${pages}`, right, footerY, REGULAR, 7.5, MUTED, 'right');
    },
  };
}

function discountText(line: DocumentLine): string {
  if (line.discountAmount) return formatAmount(line.discountAmount);
  if (line.discountPct) return `${formatDecimal(line.discountPct)}%`;
  return '';
}

// ---------------------------------------------------------------------------------------------
// 80 mm roll layout
// ---------------------------------------------------------------------------------------------

const ROLL_WIDTH = 80 * MM;
const ROLL_MARGIN = 4 * MM;

function rollLayout(pen: Pen, doc: DteDocument, barcode: TedBarcode | null, mark: string | null): Layout {
  const left = ROLL_MARGIN;
  const right = ROLL_WIDTH - ROLL_MARGIN;
  const width = right - left;
  const cx = ROLL_WIDTH / 2;
  const blocks: Block[] = [];

  const centred = (text: string, font: FontName, size: number, leading: number, color = INK, after = 0): Block => {
    const lines = pen.wrap(text, font, size, width);
    return {
      height: lines.length * leading + after,
      draw: (y) => pen.lines(lines, cx, y, font, size, leading, color, 'center'),
    };
  };
  const labelled = (label: string, value: string | undefined, size = 7.5): Block | null => {
    if (!value) return null;
    const labelWidth = pen.width(`${label} `, BOLD, size);
    const lines = pen.wrap(value, REGULAR, size, width - labelWidth);
    return {
      height: lines.length * (size + 2),
      draw(y) {
        pen.text(label, left, y, BOLD, size);
        pen.lines(lines, left + labelWidth, y, REGULAR, size, size + 2);
      },
    };
  };

  if (mark) blocks.push({ height: 20, draw: (y) => sandboxBand(pen, left, y, width, 14, 7.5, mark) });
  blocks.push(centred(doc.issuer.name, BOLD, 10, 12, INK, 2));
  blocks.push(centred(doc.issuer.giro, REGULAR, 7, 8.5, MUTED));
  blocks.push(centred(doc.issuer.address, REGULAR, 7, 8.5, MUTED));
  blocks.push(centred([doc.issuer.comuna, doc.issuer.city].filter(Boolean).join(', '), REGULAR, 7, 8.5, MUTED, 6));

  const boxWidth = width - 16;
  const title = pen.wrap(DTE_NAMES[doc.type], BOLD, 9, boxWidth - 12);
  const boxHeight = 8 + 12 * (title.length + 2) + 2;
  const office = doc.issuer.city || doc.issuer.comuna;
  blocks.push({
    height: boxHeight + (office ? 14 : 4) + 6,
    draw(y) {
      pen.doc
        .rect(cx - boxWidth / 2, y, boxWidth, boxHeight)
        .lineWidth(1.5)
        .strokeColor(RED)
        .stroke();
      let by = y + 8;
      pen.text(`R.U.T.: ${formatRutDisplay(doc.issuer.rut)}`, cx, by, BOLD, 9, RED, 'center');
      by += 12 + pen.lines(title, cx, by + 12, BOLD, 9, 12, RED, 'center');
      pen.text(`Nº ${doc.folio}`, cx, by, BOLD, 9, RED, 'center');
      if (office) pen.text(`S.I.I. - ${office.toUpperCase()}`, cx, y + boxHeight + 4, BOLD, 7, INK, 'center');
    },
  });

  const info: Array<Block | null> = [labelled('Fecha emisión:', formatDateLong(doc.date))];
  if (hasReceiver(doc)) {
    const r = doc.receiver;
    info.push(
      labelled('R.U.T.:', formatRutDisplay(r.rut)),
      labelled('Señor(es):', r.name),
      labelled('Giro:', r.activity),
      labelled('Dirección:', r.address),
      labelled('Comuna:', [r.comuna, r.city].filter(Boolean).join(', ')),
    );
  }
  const t = transferText(doc);
  info.push(labelled('Traslado:', t.transfer), labelled('Despacho:', t.dispatch));
  for (const b of info) if (b) blocks.push(b);
  blocks.push(gap(6));

  const tableHeader: Block = {
    height: 16,
    draw(y) {
      pen.rule(left, right, y, INK, 0.75);
      pen.text('Descripción', left, y + 4, BOLD, 7.5);
      pen.text('Valor', right, y + 4, BOLD, 7.5, INK, 'right');
      pen.rule(left, right, y + 13, INK, 0.75);
    },
  };
  const lineRow = (line: DocumentLine): Block => {
    const name = pen.wrap(line.name + (line.exempt ? ' (exento)' : ''), REGULAR, 7.5, width);
    const detail = line.description ? pen.wrap(line.description, ITALIC, 6.5, width) : [];
    const qty = `${formatDecimal(line.qty)}${line.unit ? ` ${printable(line.unit)}` : ''}`;
    const disc = discountText(line);
    const calc = `${qty}${line.price ? ` x ${formatDecimal(line.price)}` : ''}${disc ? `  desc. ${disc}` : ''}`;
    return {
      height: name.length * 9 + detail.length * 8 + 9 + 3,
      draw(y) {
        let ly = y + pen.lines(name, left, y, REGULAR, 7.5, 9);
        ly += pen.lines(detail, left, ly, ITALIC, 6.5, 8, MUTED);
        pen.text(line.code ? `${calc}  [${line.code}]` : calc, left + 6, ly, REGULAR, 7, MUTED);
        pen.text(formatAmount(line.amount), right, ly, REGULAR, 7.5, INK, 'right');
      },
    };
  };
  const flows: Flow[] = [{ header: tableHeader, rows: doc.lines.map(lineRow) }];

  if (doc.refs.length > 0) {
    const refHeader: Block = {
      height: 16,
      draw(y) {
        pen.rule(left, right, y + 2, RULE);
        pen.text('Referencias', left, y + 6, BOLD, 7.5);
      },
    };
    const refRow = (ref: DocumentReference): Block => {
      const head = pen.wrap(
        `${referenceTypeName(ref.type)} Nº ${ref.folio} del ${formatDateShort(ref.date)}`,
        REGULAR,
        7,
        width,
      );
      const reason = pen.wrap(referenceReason(ref), ITALIC, 6.5, width);
      return {
        height: head.length * 8.5 + reason.length * 8 + 3,
        draw(y) {
          const ry = y + pen.lines(head, left, y, REGULAR, 7, 8.5);
          pen.lines(reason, left, ry, ITALIC, 6.5, 8, MUTED);
        },
      };
    };
    flows.push({ header: refHeader, rows: doc.refs.map(refRow) });
  }

  const totals = totalRows(doc);
  const stamp = stampBlock(pen, doc, barcode, cx - (barcode?.width ?? 144) / 2, 7);
  const totalsHeight = 6 + totals.reduce((s, r) => s + (r.strong ? 13 : 10), 0);
  const final: Block = {
    height: totalsHeight + stamp.height + 4,
    draw(y) {
      pen.rule(left, right, y + 2, INK, 0.75);
      let ty = y + 7;
      for (const row of totals) {
        const size = row.strong ? 9.5 : 7.5;
        pen.text(row.label, left, ty, row.strong ? BOLD : REGULAR, size, row.strong ? INK : MUTED);
        pen.text(row.value, right, ty, row.strong ? BOLD : REGULAR, size, INK, 'right');
        ty += row.strong ? 13 : 10;
      }
      stamp.draw(y + totalsHeight);
    },
  };

  return {
    pageWidth: ROLL_WIDTH,
    pageHeight: null,
    top: ROLL_MARGIN,
    bottom: ROLL_MAX_PAGE - ROLL_MARGIN,
    bottomMargin: ROLL_MARGIN,
    firstPage: blocks,
    continuation: mark ? [blocks[0] ?? gap(0)] : [],
    flows,
    final,
    finalAtBottom: false,
    underlay() {},
    overlay() {},
  };
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

/**
 * Renders the printed representation of `doc` with `ted` (the flattened `<TED version="1.0">…`
 * element, every character ≤ U+00FF) as its PDF417 stamp. Long documents paginate: the table
 * header repeats on each page, and the totals and stamp are on the last one.
 */
export async function renderPdf(doc: DteDocument, ted: string, opts: PdfOptions): Promise<Buffer> {
  const barcode = opts.draft ? null : tedBarcode(ted, opts.format);
  const mark = opts.draft ? DRAFT_MARK : opts.sandbox ? SANDBOX_MARK : null;
  const pdf = newDocument(doc);
  const pen = new Pen(pdf);
  const layout = opts.format === '80mm' ? rollLayout(pen, doc, barcode, mark) : letterLayout(pen, doc, barcode, mark);
  const pages = paginate(layout);

  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });

  for (const [i, page] of pages.entries()) {
    const height = layout.pageHeight ?? Math.ceil(page.end + layout.bottomMargin);
    pdf.addPage({ size: [layout.pageWidth, height], margin: 0 });
    pen.resetColor();
    layout.underlay();
    for (const { block, y } of page.items) block.draw(y);
    layout.overlay(i + 1, pages.length);
  }
  pdf.end();
  await finished;
  return Buffer.concat(chunks);
}
