/**
 * TED (Timbre Electrónico DTE): the stamp printed as PDF417 (docs/sii-reference.md §3).
 *
 * DD = RE, TD, F, FE, RR, RSR, MNT, IT1, the CAF element, TSTED ([XSD] DTE_v10.xsd `TED`).
 * FRMT = SHA1withRSA (PKCS#1 v1.5) with the CAF private key over the DD exactly as the SII
 * re-reads it (§3.2): flattened (no whitespace between tags), no namespace declarations,
 * `&`, `<`, `>` escaped as in XML text, ISO-8859-1 bytes. The TED is built as that flattened
 * text and embedded verbatim in the DTE, so the document, the barcode and the signature all
 * carry the same bytes.
 */
import { sign } from 'node:crypto';
import { escapeXml, toLatin1 } from './xml-text.js';
/** RSR and IT1 are cut to 40 characters by the SII itself (docs/sii-reference.md §3.1). */
export const TED_TEXT_LENGTH = 40;
/**
 * RSR / IT1 text: Latin-1 only (the TED signs Latin-1 bytes), whitespace runs collapsed, first
 * 40 characters, then written with the SII's table of special characters ([MUE] "Caracteres
 * especiales": `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`, `"` → `&quot;`, `'` → `&apos;`).
 * SII format rule 11: quotes are escaped, not dropped, so a name made only of quotes is not empty.
 */
export function tedText(text) {
    const clean = toLatin1(text).replace(/\s+/g, ' ').trim();
    return escapeXml(clean.slice(0, TED_TEXT_LENGTH).trim()).replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
/** The flattened `<DD>…</DD>`; rsr and it1 are taken as already-escaped text. */
export function buildDd(d) {
    return (`<DD><RE>${d.re}</RE><TD>${d.td}</TD><F>${d.folio}</F><FE>${d.fe}</FE><RR>${d.rr}</RR>` +
        `<RSR>${d.rsr}</RSR><MNT>${d.mnt}</MNT><IT1>${d.it1}</IT1>${d.cafXml}<TSTED>${d.tsted}</TSTED></DD>`);
}
/** FRMT: SHA1withRSA over the Latin-1 bytes of the flattened DD ('latin1', not UTF-8: the SII verifies the ISO-8859-1 bytes). */
export function signDd(dd, cafPrivateKey) {
    return sign('sha1', Buffer.from(dd, 'latin1'), cafPrivateKey).toString('base64');
}
export function assembleTed(dd, frmt) {
    return `<TED version="1.0">${dd}<FRMT algoritmo="SHA1withRSA">${frmt}</FRMT></TED>`;
}
/** The flattened `<TED version="1.0">…</TED>` of a document (Latin-1 text). */
export function buildTed({ doc, caf, cafPrivateKey, timestamp }) {
    // Boletas without a receiver name carry the RUT instead (as LibreDTE does; RSR may not be empty).
    const rsr = tedText(doc.receiver.name ?? '') || doc.receiver.rut;
    const dd = buildDd({
        re: doc.issuer.rut,
        td: doc.type,
        folio: doc.folio,
        fe: doc.date,
        rr: doc.receiver.rut,
        rsr,
        // MNT must be byte-identical to MntTotal (TED-3-640, docs/sii-reference.md §3.1).
        mnt: doc.totals.total,
        // IT1 may not be empty (the XSD's IT1 has minLength 1): a name with nothing printable left
        // after the TED text rule (only quotes, say) is stamped as "-".
        it1: tedText(doc.lines[0]?.name ?? '') || '-',
        cafXml: caf.cafXml,
        tsted: timestamp,
    });
    return assembleTed(dd, signDd(dd, cafPrivateKey));
}
/** The DD inside a TED text, flattened (for verification of received documents). */
export function extractDd(ted) {
    return /<DD>[\s\S]*<\/DD>/.exec(ted.replace(/>\s+</g, '><'))?.[0] ?? null;
}
