import { formatRutDisplay } from '../rut.js';
import { BOLD, INK, ITALIC, MM, MUTED, RED, REGULAR, RULE, SHADE, acuseBlock, sandboxBand, stampBlock, } from './draw.js';
import { discountText, documentTitle, formatAmount, formatDateLong, formatDateShort, formatDecimal, hasReceiver, referenceReason, referenceTypeName, totalRows, transferText, destinationText, paymentText, } from './words.js';
const LETTER = { width: 612, height: 792 };
const MARGIN = 15 * MM;
/** The symbol's left edge: ≥ 2 cm from the paper edge ([MUE]). */
const STAMP_X = 22 * MM;
/**
 * `cedible`: null for the tributary copy; the destination legend ("CEDIBLE", "CEDIBLE CON SU
 * FACTURA") for the second copy, which also carries the acuse de recibo box ([MUE] §1.4).
 */
export function letterLayout(pen, doc, barcode, mark, cedible = null) {
    const left = MARGIN;
    const right = LETTER.width - MARGIN;
    const contentWidth = right - left;
    // Header: issuer on the left, the red box on the right ([MUE] "recuadro" with RUT, type, folio).
    const boxWidth = 74 * MM;
    const boxX = right - boxWidth;
    const boxTitle = pen.wrap(documentTitle(doc.type), BOLD, 12, boxWidth - 20);
    const boxLeading = 16;
    const boxHeight = 12 + boxLeading * (boxTitle.length + 2) + 4;
    // "S.I.I. - <unit>": the issuer's SII office, not its city ([MUE] §1.1.7 "Sucursal SII").
    const office = doc.issuer.siiOffice;
    const issuerWidth = boxX - left - 18;
    const issuerName = pen.wrap(doc.issuer.name, BOLD, 13, issuerWidth);
    const issuerLines = [
        ...pen.wrap(doc.issuer.giro, REGULAR, 8.5, issuerWidth),
        ...pen.wrap(doc.issuer.address, REGULAR, 8.5, issuerWidth),
        ...pen.wrap([doc.issuer.comuna, doc.issuer.city].filter(Boolean).join(', '), REGULAR, 8.5, issuerWidth),
    ];
    const acteco = doc.type === 39 || doc.type === 41 ? [] : doc.issuer.acteco;
    if (acteco.length > 0)
        issuerLines.push(`Actividad económica: ${acteco.join(' · ')}`);
    const issuerHeight = issuerName.length * 15 + 3 + issuerLines.length * 11;
    const header = {
        height: Math.max(issuerHeight, boxHeight + (office ? 16 : 0)) + 12,
        draw(y) {
            pen.doc.rect(boxX, y, boxWidth, boxHeight).lineWidth(2).strokeColor(RED).stroke();
            const cx = boxX + boxWidth / 2;
            let by = y + 12;
            pen.text(`R.U.T.: ${formatRutDisplay(doc.issuer.rut)}`, cx, by, BOLD, 12, RED, 'center');
            by += boxLeading;
            by += pen.lines(boxTitle, cx, by, BOLD, 12, boxLeading, RED, 'center');
            pen.text(`Nº ${doc.folio}`, cx, by, BOLD, 12, RED, 'center');
            if (office)
                pen.text(`S.I.I. - ${office.toUpperCase()}`, cx, y + boxHeight + 5, BOLD, 8.5, INK, 'center');
            const iy = y + pen.lines(issuerName, left, y, BOLD, 13, 15) + 3;
            pen.lines(issuerLines, left, iy, REGULAR, 8.5, 11, MUTED);
        },
    };
    // Receiver and document data: a framed two-column grid.
    const fields = [];
    const r = doc.receiver;
    const t = transferText(doc);
    if (hasReceiver(doc)) {
        fields.push(['Señor(es):', r.name], ['R.U.T.:', formatRutDisplay(r.rut)]);
        fields.push(['Giro:', r.activity], ['Fecha emisión:', formatDateLong(doc.date)]);
        fields.push(['Dirección:', r.address], ['Comuna:', r.comuna]);
        fields.push(['Ciudad:', r.city], ['Correo:', r.email]);
    }
    else {
        fields.push(['Fecha emisión:', formatDateLong(doc.date)], ['', undefined]);
    }
    // FmaPago in words ([FMT] field 13), or a boleta's MedioPago ([FMTB] field 10).
    const pay = paymentText(doc);
    if (pay)
        fields.push([pay.label, pay.value], ['', undefined]);
    if (t.transfer)
        fields.push(['Traslado:', t.transfer], ['Despacho:', t.dispatch]);
    const dest = destinationText(doc);
    if (dest.destination || dest.vehicle)
        fields.push(['Destino:', dest.destination], ['Transporte:', dest.vehicle]);
    const pad = 7;
    const colX = [left + pad, left + contentWidth * 0.6];
    const labelWidth = [0, 1].map((c) => {
        const labels = fields.filter((_, i) => i % 2 === c).map((f) => f[0]);
        return Math.max(0, ...labels.map((l) => pen.width(l, BOLD, 8.5))) + 8;
    });
    const colRight = [left + contentWidth * 0.6 - 10, right - pad];
    const gridRows = [];
    for (let i = 0; i < fields.length; i += 2) {
        const cells = [0, 1].flatMap((c) => {
            const f = fields[i + c];
            const x = colX[c] ?? left;
            const valueX = x + (labelWidth[c] ?? 0);
            if (!f?.[1])
                return [];
            return [{ label: f[0], lines: pen.wrap(f[1], REGULAR, 8.5, (colRight[c] ?? right) - valueX), x, valueX }];
        });
        if (cells.length === 0)
            continue;
        gridRows.push({ cells, height: Math.max(...cells.map((c) => c.lines.length)) * 11 + 2 });
    }
    const gridHeight = gridRows.reduce((s, g) => s + g.height, 0) + 2 * pad - 2;
    const receiver = {
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
    const tableHeader = {
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
    const lineRow = (line) => {
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
                if (disc)
                    pen.text(disc, cols.disc.x + cols.disc.w - cellPad, ty, REGULAR, 8, INK, 'right');
                pen.text(formatAmount(line.amount), cols.amount.x + cols.amount.w - cellPad, ty, REGULAR, 8, INK, 'right');
                pen.rule(left, right, y + height - 0.5, '#dddddd');
            },
        };
    };
    const flows = [{ header: tableHeader, rows: doc.lines.map(lineRow) }];
    // References (required on 56/61: [FMT] §E).
    if (doc.refs.length > 0) {
        const rc = {
            type: { x: left, w: 150 },
            folio: { x: left + 150, w: 78 },
            date: { x: left + 228, w: 64 },
            reason: { x: left + 292, w: contentWidth - 292 },
        };
        const refHeader = {
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
        const refRow = (ref) => {
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
    // References come before the detail ([MUE] §1.1.7: 3. Datos de Referencia, 4. Zona de Detalle).
    flows.reverse();
    // Final block: on the cedible copy the acuse de recibo box first; then stamp bottom-left,
    // totals bottom-right, and the destination legend under the totals ([MUE] §1.1.7).
    const acuse = cedible ? acuseBlock(pen, left, contentWidth, 8) : null;
    const acuseHeight = acuse?.height ?? 0;
    const stamp = stampBlock(pen, doc, barcode, STAMP_X, 7.5);
    const totals = totalRows(doc);
    const totalsWidth = 72 * MM;
    const totalsX = right - totalsWidth;
    const totalsLeading = 15;
    const totalsHeight = totals.length * totalsLeading + 10;
    const legendHeight = cedible ? 26 : 0;
    const final = {
        height: acuseHeight + Math.max(stamp.height, totalsHeight + 24 + legendHeight) + 4,
        draw(top) {
            acuse?.draw(top);
            const y = top + acuseHeight;
            stamp.draw(y);
            const ty = y + 18;
            if (cedible)
                pen.text(cedible, right - 4, ty + totalsHeight + 10, BOLD, 14, INK, 'right');
            pen.doc.roundedRect(totalsX, ty, totalsWidth, totalsHeight, 3).lineWidth(0.75).strokeColor(RULE).stroke();
            let ry = ty + 7;
            for (const row of totals) {
                if (row.strong) {
                    pen.fillRect(totalsX + 0.5, ry - 3.5, totalsWidth - 1, totalsLeading, SHADE);
                    pen.text(row.label, totalsX + 10, ry, BOLD, 10);
                    pen.text(row.value, right - 10, ry, BOLD, 10, INK, 'right');
                }
                else {
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
            if (!mark)
                return;
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
            if (pages > 1)
                pen.text(`Página ${page} de ${pages}`, right, footerY, REGULAR, 7.5, MUTED, 'right');
        },
    };
}
