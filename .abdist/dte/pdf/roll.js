import { formatRutDisplay } from '../rut.js';
import { BOLD, gap, INK, ITALIC, MM, MUTED, RED, REGULAR, RULE, sandboxBand, stampBlock, acuseBlock, } from './draw.js';
import { discountText, documentTitle, formatAmount, formatDateLong, formatDateShort, formatDecimal, hasReceiver, printable, referenceReason, referenceTypeName, totalRows, transferText, destinationText, paymentText, } from './words.js';
/** Longest page the roll uses: 200 in (14 400 pt), the page-size limit of PDF 1.x viewers
 * (ISO 32000-1 Annex C.2). Longer receipts continue on a further page. */
const ROLL_MAX_PAGE = 14_400;
const ROLL_WIDTH = 80 * MM;
const ROLL_MARGIN = 4 * MM;
/** `cedible`: null for the tributary copy, else the destination legend of the second copy ([MUE] §1.4). */
export function rollLayout(pen, doc, barcode, mark, cedible = null) {
    const left = ROLL_MARGIN;
    const right = ROLL_WIDTH - ROLL_MARGIN;
    const width = right - left;
    const cx = ROLL_WIDTH / 2;
    const blocks = [];
    const leftText = (text, font, size, leading, color = INK, after = 0) => {
        const lines = pen.wrap(text, font, size, width);
        return {
            height: lines.length * leading + after,
            draw: (y) => pen.lines(lines, left, y, font, size, leading, color),
        };
    };
    const labelled = (label, value, size = 7.5) => {
        if (!value)
            return null;
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
    // [MUE] §1.1.7 "Formato Papel Continuo": 1. the red box (centred), 2. the SII office under
    // it, 3. the issuer (left-aligned), 4. the receiver, 5. the date, 6. references, 7. detail,
    // 8. totals, 9. acuse de recibo (cedible copy), 10. the stamp, 11. the destination legend.
    if (mark)
        blocks.push({ height: 20, draw: (y) => sandboxBand(pen, left, y, width, 14, 7.5, mark) });
    const boxWidth = width - 16;
    const title = pen.wrap(documentTitle(doc.type), BOLD, 9, boxWidth - 12);
    const boxHeight = 8 + 12 * (title.length + 2) + 2;
    // "S.I.I. - <unit>": the issuer's SII office, not its city ([MUE] §1.1.7 "Sucursal SII").
    const office = doc.issuer.siiOffice;
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
            if (office)
                pen.text(`S.I.I. - ${office.toUpperCase()}`, cx, y + boxHeight + 4, BOLD, 7, INK, 'center');
        },
    });
    blocks.push(leftText(doc.issuer.name, BOLD, 9, 11, INK, 1));
    blocks.push(leftText(doc.issuer.giro, REGULAR, 7, 8.5, MUTED));
    blocks.push(leftText(doc.issuer.address, REGULAR, 7, 8.5, MUTED));
    blocks.push(leftText([doc.issuer.comuna, doc.issuer.city].filter(Boolean).join(', '), REGULAR, 7, 8.5, MUTED, 6));
    const info = [];
    if (hasReceiver(doc)) {
        const r = doc.receiver;
        info.push(labelled('Señor(es):', r.name), labelled('R.U.T.:', formatRutDisplay(r.rut)), labelled('Giro:', r.activity), labelled('Dirección:', r.address), labelled('Comuna:', [r.comuna, r.city].filter(Boolean).join(', ')));
    }
    info.push(labelled('Fecha emisión:', formatDateLong(doc.date)));
    const pay = paymentText(doc);
    if (pay)
        info.push(labelled(pay.label, pay.value));
    const t = transferText(doc);
    info.push(labelled('Traslado:', t.transfer), labelled('Despacho:', t.dispatch));
    const dest = destinationText(doc);
    info.push(labelled('Destino:', dest.destination), labelled('Transporte:', dest.vehicle));
    for (const b of info)
        if (b)
            blocks.push(b);
    blocks.push(gap(6));
    const tableHeader = {
        height: 16,
        draw(y) {
            pen.rule(left, right, y, INK, 0.75);
            pen.text('Descripción', left, y + 4, BOLD, 7.5);
            pen.text('Valor', right, y + 4, BOLD, 7.5, INK, 'right');
            pen.rule(left, right, y + 13, INK, 0.75);
        },
    };
    const lineRow = (line) => {
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
    const flows = [{ header: tableHeader, rows: doc.lines.map(lineRow) }];
    // References before the detail (see the order above).
    if (doc.refs.length > 0) {
        const refHeader = {
            height: 16,
            draw(y) {
                pen.rule(left, right, y + 2, RULE);
                pen.text('Referencias', left, y + 6, BOLD, 7.5);
            },
        };
        const refRow = (ref) => {
            const head = pen.wrap(`${referenceTypeName(ref.type)} Nº ${ref.folio} del ${formatDateShort(ref.date)}`, REGULAR, 7, width);
            const reason = pen.wrap(referenceReason(ref), ITALIC, 6.5, width);
            return {
                height: head.length * 8.5 + reason.length * 8 + 3,
                draw(y) {
                    const ry = y + pen.lines(head, left, y, REGULAR, 7, 8.5);
                    pen.lines(reason, left, ry, ITALIC, 6.5, 8, MUTED);
                },
            };
        };
        flows.unshift({ header: refHeader, rows: doc.refs.map(refRow) });
    }
    const totals = totalRows(doc);
    const stamp = stampBlock(pen, doc, barcode, cx - (barcode?.width ?? 144) / 2, 7);
    const totalsHeight = 6 + totals.reduce((s, r) => s + (r.strong ? 13 : 10), 0);
    const acuse = cedible ? acuseBlock(pen, left, width, 7.5) : null;
    const acuseHeight = (acuse?.height ?? 0) + (acuse ? 4 : 0);
    const legendHeight = cedible ? 16 : 0;
    const final = {
        height: totalsHeight + acuseHeight + stamp.height + legendHeight + 4,
        draw(y) {
            pen.rule(left, right, y + 2, INK, 0.75);
            let ty = y + 7;
            for (const row of totals) {
                const size = row.strong ? 9.5 : 7.5;
                pen.text(row.label, left, ty, row.strong ? BOLD : REGULAR, size, row.strong ? INK : MUTED);
                pen.text(row.value, right, ty, row.strong ? BOLD : REGULAR, size, INK, 'right');
                ty += row.strong ? 13 : 10;
            }
            acuse?.draw(y + totalsHeight + 4);
            stamp.draw(y + totalsHeight + acuseHeight);
            if (cedible)
                pen.text(cedible, right, y + totalsHeight + acuseHeight + stamp.height + 2, BOLD, 10, INK, 'right');
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
        underlay() { },
        overlay() { },
    };
}
