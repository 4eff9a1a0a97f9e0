/**
 * Shared drawing for both layouts: fonts and colours, the `Pen` (pdfkit with remembered state and
 * our own word wrap), blocks and pagination, the TED stamp block and the sandbox band.
 */
import PDFDocument from 'pdfkit';
import { formatRutDisplay } from '../rut.js';
import { MM } from './units.js';
export { MM };
import { ACUSE_LEGEND, documentTitle, printable } from './words.js';
export const SANDBOX_MARK = 'SANDBOX — SIN VALIDEZ TRIBUTARIA';
export const DRAFT_MARK = 'BORRADOR — SIN FOLIO';
export const CERTIFICATION_MARK = 'CERTIFICACIÓN SII — SIN VALIDEZ TRIBUTARIA';
export const REGULAR = 'Helvetica';
export const BOLD = 'Helvetica-Bold';
export const ITALIC = 'Helvetica-Oblique';
export const INK = '#1a1a1a';
export const MUTED = '#5a5a5a';
export const RED = '#c8102e';
export const RULE = '#b8b8b8';
export const SHADE = '#ececec';
/** pdfkit with the current font/size/colour remembered, fast single-line text and our own
 * greedy word wrap (measured once, so block heights are known before anything is drawn). */
export class Pen {
    doc;
    font = '';
    size = 0;
    color = '';
    constructor(doc) {
        this.doc = doc;
    }
    setFont(font, size) {
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
    setColor(color) {
        if (color !== this.color) {
            this.doc.fillColor(color);
            this.color = color;
        }
    }
    /** Forget the remembered colour after graphics calls that change the fill colour. */
    resetColor() {
        this.color = '';
    }
    width(text, font, size) {
        this.setFont(font, size);
        return this.doc.widthOfString(text);
    }
    /** Greedy word wrap; words longer than the width are split by characters. */
    wrap(text, font, size, maxWidth) {
        const clean = printable(text).trim();
        if (!clean)
            return [];
        this.setFont(font, size);
        const fits = (s) => this.doc.widthOfString(s) <= maxWidth;
        if (fits(clean))
            return [clean];
        const lines = [];
        let line = '';
        for (const word of clean.split(/\s+/)) {
            const candidate = line ? `${line} ${word}` : word;
            if (fits(candidate)) {
                line = candidate;
                continue;
            }
            if (line)
                lines.push(line);
            line = '';
            let rest = word;
            while (!fits(rest)) {
                // Longest prefix that fits (at least one character), by bisection: words can be long.
                let lo = 1;
                let hi = rest.length - 1;
                while (lo < hi) {
                    const mid = Math.ceil((lo + hi) / 2);
                    if (fits(rest.slice(0, mid)))
                        lo = mid;
                    else
                        hi = mid - 1;
                }
                lines.push(rest.slice(0, lo));
                rest = rest.slice(lo);
            }
            line = rest;
        }
        if (line)
            lines.push(line);
        return lines;
    }
    /** One line of text; `x` is the left edge, the centre or the right edge depending on `align`. */
    text(text, x, y, font, size, color = INK, align = 'left') {
        const s = printable(text);
        if (!s)
            return;
        this.setFont(font, size);
        this.setColor(color);
        let left = x;
        if (align !== 'left') {
            const w = this.doc.widthOfString(s);
            left = align === 'right' ? x - w : x - w / 2;
        }
        this.doc.text(s, left, y, { lineBreak: false });
    }
    lines(lines, x, y, font, size, leading, color = INK, align = 'left') {
        for (let i = 0; i < lines.length; i++)
            this.text(lines[i] ?? '', x, y + i * leading, font, size, color, align);
        return lines.length * leading;
    }
    rule(x1, x2, y, color = RULE, width = 0.5) {
        this.doc.moveTo(x1, y).lineTo(x2, y).lineWidth(width).strokeColor(color).stroke();
    }
    fillRect(x, y, w, h, color) {
        this.doc.rect(x, y, w, h).fillColor(color).fill();
        this.resetColor();
    }
}
export function paginate(layout) {
    const pages = [];
    let page = { items: [], end: layout.top };
    let y = layout.top;
    let rowsOnPage = 0;
    const place = (block, at = y) => {
        page.items.push({ block, y: at });
        y = at + block.height;
        page.end = y;
    };
    const newPage = (blocks) => {
        page = { items: [], end: layout.top };
        pages.push(page);
        y = layout.top;
        rowsOnPage = 0;
        for (const b of blocks)
            place(b);
    };
    newPage(layout.firstPage);
    for (const flow of layout.flows) {
        const first = flow.rows[0];
        if (!first)
            continue;
        const headerHeight = flow.header?.height ?? 0;
        if (rowsOnPage > 0 && y + headerHeight + first.height > layout.bottom)
            newPage(layout.continuation);
        if (flow.header)
            place(flow.header);
        for (const row of flow.rows) {
            if (rowsOnPage > 0 && y + row.height > layout.bottom) {
                newPage(layout.continuation);
                if (flow.header)
                    place(flow.header);
            }
            place(row);
            rowsOnPage++;
        }
    }
    if (y + layout.final.height > layout.bottom)
        newPage(layout.continuation);
    place(layout.final, layout.finalAtBottom ? Math.max(y, layout.bottom - layout.final.height) : y);
    return pages;
}
// ---------------------------------------------------------------------------------------------
// Shared blocks
// ---------------------------------------------------------------------------------------------
export const gap = (height) => ({ height, draw() { } });
/** The stamp: quiet zone, symbol, quiet zone, legend ([MUE]; docs/sii-reference.md §3.3, font ≥ 6 pt). */
export function stampBlock(pen, doc, barcode, x, captionSize) {
    if (!barcode)
        return draftStampBlock(pen, x, captionSize);
    const quiet = 0.25 * 72; // 0.25" on every side (docs/sii-reference.md §3.3)
    const { resolutionDate, resolutionNumber } = doc.issuer;
    // A received lone DTE carries no Carátula, so its issuer's resolution is unknown: no Res. line.
    const caption = [
        'Timbre Electrónico SII',
        ...(resolutionDate && resolutionNumber !== undefined
            ? [`Res. ${resolutionNumber} de ${resolutionDate.slice(0, 4)}`]
            : []),
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
function draftStampBlock(pen, x, captionSize) {
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
            pen.text('Sin timbre electrónico', x + width / 2, y + 18 + height / 2 - captionSize, BOLD, captionSize, MUTED, 'center');
            pen.text('(borrador, sin folio)', x + width / 2, y + 18 + height / 2 + 2, REGULAR, captionSize, MUTED, 'center');
        },
    };
}
/** The band of a marked copy: SANDBOX or BORRADOR. */
export function sandboxBand(pen, x, y, width, height, size, mark) {
    pen.fillRect(x, y, width, height, RED);
    pen.text(mark, x + width / 2, y + (height - size) / 2 + 0.5, BOLD, size, '#ffffff', 'center');
}
export function newDocument(doc) {
    const title = `${documentTitle(doc.type)} Nº ${doc.folio}`;
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
/**
 * The acuse de recibo box of the cedible copy ([MUE] §1.4, Ley 19.983, Res. Ex. SII N° 51 of
 * 2005): titled "Acuse de Recibo" (never "Recibí conforme"), lines for Nombre, R.U.T., Fecha,
 * Recinto and Firma, and the legend.
 */
export function acuseBlock(pen, x, width, size) {
    const pad = 6;
    const leading = size + 10;
    const legend = pen.wrap(ACUSE_LEGEND, REGULAR, size - 1, width - 2 * pad);
    const rows = width > 300
        ? [
            [
                ['Nombre:', 0.6],
                ['R.U.T.:', 0.4],
            ],
            [
                ['Fecha:', 0.3],
                ['Recinto:', 0.3],
                ['Firma:', 0.4],
            ],
        ]
        : [[['Nombre:', 1]], [['R.U.T.:', 1]], [['Fecha:', 1]], [['Recinto:', 1]], [['Firma:', 1]]];
    const titleHeight = size + 10;
    const height = titleHeight + rows.length * (leading + 4) + legend.length * size + pad + 4;
    return {
        height: height + 6,
        draw(y) {
            pen.doc.rect(x, y, width, height).lineWidth(0.75).strokeColor(INK).stroke();
            pen.text('ACUSE DE RECIBO', x + pad, y + pad, BOLD, size);
            let ry = y + titleHeight + leading - size;
            const inner = width - 2 * pad;
            for (const row of rows) {
                let cx = x + pad;
                for (const [label, share] of row) {
                    const w = inner * share;
                    pen.text(label, cx, ry - size + 2, BOLD, size - 0.5);
                    const lx = cx + pen.width(label, BOLD, size - 0.5) + 3;
                    pen.rule(lx, cx + w - 8, ry + 2, INK, 0.5);
                    cx += w;
                }
                ry += leading + 4;
            }
            pen.lines(legend, x + pad, ry - size + 4, REGULAR, size - 1, size, MUTED);
        },
    };
}
