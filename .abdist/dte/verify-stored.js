/**
 * The last check before a document is stored (docs/design.md §7 "every stored document verifies"):
 * the exact bytes about to be persisted are parsed again by libxml2 — the engine of xmllint
 * and xmlsec1, and the kind of XML 1.0 parser the SII runs — and must pass the XSD, the
 * XMLDSig digest and SignatureValue over what libxml2 read, and the TED's FRMT over its DD.
 *
 * Signing reads our own text (as written, or parsed by @xmldom/xmldom); this check
 * deliberately uses another parser, so a character that one of them reads differently (U+0085
 * and U+2028 were turned into line breaks by one and kept by the other) fails here instead of
 * reaching the SII. The character policy of `issue-request.ts` refuses such characters with a
 * 400 first; this check is the net under it, and its failure is a Timbre bug (500, nothing
 * stored, folio released).
 *
 * What each step proves, in order:
 * 1. libxml2 parses the bytes (honouring their ISO-8859-1 declaration): they are well-formed
 *    for a parser that had no part in writing or signing them.
 * 2. That tree passes the XSD. Among much else, a DTE then holds exactly one `Documento` (or
 *    `Liquidacion`/`Exportaciones`) followed by one `ds:Signature`, and nothing else.
 * 3. libxml2's C14N 1.0 of that whole tree is what libxml2 read, written as text in which
 *    every `<` opens a tag: no comments, no CDATA, `<` escaped in text and attribute values,
 *    attributes in one order and namespace declarations only where they change something.
 * 4. That text must be in the one layout our writer and signer produce (dte-xml.ts,
 *    xmldsig.ts): it starts with the root's and the Documento's start tags, and from the
 *    `</Documento>` before the Signature to its end it is the whole Signature, tag by tag,
 *    with nothing but base64 between the tags (`SIGNATURE_TAIL`). Those tags being literal, a
 *    match is those elements; with step 2's one Documento and one Signature under the root,
 *    what lies between the Documento's start tag and that `</Documento>` is the Documento's
 *    content. This is found by a few anchored comparisons instead of a walk over every tag.
 *    Any other layout (another prefix, one more namespace declaration on the root) fails:
 *    stricter than a general verifier, never laxer.
 * 5. In that layout the inclusive C14N of the Documento, as the document subset XMLDSig
 *    digests, is its text from step 3 with the namespace in scope (the SII's, from `<DTE>`,
 *    which declares nothing else and carries no `xml:*` attribute) declared on its start tag;
 *    likewise SignedInfo with the xmldsig namespace of Signature. The SHA-1 of the former must
 *    be the DigestValue libxml2 read, and the SignatureValue libxml2 read must verify over the
 *    latter with the public key of the certificate that signed (not the one KeyInfo shows: the
 *    XSD checks KeyInfo's shape; which key signs is ours to know).
 * 6. The TED's FRMT verifies over its DD as written in the bytes, with the CAF's public key
 *    (the SII verifies the DD's text, which the barcode carries).
 */
import { createHash, verify } from 'node:crypto';
import { XmlDocument } from 'libxml2-wasm';
import { SII_NS } from './dte-xml.js';
import { C14N, DSIG_NS, RSA_SHA1, SHA1 } from './xmldsig.js';
import { validateParsedDte } from './xsd.js';
/**
 * Verifies the stored form of a signed DTE (ISO-8859-1 bytes with the XML declaration):
 * `certificateKey` is the public key of the certificate that signed it, `cafKey` the public
 * key of the CAF that stamped it. One parse: libxml2 reads the bytes once; that tree is
 * canonicalised whole (before the XSD check touches it) and validated against the XSD.
 */
export function verifyStoredDte(bytes, keys) {
    let doc;
    try {
        doc = XmlDocument.fromBuffer(bytes);
    }
    catch (e) {
        return { valid: false, errors: [`not well-formed: ${e.message}`] };
    }
    let canonical;
    try {
        canonical = doc.canonicalizeToString();
        const errors = validateParsedDte(doc, bytes);
        if (errors.length)
            return { valid: false, errors };
    }
    finally {
        doc.dispose();
    }
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const errors = [...checkSignature(canonical, keys.certificateKey), ...checkTed(view, keys.cafKey)];
    return { valid: errors.length === 0, errors };
}
/** What a DTE's canonical text starts with, up to the value of `Documento/@ID`. */
const DOCUMENTO_START = `<DTE xmlns="${SII_NS}" version="1.0">\n<Documento ID="`;
/** The same start tag as the apex of the Documento's own C14N (the namespace in scope declared on it). */
const DOCUMENTO_APEX = `<Documento xmlns="${SII_NS}" ID="`;
const DOCUMENTO_END = '</Documento>';
const SIGNATURE_START = `${DOCUMENTO_END}\n<Signature xmlns="${DSIG_NS}">\n`;
/**
 * A regular expression matching the literal parts of a template as written, and each RegExp
 * interpolated as a capture group.
 */
function layout(literals, ...values) {
    const literal = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    let source = literal(literals[0] ?? '');
    values.forEach((value, i) => {
        source += typeof value === 'string' ? literal(value) : `(${value.source})`;
        source += literal(literals[i + 1] ?? '');
    });
    return new RegExp(source, 'y');
}
const BASE64 = /[A-Za-z0-9+/=]*/;
/** Base64 as `signDte` writes long values: 64 characters a line. */
const BASE64_LINES = /[A-Za-z0-9+/=\n]*/;
/**
 * A signed DTE's canonical text from the Documento's end tag to the end of the document: the
 * Signature as `signDte` writes it, nothing but base64 between its tags. Groups: the
 * Reference's ID, DigestValue, SignatureValue.
 */
