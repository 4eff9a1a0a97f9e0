/**
 * Words and numbers on the printed document: WinAnsi-safe text, Chilean amounts and dates, and the
 * labels of the SII's codes (document types, CodRef, IndTraslado, TipoDespacho), plus the totals
 * rows. What changes here is wording, not layout.
 */
import { DTE_NAMES } from '../model.js';
import { GENERIC_BOLETA_RUT } from '../rut.js';
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
export function printable(text) {
    if (PLAIN_TEXT.test(text))
        return text;
    let out = '';
    for (const ch of text.normalize('NFC')) {
        const c = ch.codePointAt(0) ?? 0x3f;
        if (c < 0x20 || (c >= 0x7f && c < 0xa0))
            out += ' ';
        else if (c <= 0xff || WIN_ANSI_EXTRA.has(c))
            out += ch;
        else
            out += '?';
    }
    return out;
}
const groupThousands = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
/** Whole pesos with Chilean thousands dots: 1234567 → "1.234.567". */
export function formatAmount(value) {
    if (!Number.isInteger(value))
        return formatDecimal(String(value));
    return (value < 0 ? '-' : '') + groupThousands(String(Math.abs(value)));
}
/** Decimal text as stored in the model ("1234.5") in Chilean notation ("1.234,5"). */
export function formatDecimal(text) {
    const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
    if (!m)
        return text;
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
export function formatDateLong(iso) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
    const month = m ? MONTHS[Number(m[2]) - 1] : undefined;
    if (!m || !month)
        return iso;
    return `${Number(m[3])} de ${month} de ${m[1]}`;
}
/** "2026-11-22" → "22-11-2026" (the usual Chilean short form). */
export function formatDateShort(iso) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
    return m ? `${m[3]}-${m[2]}-${m[1]}` : iso;
}
const peso = (value) => `$ ${formatAmount(value)}`;
/** TpoDocRef names ([FMT] table of document types; 801+ are the non-tax codes of §E). */
const REFERENCE_TYPE_NAMES = {
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
/**
 * Names of the types a supplier may send that Timbre does not issue ([FMT] table of document
 * types): printed on a received document's box.
 */
const OTHER_DTE_NAMES = {
    43: 'LIQUIDACIÓN FACTURA ELECTRÓNICA',
    110: 'FACTURA DE EXPORTACIÓN ELECTRÓNICA',
    111: 'NOTA DE DÉBITO DE EXPORTACIÓN ELECTRÓNICA',
    112: 'NOTA DE CRÉDITO DE EXPORTACIÓN ELECTRÓNICA',
};
/** The document's name on its boxed header; an unknown type is named by its number. */
export function documentTitle(type) {
    return DTE_NAMES[type] ?? OTHER_DTE_NAMES[type] ?? `DOCUMENTO TRIBUTARIO ELECTRÓNICO TIPO ${type}`;
}
/** CodRef ([FMT] §E): what the reference does to the referenced document. */
const REFERENCE_CODE_TEXT = {
    1: 'Anula documento de referencia',
    2: 'Corrige texto del documento de referencia',
    3: 'Corrige montos',
};
/** IndTraslado of a guía de despacho (docs/sii-reference.md §4.4, [FMT]). */
const TRANSFER_TYPES = {
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
const DISPATCH_TYPES = {
    1: 'Por cuenta del receptor',
    2: 'Por cuenta del emisor a instalaciones del cliente',
    3: 'Por cuenta del emisor a otras instalaciones',
};
export const referenceTypeName = (type) => REFERENCE_TYPE_NAMES[type] ?? type;
export function referenceReason(ref) {
    const code = ref.code ? REFERENCE_CODE_TEXT[ref.code] : undefined;
    if (code && ref.reason)
        return `${code}: ${ref.reason}`;
    return ref.reason ?? code ?? '';
}
export function transferText(doc) {
    if (doc.type !== 52 || !doc.dispatch)
        return {};
    const t = doc.dispatch.transferType;
    const d = doc.dispatch.dispatchType;
    return {
        transfer: `${t} - ${TRANSFER_TYPES[t] ?? 'Otro'}`,
        ...(d ? { dispatch: `${d} - ${DISPATCH_TYPES[d] ?? 'Otro'}` } : {}),
    };
}
const isExemptType = (t) => t === 34 || t === 41;
/** The totals block ([FMT] Totales): neto / exento / IVA / retention / total; boletas print the
 * total and the VAT it includes. */
export function totalRows(doc) {
    if (doc.totalRows)
        return doc.totalRows;
    const t = doc.totals;
    const rate = t.vatRate || doc.issuer.vatRate;
    const rows = [];
    if (doc.type === 39 || doc.type === 41) {
        if (t.exempt > 0 && doc.type === 39)
            rows.push({ label: 'Monto exento', value: peso(t.exempt) });
        rows.push({ label: 'TOTAL', value: peso(t.total), strong: true });
        if (doc.type === 39)
            rows.push({ label: `IVA (${rate}%) incluido en el total`, value: peso(t.vat) });
        return rows;
    }
    // A guía without prices carries only MntTotal 0 (FMT Totales), and prints only that.
    if (doc.type === 52 && t.total === 0 && t.net === 0 && t.exempt === 0) {
        return [{ label: 'TOTAL', value: peso(0), strong: true }];
    }
    const exemptOnly = isExemptType(doc.type) || (t.net === 0 && t.vat === 0 && t.exempt > 0);
    if (!exemptOnly)
        rows.push({ label: 'Monto neto', value: peso(t.net) });
    if (exemptOnly || t.exempt > 0)
        rows.push({ label: 'Monto exento', value: peso(t.exempt) });
    if (!exemptOnly)
        rows.push({ label: `IVA ${rate}%`, value: peso(t.vat) });
    if (t.retention) {
        const r = t.retention;
        const label = r.code === 15 ? `IVA retenido total ${r.rate}%` : `Impuesto retenido (cód. ${r.code}) ${r.rate}%`;
        rows.push({ label, value: `-$ ${formatAmount(r.amount)}` });
    }
    rows.push({ label: 'TOTAL', value: peso(t.total), strong: true });
    return rows;
}
/** Boletas to an anonymous buyer (66.666.666-6 without a name) may omit the receiver block [FMTB]. */
export function hasReceiver(doc) {
    const r = doc.receiver;
    return !(r.rut === GENERIC_BOLETA_RUT && !r.name && !r.address);
}
export function discountText(line) {
    if (line.discountAmount)
        return formatAmount(line.discountAmount);
    if (line.discountPct)
        return `${formatDecimal(line.discountPct)}%`;
    return '';
}
/** FmaPago in words ([FMT] field 13). */
const PAYMENT_TEXT = { 1: 'Contado', 2: 'Crédito', 3: 'Sin costo (entrega gratuita)' };
/** MedioPago in words ([FMTB] field 10: "obligatorio imprimir" above 135 UF). */
const PAYMENT_METHOD_TEXT = {
    1: 'Efectivo',
    2: 'Pago electrónico',
    3: 'Transferencia electrónica',
    4: 'Cheque',
    5: 'Otro',
};
/**
 * The destination legend of the second, transferable copy ([MUE] §1.4 "Copias Cedibles"):
 * facturas (33, 34) and facturas de compra (46) say "CEDIBLE", guías "CEDIBLE CON SU FACTURA";
 * notes and boletas have no cedible copy.
 */
export function cedibleLegend(type) {
    if (type === 33 || type === 34 || type === 46)
        return 'CEDIBLE';
    if (type === 52)
        return 'CEDIBLE CON SU FACTURA';
    return null;
}
/** The acuse de recibo legend, as the [MUE] §1.4 quotes it from Res. Ex. SII N° 51 of 2005. */
export const ACUSE_LEGEND = 'El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4°, y la letra c) del Art. 5° de la Ley 19.983, acredita que la entrega de mercaderías o servicio(s) prestado(s) ha(n) sido recibido(s).';
/** Payment lines printed with the document data: FmaPago, or a boleta's MedioPago. */
export function paymentText(doc) {
    if (doc.payment)
        return { label: 'Forma de pago:', value: PAYMENT_TEXT[doc.payment] ?? String(doc.payment) };
    if (doc.paymentMethod) {
        return { label: 'Medio de pago:', value: PAYMENT_METHOD_TEXT[doc.paymentMethod] ?? String(doc.paymentMethod) };
    }
    return null;
}
/** Where a guía's goods go ([FMT] Transporte DirDest, CmnaDest, CiudadDest) and the vehicle. */
export function destinationText(doc) {
    const t = doc.dispatch?.transport;
    if (!t)
        return {};
    const destination = [t.address, t.comuna, t.city].filter(Boolean).join(', ');
    const vehicle = [t.plate && `Patente ${t.plate}`, t.driver && `Chofer ${t.driver.name}`].filter(Boolean).join(' · ');
    return { ...(destination && { destination }), ...(vehicle && { vehicle }) };
}
