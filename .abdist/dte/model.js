/**
 * The tax-document model shared by the pure `dte/` modules: totals computation produces it,
 * the XML builder, the TED and the PDF renderer consume it. Amounts are whole pesos
 * (integers); quantities and unit prices keep the caller's decimal text (up to 6 decimals, as
 * DTE_v10.xsd `QtyItem`/`PrcItem` allow) so nothing is lost to binary floating point.
 */
export const DTE_TYPES = [33, 34, 39, 41, 46, 52, 56, 61];
export const isBoleta = (t) => t === 39 || t === 41;
/**
 * The CodRef of a reference ([FMT] Referencias, CodRef): as given, or by default 1 (voids) on a
 * 61 and 3 (corrects amounts) on a 56, but only for references to tax documents. References to
 * non-tax documents (801 orden de compra, 802, HES, SET …) never get one.
 */
export function referenceCode(type, code, refType) {
    if (code !== undefined)
        return code;
    if (!/^\d+$/.test(refType) || Number(refType) >= 800)
        return undefined;
    return type === 61 ? 1 : type === 56 ? 3 : undefined;
}
/** Document names as printed on the boxed header (SII "Manual de Muestras Impresas"). */
export const DTE_NAMES = {
    33: 'FACTURA ELECTRÓNICA',
    34: 'FACTURA NO AFECTA O EXENTA ELECTRÓNICA',
    39: 'BOLETA ELECTRÓNICA',
    41: 'BOLETA NO AFECTA O EXENTA ELECTRÓNICA',
    46: 'FACTURA DE COMPRA ELECTRÓNICA',
    52: 'GUÍA DE DESPACHO ELECTRÓNICA',
    56: 'NOTA DE DÉBITO ELECTRÓNICA',
    61: 'NOTA DE CRÉDITO ELECTRÓNICA',
};
