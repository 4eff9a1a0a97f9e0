/**
 * The printed representation of a DTE (SII "Manual de Muestras Impresas" [MUE]; docs/sii-reference.md §3.3
 * and §4): issuer block, the red-bordered RUT / document name / folio box, receiver, lines,
 * references, totals, and the TED as a PDF417 symbol with its legend. Two layouts: US letter
 * (the classic factura, letter.ts) and an 80 mm thermal roll (boletas, point of sale, roll.ts);
 * shared drawing in draw.ts, wording in words.ts, the PDF417 in barcode.ts.
 *
 * Pure: no DB, no network, no files. Fonts are pdfkit's built-in standard Helvetica family
 * (WinAnsi), whose metrics ship inside pdfkit's JavaScript, so nothing is read from disk at run
 * time. Nothing that depends on a document is cached between calls.
 */
import { tedBarcode } from './barcode.js';
import { CERTIFICATION_MARK, DRAFT_MARK, newDocument, Pen, paginate, SANDBOX_MARK } from './draw.js';
import { letterLayout } from './letter.js';
import { rollLayout } from './roll.js';
import { cedibleLegend } from './words.js';
export { tedBarcode } from './barcode.js';
export { SANDBOX_MARK } from './draw.js';
export { formatAmount, formatDateLong, formatDecimal } from './words.js';
/**
 * Renders the printed representation of `doc` with `ted` (the flattened `<TED version="1.0">…`
 * element, every character ≤ U+00FF) as its PDF417 stamp. Long documents paginate: the table
 * header repeats on each page, and the totals and stamp are on the last one.
 *
 * Facturas (33, 34), facturas de compra (46) and guías (52) print two copies in one PDF: the
 * tributary copy, then the cedible copy marked "CEDIBLE" ("CEDIBLE CON SU FACTURA" on a guía)
 * with the acuse de recibo box of Ley 19.983 ([MUE] §1.4). Notes and boletas print one, and so
 * does a received document (`opts.received`).
 */
export async function renderPdf(doc, ted, opts) {
    const barcode = opts.draft ? null : tedBarcode(ted, opts.format);
    const sandboxMark = opts.received ? CERTIFICATION_MARK : SANDBOX_MARK;
    const mark = opts.draft ? DRAFT_MARK : opts.sandbox ? sandboxMark : null;
    const pdf = newDocument(doc);
    const pen = new Pen(pdf);
    const chunks = [];
    pdf.on('data', (chunk) => chunks.push(chunk));
    const finished = new Promise((resolve, reject) => {
        pdf.on('end', resolve);
        pdf.on('error', reject);
    });
    // A draft is one copy: the cedible copy exists only for an issued document; a received one
    // is the receiver's copy (the cedible copy is the supplier's to print and hand over).
    const legend = opts.draft || opts.received ? null : cedibleLegend(doc.type);
    for (const copy of legend ? [null, legend] : [null]) {
        const layout = opts.format === '80mm' ? rollLayout(pen, doc, barcode, mark, copy) : letterLayout(pen, doc, barcode, mark, copy);
        const pages = paginate(layout);
        for (const [i, page] of pages.entries()) {
            const height = layout.pageHeight ?? Math.ceil(page.end + layout.bottomMargin);
            pdf.addPage({ size: [layout.pageWidth, height], margin: 0 });
            pen.resetColor();
            layout.underlay();
            for (const { block, y } of page.items)
                block.draw(y);
            layout.overlay(i + 1, pages.length);
        }
    }
    pdf.end();
    await finished;
    return Buffer.concat(chunks);
}
