/**
 * RUT (Rol Único Tributario) value object.
 *
 * Canonical form per SiiTypes_v10.xsd `RUTType`: digits, hyphen, check digit, no dots, `K`
 * uppercase, 3..10 characters. Check digit: módulo 11 with cyclic factors 2..7 from the right;
 * 11 → `0`, 10 → `K` (docs/sii-reference.md §1).
 */
export const SII_RUT = '60803000-K';
export const GENERIC_BOLETA_RUT = '66666666-6';
export function computeDv(body) {
    const digits = String(body);
    let sum = 0;
    let factor = 2;
    for (let i = digits.length - 1; i >= 0; i--) {
        sum += Number(digits[i]) * factor;
        factor = factor === 7 ? 2 : factor + 1;
    }
    const r = 11 - (sum % 11);
    if (r === 11)
        return '0';
    if (r === 10)
        return 'K';
    return String(r);
}
const RUT_PATTERN = /^([1-9][0-9]{0,7})-([0-9K])$/;
/**
 * Parses a RUT in canonical form (a lowercase `k` and dotted display form are accepted and
 * normalised). Returns null when the format or the check digit is wrong.
 */
export function normalizeRut(input) {
    const compact = input.trim().replace(/\./g, '').toUpperCase();
    const m = RUT_PATTERN.exec(compact);
    if (!m)
        return null;
    const [, body, dv] = m;
    if (computeDv(body) !== dv)
        return null;
    return `${body}-${dv}`;
}
export function isValidRut(input) {
    return normalizeRut(input) !== null;
}
/** Splits a canonical RUT into its numeric body and check digit (as the SII web services want them). */
export function splitRut(rut) {
    const i = rut.indexOf('-');
    return { body: rut.slice(0, i), dv: rut.slice(i + 1) };
}
/** Display form with thousands dots, as printed on documents: 76.354.771-K. */
export function formatRutDisplay(rut) {
    const { body, dv } = splitRut(rut);
    return `${body.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${dv}`;
}
