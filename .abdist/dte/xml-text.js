/**
 * Text-level XML helpers shared by the DTE builder, the TED, CAF parsing and signing. The SII
 * world is ISO-8859-1 (docs/sii-reference.md §3.2, §5): documents are written as
 * Latin-1 bytes, characters beyond U+00FF as character references.
 */
/**
 * Escapes text content the way Canonical XML writes it (`&`, `<`, `>`; quotes stay literal),
 * so the bytes we write are the bytes C14N produces and the bytes the TED signs.
 */
export function escapeXml(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
export function unescapeXml(text) {
    return text
        .replace(/&#x([0-9a-fA-F]+);/g, (_, h) => String.fromCodePoint(Number.parseInt(h, 16)))
        .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'")
        .replace(/&amp;/g, '&');
}
/** Removes every whitespace run between a `>` and the next `<` (docs/sii-reference.md §3.2 "flattened"). */
export function flatten(xml) {
    return xml.replace(/>\s+</g, '><').trim();
}
/**
 * Latin-1 bytes of an XML text; characters beyond U+00FF become numeric character references
 * (valid in text content, where caller-supplied text lives).
 */
export function encodeLatin1(xml) {
    return Buffer.from(xml.replace(/[^\u0000-\u00ff]/gu, (c) => `&#${c.codePointAt(0)};`), 'latin1');
}
/** Decodes XML bytes by their declared encoding; without one, UTF-8 when valid, else Latin-1. */
export function decodeXmlBytes(bytes) {
    const head = bytes.subarray(0, 200).toString('latin1');
    const declared = /^\s*<\?xml[^>]*encoding=["']([^"']+)["']/i.exec(head)?.[1]?.toLowerCase();
    if (declared && /^(iso-8859-1|latin-?1|windows-1252|cp1252)$/.test(declared))
        return bytes.toString('latin1');
    if (declared && /^utf-?8$/.test(declared))
        return bytes.toString('utf8');
    try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    }
    catch {
        return bytes.toString('latin1');
    }
}
/** Typographic characters callers paste, mapped to their Latin-1 look-alikes. */
const LATIN1_LOOKALIKES = {
    '\u2018': "'",
    '\u2019': "'",
    '\u201a': "'",
    '\u201c': '"',
    '\u201d': '"',
    '\u201e': '"',
    '\u2013': '-',
    '\u2014': '-',
    '\u2026': '...',
    '\u20ac': 'EUR',
    '\u2122': 'TM',
    '\u00a0': ' ',
};
/**
 * Text reduced to ISO-8859-1 for the TED, which signs Latin-1 bytes and cannot carry a
 * character reference in the barcode (docs/sii-reference.md §3.2): look-alikes for typographic marks,
 * `?` for the rest.
 */
export function toLatin1(text) {
    let out = '';
    for (const ch of text.normalize('NFC')) {
        const mapped = LATIN1_LOOKALIKES[ch];
        if (mapped !== undefined)
            out += mapped;
        else
            out += (ch.codePointAt(0) ?? 0) <= 0xff ? ch : '?';
    }
    return out;
}
/**
 * The character policy of request text (docs/design.md §7 "every stored document verifies", README "Hostile input and abuse").
 * Text is written into the signed XML as ISO-8859-1 bytes, characters beyond U+00FF as numeric
 * character references; every character accepted here survives that byte-exact through any XML
 * 1.0 parser (libxml2/xmlsec1, the SII's) and through the one used while signing. Refused:
 *
 * - C0 controls (U+0000–U+001F) but tab and line feed, DEL and the C1 controls
 *   (U+0080–U+009F): not allowed in XML 1.0 text or, for C1, read as line breaks by XML 1.1-minded
 *   parsers (U+0085) and never meaningful on an invoice. CR is refused because XML parsers turn
 *   it into a line feed. Tab and line feed are further limited by the field (`multiline`).
 * - U+2028 and U+2029: line and paragraph separators that some parsers normalise to U+000A
 *   before the digest, so the signature would not verify over the stored bytes.
 * - U+FFFD: the replacement character is what a broken encoding upstream leaves behind; the
 *   caller's real text is already lost, so it is refused rather than stamped on a tax document.
 * - Noncharacters (U+FDD0–U+FDEF and every U+xxFFFE / U+xxFFFF) and lone surrogates: not text.
 * - Bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): they reorder
 *   what is displayed, so a printed PDF could read differently from the signed XML
 *   ("Trojan Source", CVE-2021-42574); Chilean tax text never needs them.
 *
 * Accepted and kept byte-exact: everything else, including characters beyond Latin-1 (written
 * as `&#N;` in the XML; the TED, which cannot carry references, prints Latin-1 look-alikes or
 * `?`), astral characters (emoji), combining marks, zero-width joiners and private-use
 * characters.
 */
export function refusedCharacter(text) {
    for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        let cp = unit;
        if (unit >= 0xd800 && unit <= 0xdbff) {
            const next = text.charCodeAt(i + 1);
            if (next >= 0xdc00 && next <= 0xdfff) {
                cp = (unit - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
                i++;
            }
        }
        if (isRefused(cp))
            return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    }
    return null;
}
function isRefused(cp) {
    if (cp < 0x20)
        return cp !== 0x09 && cp !== 0x0a;
    if (cp >= 0x7f && cp <= 0x9f)
        return true;
    if (cp >= 0xd800 && cp <= 0xdfff)
        return true; // a lone surrogate (pairs were combined above)
    if (cp === 0x2028 || cp === 0x2029 || cp === 0xfffd)
        return true;
    if (cp >= 0xfdd0 && cp <= 0xfdef)
        return true;
    if ((cp & 0xfffe) === 0xfffe)
        return true;
    return (cp === 0x061c || cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069));
}