const SIGNATURE_TAIL = layout `${SIGNATURE_START}<SignedInfo>
<CanonicalizationMethod Algorithm="${C14N}"></CanonicalizationMethod>
<SignatureMethod Algorithm="${RSA_SHA1}"></SignatureMethod>
<Reference URI="#${/[^"]+/}">
<Transforms>
<Transform Algorithm="${C14N}"></Transform>
</Transforms>
<DigestMethod Algorithm="${SHA1}"></DigestMethod>
<DigestValue>${BASE64}</DigestValue>
</Reference>
</SignedInfo>
<SignatureValue>${BASE64_LINES}</SignatureValue>
<KeyInfo>
<KeyValue>
<RSAKeyValue>
<Modulus>${BASE64_LINES}</Modulus>
<Exponent>${BASE64}</Exponent>
</RSAKeyValue>
</KeyValue>
<X509Data>
<X509Certificate>${BASE64_LINES}</X509Certificate>
</X509Data>
</KeyInfo>
</Signature>
</DTE>`;
/**
 * The signed parts of a DTE, cut from libxml2's canonical text of the whole document (steps 4
 * and 5 of this file's header); a string saying what is missing when the text is not in the
 * layout `signDte` writes (prefixed "XMLDSig", as every failure of the signature: the issuing
 * path answers DOCUMENT_NOT_VERIFIABLE, not a schema error). test/unit/verify-stored.test.ts
 * checks the parts against libxml2 canonicalising those elements in place.
 */
export function signedPartsOf(canonical) {
    if (!canonical.startsWith(DOCUMENTO_START)) {
        return 'XMLDSig: the canonical text does not start with <DTE> and its <Documento ID>';
    }
    const idEnd = canonical.indexOf('"', DOCUMENTO_START.length);
    if (canonical[idEnd + 1] !== '>')
        return 'XMLDSig: the Documento start tag is not <Documento ID="…">';
    const tail = canonical.lastIndexOf(SIGNATURE_START);
    SIGNATURE_TAIL.lastIndex = tail;
    const m = tail > idEnd ? SIGNATURE_TAIL.exec(canonical) : null;
    if (!m || SIGNATURE_TAIL.lastIndex !== canonical.length) {
        return 'XMLDSig: no Signature after the Documento in the layout signDte writes';
    }
    const [, reference = '', digestValue = '', signatureValue = ''] = m;
    if (reference !== canonical.slice(DOCUMENTO_START.length, idEnd)) {
        return `XMLDSig: the signed element #${reference} is not the Documento`;
    }
    const signedInfoStart = tail + SIGNATURE_START.length + '<SignedInfo>'.length;
    const signedInfoEnd = canonical.indexOf('</SignedInfo>', signedInfoStart) + '</SignedInfo>'.length;
    return {
        documento: DOCUMENTO_APEX + canonical.slice(DOCUMENTO_START.length, tail + DOCUMENTO_END.length),
        signedInfo: `<SignedInfo xmlns="${DSIG_NS}">${canonical.slice(signedInfoStart, signedInfoEnd)}`,
        digestValue,
        signatureValue,
    };
}
function checkSignature(canonical, key) {
    const parts = signedPartsOf(canonical);
    if (typeof parts === 'string')
        return [parts];
    const digest = createHash('sha1').update(parts.documento, 'utf8').digest('base64');
    if (digest !== parts.digestValue) {
        return ['XMLDSig digest mismatch: the stored bytes are not the bytes that were signed'];
    }
    const value = Buffer.from(parts.signatureValue, 'base64');
    const ok = verify('sha1', Buffer.from(parts.signedInfo, 'utf8'), key, value);
    return ok ? [] : ['XMLDSig SignatureValue does not verify'];
}
const TED_START = Buffer.from('<TED version="1.0"><DD>', 'latin1');
const DD_END = Buffer.from('</DD>', 'latin1');
const FRMT_START = Buffer.from('<FRMT algoritmo="SHA1withRSA">', 'latin1');
const TED_END = Buffer.from('</FRMT></TED>', 'latin1');
/** Whether `bytes` holds `literal` at `at`. */
function holdsAt(bytes, at, literal) {
    return at >= 0 && at + literal.length <= bytes.length && literal.compare(bytes, at, at + literal.length) === 0;
}
/**
 * The TED's FRMT over its DD, both as written in the bytes (the SII verifies FRMT over the DD
 * text): found by searching the bytes, not a decoded copy of them.
 */
function checkTed(bytes, cafKey) {
    const tedAt = bytes.indexOf(TED_START);
    const ddStart = tedAt + TED_START.length - '<DD>'.length;
    const ddClose = tedAt < 0 ? -1 : bytes.indexOf(DD_END, ddStart);
    const ddEnd = ddClose + DD_END.length;
    const frmtStart = ddEnd + FRMT_START.length;
    const frmtEnd = bytes.indexOf('<', frmtStart);
    if (ddClose < 0 || !holdsAt(bytes, ddEnd, FRMT_START) || !holdsAt(bytes, frmtEnd, TED_END)) {
        return ['no TED in the document'];
    }
    const frmt = Buffer.from(bytes.toString('latin1', frmtStart, frmtEnd), 'base64');
    const ok = verify('sha1', bytes.subarray(ddStart, ddEnd), cafKey, frmt);
    return ok ? [] : ['TED FRMT does not verify over its DD'];
}
