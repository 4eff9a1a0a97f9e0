/**
 * The TED as a PDF417 symbol (docs/sii-reference.md §3.3 digest of the SII's Instructivo and [MUE]).
 *
 * The PDF417 path is the expensive part, so it avoids bwip-js's renderer (its PNG output costs
 * ~190 ms, measured): bwip-js only turns our codewords into the module matrix, and the
 * image is a 1-bit PNG written here with node:zlib. See `tedBarcode` for the reasoning.
 */
import { crc32, deflateSync } from 'node:zlib';
import bwipjs from 'bwip-js';
import { MM } from './units.js';
/** Error-correction level 5 (docs/sii-reference.md §3.3): 2^(5+1) = 64 EC codewords (ISO/IEC 15438 §5.7). */
const EC_LEVEL = 5;
const EC_CODEWORDS = 2 ** (EC_LEVEL + 1);
/**
 * Byte Compaction (ISO/IEC 15438 §5.4.3), mandatory for the TED because text compaction
 * mangles accented characters (docs/sii-reference.md §3.3). Latch 924 when the length is a multiple of 6,
 * otherwise 901; each 6-byte group becomes 5 base-900 codewords (48 bits: exact in a double),
 * and with 901 the remaining 1..5 bytes are one codeword each. We do this ourselves and hand
 * bwip-js raw codewords because its encoder picks compaction modes on its own.
 */
function byteCompaction(bytes) {
    const out = [bytes.length % 6 === 0 ? 924 : 901];
    let i = 0;
    for (; i + 6 <= bytes.length; i += 6) {
        let v = 0;
        for (let k = 0; k < 6; k++)
            v = v * 256 + (bytes[i + k] ?? 0);
        const group = [0, 0, 0, 0, 0];
        for (let k = 4; k >= 0; k--) {
            group[k] = v % 900;
            v = Math.floor(v / 900);
        }
        out.push(...group);
    }
    for (; i < bytes.length; i++)
        out.push(bytes[i] ?? 0);
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
];
/**
 * Where the symbol must fit, in mm, tried in order of height. Letter: [MUE] allows up to
 * 4 × 9 cm and the Instructivo recommends ≤ 3 cm high, so ≤ 3 cm is tried first. Roll: the width
 * leaves a 0.25" quiet zone each side of the 80 mm paper, and the height goes straight to the
 * 4 cm limit because on a 203 dpi thermal head a bigger module matters more than a lower symbol.
 */
const SYMBOL_BOX = {
    letter: { maxWidth: 90, heights: [30, 40] },
    '80mm': { maxWidth: 66, heights: [40] },
};
/** The symbol's row height is 3 × X (docs/sii-reference.md §3.3). */
const ROW_HEIGHT_MODULES = 3;
function chooseGeometry(codewords, format) {
    const box = SYMBOL_BOX[format];
    for (const maxHeight of box.heights) {
        for (const step of MODULE_STEPS) {
            const x = (step.px / step.dpi) * 25.4;
            // The widest symbol that fits is also the shortest one for this module size.
            const columns = Math.min(30, Math.floor((box.maxWidth / x - 69) / 17));
            if (columns < 1)
                continue;
            const rows = Math.max(3, Math.ceil(codewords / columns));
            if (rows <= 90 && rows * ROW_HEIGHT_MODULES * x <= maxHeight)
                return { columns, ...step };
        }
    }
    throw new Error(`TED too large for a PDF417 within the SII size limits (${codewords} codewords)`);
}
function pngChunk(type, data) {
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
function symbolPng(pixs, cols, rows, px, dpi) {
    const width = cols * px;
    const lineHeight = ROW_HEIGHT_MODULES * px;
    const stride = Math.ceil(width / 8) + 1;
    const raw = Buffer.alloc(rows * lineHeight * stride);
    for (let r = 0; r < rows; r++) {
        const base = r * lineHeight * stride;
        raw.fill(0xff, base + 1, base + stride);
        for (let c = 0; c < cols; c++) {
            if (!pixs[r * cols + c])
                continue;
            for (let p = c * px, end = p + px; p < end; p++)
                raw[base + 1 + (p >> 3)] &= ~(0x80 >> (p & 7));
        }
        for (let k = 1; k < lineHeight; k++)
            raw[base + k * stride] = 2;
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
 * The TED as a PDF417 image (docs/sii-reference.md §3.3): the exact ISO-8859-1 bytes of `ted`, Byte
 * Compaction, EC level 5, row height 3X, X ≥ 0.17 mm, sized to the format's box.
 *
 * Why an image and not vector modules: the SII prefers an embedded PNG and asks that vector
 * output be rasterised at ≥ 600 dpi ([MUE], docs/sii-reference.md §3.3). We rasterise ourselves at exactly
 * 600 dpi (1200 for the smallest module), each module a whole number of dots, so the printed
 * symbol does not depend on how a viewer or driver antialiases hundreds of tiny rectangles,
 * and the page needs one image draw instead of ~10⁴ path operations. bwip-js only computes the
 * module matrix (`raw`, ~4 ms); its PNG renderer (~190 ms, measured) is not used.
 */
export function tedBarcode(ted, format) {
    if (/[^\x00-\xff]/.test(ted))
        throw new Error('The TED must contain only ISO-8859-1 characters');
    const data = byteCompaction(Buffer.from(ted, 'latin1'));
    // Symbol length descriptor + data + EC codewords (ISO/IEC 15438 §5.2); bwip-js pads the rest.
    const { columns, px, dpi } = chooseGeometry(1 + data.length + EC_CODEWORDS, format);
    const text = data.map((cw) => `^${String(cw).padStart(3, '0')}`).join('');
    const [symbol] = bwipjs.raw('pdf417', text, `raw eclevel=${EC_LEVEL} columns=${columns} rowmult=1`);
    if (!symbol || !('pixs' in symbol))
        throw new Error('bwip-js returned no PDF417 matrix');
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
