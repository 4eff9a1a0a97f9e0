/**
 * The receiver's checks on an uploaded EnvioDTE (or a lone signed `<DTE>`), in the order of
 * docs/receiving.md §1, each recorded with its result and a Spanish reason, ending in the SII's codes
 * (`EstadoRecepEnv` for the envelope, `EstadoRecepDTE` per document; src/receiving/codes.ts).
 *
 * Envelope: size cap and no DTD (before any parser sees the bytes) → readable XML → XSD
 * (EnvioDTE_v10.xsd; DTE_v10.xsd for a lone DTE) → the signature over `SetDTE` → Carátula
 * RutReceptor is this issuer → not the same file again. Each DTE: readable → its signature over
 * its `Documento` → RUTEmisor equals the Carátula's → RUTRecep is this issuer → not already
 * received (issuer, type, folio) → the TED (DD matches the document, FRMT by the CAF key, the
 * CAF's FRMA by the SII's key or a TIMBRE_EXTRA_CAF_KEYS key). The TED is not an SII check
 * (docs/receiving.md §1) but catches forgeries; its failure refuses the DTE with 99 (Otros).
 *
 * Hostile input: SII files never carry a DTD, so any `<!DOCTYPE` or `<!ENTITY` refuses the
 * file unread (no entity expansion, no external entity can be fetched by any parser here).
 * Signature wrapping: a signature counts only when its Reference names the element the
 * checks read (`SetDTE` child of the root; `Documento` child of `DTE`) and that ID occurs once.
 *
 * Pure but for the two lookups the caller passes (an earlier envelope with the same bytes, the
 * documents already received), so it runs inside the caller's transaction.
 */
import { child, childElements, textOf } from '../dte/dom.js';
import { createHash, verify } from 'node:crypto';
import { cafPublicKey, verifyCafSignature } from '../dte/caf.js';
import { SII_NS } from '../dte/dte-xml.js';
import { normalizeRut } from '../dte/rut.js';
import { checkSignatureElement, DSIG_NS, parseXml, stripXmlDeclaration, verifyDte, XmlParseError, } from '../dte/xmldsig.js';
import { validateXml } from '../dte/xsd.js';
import { ESTADO_RECEP_DTE, ESTADO_RECEP_ENV, GLOSA_RECEP_DTE, GLOSA_RECEP_ENV, } from './codes.js';
import { readDte } from './read-dte.js';
/** The largest file taken in: real EnvioDTEs are tens of kB; a few hundred DTEs fit in 10 MiB. */
export const MAX_RECEIVED_BYTES = 10 * 1024 * 1024;
function countIds(el, id) {
    let n = el.getAttribute('ID') === id ? 1 : 0;
    for (const c of childElements(el))
        n += countIds(c, id);
    return n;
}
/** The declared encoding, lower-case, or null. */
function declaredEncoding(bytes) {
    const head = bytes.subarray(0, 200).toString('latin1');
    return /^\uFEFF?\s*<\?xml[^>]*encoding=["']([^"']+)["']/i.exec(head)?.[1]?.toLowerCase() ?? null;
}
const KNOWN_ENCODINGS = /^(iso-8859-1|iso_8859-1|latin-?1|l1|windows-1252|cp1252|utf-?8|us-ascii|ascii)$/;
/**
 * windows-1252's 0x80–0x9F (the WHATWG Encoding table; the five undefined bytes stay as their
 * C1 code points). Written out because Node 20's TextDecoder decodes the `windows-1252` label
 * as ISO-8859-1. Every byte is still one character, so offsets in the text are byte offsets.
 */
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
    '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
/**
 * The bytes the TED's FRMT signs: ISO-8859-1 (docs/sii-reference.md §3.2); a windows-1252
 * typographic character read from such a file goes back to its own byte.
 */
function tedBytes(dd) {
    return Buffer.from(dd.replace(/[^\x00-\xff]/g, (c) => {
        const at = CP1252_HIGH.indexOf(c);
        return at < 0 ? c : String.fromCharCode(0x80 + at);
    }), 'latin1');
}
function decodeWindows1252(bytes) {
    return bytes.toString('latin1').replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
}
/**
 * The file as text, by its declaration: ISO-8859-1 byte for byte, windows-1252 by its own
 * table (its 0x80–0x9F are typographic characters, which is what its writer signed), UTF-8;
 * undeclared, UTF-8 when valid, else ISO-8859-1.
 */
export function decodeReceived(bytes) {
    const declared = declaredEncoding(bytes);
    if (declared && /^(windows-1252|cp1252)$/.test(declared)) {
        return { text: decodeWindows1252(bytes), singleByte: true };
    }
    if (declared && /^(iso-8859-1|iso_8859-1|latin-?1|l1)$/.test(declared)) {
        return { text: bytes.toString('latin1'), singleByte: true };
    }
    try {
        return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), singleByte: false };
    }
    catch {
        return { text: bytes.toString('latin1'), singleByte: true };
    }
}
/** A Reference URI in words: `#ID`, or the whole document for URI="". */
const describeUri = (uri) => uri === undefined ? '(nada)' : uri === '' ? 'el documento completo (URI="")' : uri;
/** The verifier's reasons (src/dte/xmldsig.ts, English like the rest of src/dte) in the Spanish of a check's detail. */
const SIGNATURE_REASONS = [
    [/^digest mismatch$/, 'el contenido firmado fue modificado (DigestValue no corresponde)'],
    [/^SignatureValue does not verify$/, 'el SignatureValue no corresponde a la clave del certificado'],
    [/^KeyInfo missing$/, 'falta KeyInfo'],
    [/^no usable key in KeyInfo$|^no key$/, 'KeyInfo no trae una clave pública utilizable'],
    [/^SignedInfo missing$/, 'falta SignedInfo'],
    [/^exactly one Reference expected$/, 'se esperaba exactamente una Reference'],
    [/^unsupported Transform$/, 'Transform no admitido'],
    [/^unsupported DigestMethod$/, 'DigestMethod no admitido (se espera SHA-1)'],
    [/^unsupported CanonicalizationMethod (.*)$/, 'CanonicalizationMethod no admitido: $1'],
    [/^unsupported SignatureMethod (.*)$/, 'SignatureMethod no admitido: $1'],
    [/^unsupported Reference URI (.*)$/, 'URI de Reference no admitida: $1'],
    [/^referenced element (.*) not found$/, 'no existe el elemento referenciado $1'],
    [/^not well-formed XML: (.*)$/, 'XML mal formado: $1'],
    [/^no Signature under the root element$/, 'no hay Signature bajo el elemento raíz'],
];
function signatureReason(reason) {
    if (!reason)
        return 'motivo desconocido';
    for (const [pattern, spanish] of SIGNATURE_REASONS)
        if (pattern.test(reason))
            return reason.replace(pattern, spanish);
    return reason;
}
const pass = (check, detail) => ({ check, ok: true, detail });
const fail = (check, detail) => ({ check, ok: false, detail });
function schemaDetail(errors) {
    const shown = errors.slice(0, 3).join('; ');
    return errors.length > 3 ? `${shown} (y ${errors.length - 3} más)` : shown;
}
/** XSD of a lone DTE: the SII namespace declared on `<DTE>` when its writer left it out. */
function loneDteSchemaErrors(bytes) {
    const text = bytes.toString('latin1');
    const open = /<DTE\b[^>]*>/.exec(text);
    if (!open)
        return ['no hay elemento <DTE>'];
    const withNs = /\sxmlns="/.test(open[0])
        ? text
        : text.slice(0, open.index) +
            open[0].replace(/^<DTE\b/, `<DTE xmlns="${SII_NS}"`) +
            text.slice(open.index + open[0].length);
    return validateXml(Buffer.from(withNs, 'latin1'), 'DTE_v10.xsd').errors;
}
/** The envelope's signature, over the `SetDTE` the checks read and nothing else. */
function envelopeSignature(doc, root, setDte) {
    const signatures = childElements(root).filter((e) => e.localName === 'Signature' && e.namespaceURI === DSIG_NS);
    if (signatures.length !== 1)
        return { ok: false, detail: 'el sobre no lleva exactamente una firma (Signature)', digest: null };
    const signature = signatures[0];
    const digest = textOf(child(child(child(signature, 'SignedInfo', DSIG_NS), 'Reference', DSIG_NS), 'DigestValue', DSIG_NS)) || null;
    const setId = setDte.getAttribute('ID') ?? '';
    if (!setId || countIds(root, setId) !== 1) {
        return { ok: false, detail: `el ID del SetDTE (${setId || 'vacío'}) no es único en el archivo`, digest };
    }
    let check;
    try {
        check = checkSignatureElement(doc, signature);
    }
    catch (e) {
        return { ok: false, detail: `la firma del SetDTE no se puede leer: ${e.message}`, digest };
    }
    if (check.referenceUri !== `#${setId}`) {
        return {
            ok: false,
            detail: `la firma referencia ${describeUri(check.referenceUri)}, no el SetDTE #${setId}`,
            digest,
        };
    }
    if (!check.valid)
        return { ok: false, detail: `la firma del SetDTE no verifica: ${signatureReason(check.reason)}`, digest };
    return { ok: true, detail: `firma del SetDTE #${setId} válida`, digest };
}
function envelopeResult(base, estado, reason, documents = []) {
    return { ...base, estado, glosa: GLOSA_RECEP_ENV[estado], reason, documents };
}
/** Runs every check on the uploaded bytes. Never throws on any input. */
export async function checkReceived(bytes, ctx) {
    const checks = [];
    const base = {
        kind: null,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        checks,
        setId: null,
        caratula: null,
        digest: null,
        declaration: null,
    };
    const refuse = (estado, check, detail) => {
        checks.push(fail(check, detail));
        return envelopeResult(base, estado, detail);
    };
    if (bytes.length > MAX_RECEIVED_BYTES) {
        return refuse(ESTADO_RECEP_ENV.UNREADABLE, 'size', `el archivo pesa ${bytes.length} bytes; el máximo es ${MAX_RECEIVED_BYTES}`);
    }
    checks.push(pass('size', `${bytes.length} bytes`));
    // Only the encodings both parsers here read alike: another (UTF-16, UTF-7, EBCDIC …) could
    // show one parser a DTD or a document the other does not see.
    const declared = declaredEncoding(bytes);
    if ((declared && !KNOWN_ENCODINGS.test(declared)) || bytes[0] === 0xfe || bytes[0] === 0xff || bytes[0] === 0) {
        return refuse(ESTADO_RECEP_ENV.UNREADABLE, 'readable', `codificación no admitida (${declared ?? 'UTF-16'}); se aceptan ISO-8859-1, windows-1252 y UTF-8`);
    }
    const { text, singleByte } = decodeReceived(bytes);
    if (/<!DOCTYPE|<!ENTITY/i.test(text)) {
        return refuse(ESTADO_RECEP_ENV.UNREADABLE, 'dtd', 'el archivo declara un DTD o entidades (<!DOCTYPE>/<!ENTITY>); por seguridad no se procesan');
    }
    checks.push(pass('dtd', 'sin DTD ni entidades'));
    let doc;
    try {
        doc = parseXml(stripXmlDeclaration(text));
    }
    catch (e) {
        const message = e instanceof XmlParseError ? e.message : String(e);
        return refuse(ESTADO_RECEP_ENV.UNREADABLE, 'readable', `XML mal formado: ${message.slice(0, 200)}`);
    }
    const root = doc.documentElement;
    const rootName = root?.localName ?? '';
    if (!root || (rootName !== 'EnvioDTE' && rootName !== 'DTE')) {
        return refuse(ESTADO_RECEP_ENV.UNREADABLE, 'readable', `no es un EnvioDTE ni un DTE (elemento raíz ${rootName || 'ninguno'})`);
    }
    base.kind = rootName;
    base.declaration = /^\uFEFF?\s*(<\?xml[^>]*\?>)/.exec(text)?.[1] ?? null;
    checks.push(pass('readable', `XML legible: ${rootName}`));
    const lone = rootName === 'DTE';
    const schemaErrors = lone ? loneDteSchemaErrors(bytes) : validateXml(bytes, 'EnvioDTE_v10.xsd').errors;
    if (schemaErrors.length) {
        return refuse(ESTADO_RECEP_ENV.SCHEMA, 'schema', `no cumple ${lone ? 'DTE_v10.xsd' : 'EnvioDTE_v10.xsd'}: ${schemaDetail(schemaErrors)}`);
    }
    checks.push(pass('schema', lone ? 'válido según DTE_v10.xsd' : 'válido según EnvioDTE_v10.xsd'));
    // The DTEs, cut out of the text as the SII cuts them (verbatim, by their tags).
    const slices = [...text.matchAll(/<DTE\b[^>]*>[\s\S]*?<\/DTE>/g)].map((m) => ({
        text: m[0],
        start: m.index,
        end: m.index + m[0].length,
    }));
    const sliceBytes = (s) => {
        const body = singleByte ? bytes.subarray(s.start, s.end) : Buffer.from(s.text, 'utf8');
        return lone ? bytes : Buffer.concat([Buffer.from(base.declaration ? `${base.declaration}\n` : ''), body]);
    };
    let domDtes;
    if (lone) {
        domDtes = 1;
    }
    else {
        const setDte = child(root, 'SetDTE');
        const caratula = child(setDte, 'Caratula');
        if (!setDte || !caratula)
            return refuse(ESTADO_RECEP_ENV.SCHEMA, 'schema', 'falta SetDTE o su Caratula');
        base.setId = setDte.getAttribute('ID') ?? null;
        base.caratula = {
            rutEmisor: textOf(child(caratula, 'RutEmisor')),
            rutEnvia: textOf(child(caratula, 'RutEnvia')),
            rutReceptor: textOf(child(caratula, 'RutReceptor')),
        };
        const signature = envelopeSignature(doc, root, setDte);
        base.digest = signature.digest;
        if (!signature.ok)
            return refuse(ESTADO_RECEP_ENV.SIGNATURE, 'envelope_signature', signature.detail);
        checks.push(pass('envelope_signature', signature.detail));
        const rutReceptor = normalizeRut(base.caratula.rutReceptor);
        if (rutReceptor !== ctx.receiverRut) {
            return refuse(ESTADO_RECEP_ENV.RECEIVER_RUT, 'caratula_receiver', `la Caratula está dirigida a ${base.caratula.rutReceptor}, no a ${ctx.receiverRut}`);
        }
        checks.push(pass('caratula_receiver', `dirigido a ${ctx.receiverRut}`));
        domDtes = childElements(setDte).filter((e) => e.localName === 'DTE').length;
    }
    if (await ctx.seenFile(base.sha256)) {
        return refuse(ESTADO_RECEP_ENV.REPEATED, 'repeated_file', `este mismo archivo ya se recibió (sha256 ${base.sha256})`);
    }
    checks.push(pass('repeated_file', 'archivo no recibido antes'));
    if (slices.length !== domDtes || slices.length === 0) {
        return refuse(ESTADO_RECEP_ENV.OTHER, 'structure', `no se pudieron separar los DTE del sobre (${domDtes} elementos DTE, ${slices.length} recortados)`);
    }
    checks.push(pass('structure', `${slices.length} DTE`));
    const seenHere = new Set();
    const documents = [];
    for (const [index, slice] of slices.entries()) {
        documents.push(await checkDocument(index, slice.text, sliceBytes(slice), base.caratula, ctx, seenHere));
    }
    return envelopeResult(base, ESTADO_RECEP_ENV.OK, null, documents);
}
async function checkDocument(index, text, bytes, caratula, ctx, seenHere) {
    const checks = [];
    const dte = readDte(text);
    const done = (estado, check, detail) => {
        if (check && detail)
            checks.push(fail(check, detail));
        return { index, dte, bytes, estado, glosa: GLOSA_RECEP_DTE[estado], reason: detail, checks };
    };
    if (!dte)
        return done(ESTADO_RECEP_DTE.OTHER, 'dte_readable', 'el DTE no se puede leer (falta TipoDTE, Folio o Documento)');
    checks.push(pass('dte_readable', `DTE tipo ${dte.type} folio ${dte.folio}`));
    let signature;
    try {
        signature = verifyDte(text);
    }
    catch (e) {
        return done(ESTADO_RECEP_DTE.SIGNATURE, 'dte_signature', `la firma del Documento no se puede leer: ${e.message}`);
    }
    if (dte.idCount !== 1) {
        return done(ESTADO_RECEP_DTE.SIGNATURE, 'dte_signature', `el ID ${dte.documentId || '(vacío)'} del Documento no es único en el DTE`);
    }
    if (signature.referenceUri !== `#${dte.documentId}`) {
        return done(ESTADO_RECEP_DTE.SIGNATURE, 'dte_signature', `la firma referencia ${describeUri(signature.referenceUri)}, no el Documento #${dte.documentId}`);
    }
    if (!signature.valid) {
        return done(ESTADO_RECEP_DTE.SIGNATURE, 'dte_signature', `la firma del Documento no verifica: ${signatureReason(signature.reason)}`);
    }
    checks.push(pass('dte_signature', `firma del Documento #${dte.documentId} válida`));
    const issuerRut = normalizeRut(dte.issuerRut);
    if (!issuerRut || (caratula && issuerRut !== normalizeRut(caratula.rutEmisor))) {
        return done(ESTADO_RECEP_DTE.ISSUER_RUT, 'issuer_rut', caratula
            ? `RUTEmisor ${dte.issuerRut} distinto del RutEmisor de la Caratula (${caratula.rutEmisor})`
            : `RUTEmisor ${dte.issuerRut} no es un RUT válido`);
    }
    checks.push(pass('issuer_rut', `emisor ${issuerRut}`));
    if (normalizeRut(dte.receiverRut) !== ctx.receiverRut) {
        return done(ESTADO_RECEP_DTE.RECEIVER_RUT, 'receiver_rut', `RUTRecep ${dte.receiverRut} no es ${ctx.receiverRut}`);
    }
    checks.push(pass('receiver_rut', `receptor ${ctx.receiverRut}`));
    const key = `${issuerRut}|${dte.type}|${dte.folio}`;
    if (seenHere.has(key) || (await ctx.seenDocument(issuerRut, dte.type, dte.folio))) {
        return done(ESTADO_RECEP_DTE.REPEATED, 'repeated_dte', `el DTE tipo ${dte.type} folio ${dte.folio} de ${issuerRut} ya se recibió`);
    }
    seenHere.add(key);
    checks.push(pass('repeated_dte', 'no recibido antes'));
    const ted = tedProblem(dte, issuerRut, ctx.trustedCafKeys);
    if (ted)
        return done(ESTADO_RECEP_DTE.OTHER, 'ted', `timbre electrónico (TED) inválido: ${ted}`);
    checks.push(pass('ted', `TED válido (CAF IDK ${dte.ted?.caf?.idk})`));
    return done(ESTADO_RECEP_DTE.OK, null, null);
}
/** What is wrong with the TED, or null: DD against the document, the CAF, FRMA and FRMT. */
function tedProblem(dte, issuerRut, keys) {
    const ted = dte.ted;
    if (!ted)
        return 'no hay TED legible';
    if (normalizeRut(ted.re) !== issuerRut)
        return `RE ${ted.re} no es el emisor`;
    if (ted.td !== String(dte.type) || ted.f !== String(dte.folio))
        return 'TD o F no coinciden con el documento';
    if (ted.fe !== dte.date)
        return `FE ${ted.fe} no es la FchEmis ${dte.date}`;
    if (normalizeRut(ted.rr) !== normalizeRut(dte.receiverRut))
        return `RR ${ted.rr} no es el RUTRecep`;
    // MNT is byte-identical to MntTotal (TED-3-640, docs/sii-reference.md §3.1).
    if (ted.mnt !== dte.totalText)
        return `MNT ${ted.mnt} no es el MntTotal ${dte.totalText}`;
    const caf = ted.caf;
    if (!caf)
        return 'el TED no trae un CAF legible';
    if (normalizeRut(caf.re) !== issuerRut || caf.td !== dte.type)
        return 'el CAF es de otro emisor o de otro tipo';
    if (dte.folio < caf.from || dte.folio > caf.to)
        return `el folio ${dte.folio} está fuera del rango del CAF (${caf.from}–${caf.to})`;
    if (!verifyCafSignature(caf, keys))
        return `la firma del SII sobre el CAF (FRMA, IDK ${caf.idk}) no verifica`;
    let frmtOk = false;
    try {
        frmtOk = verify('sha1', tedBytes(ted.dd), cafPublicKey(caf), Buffer.from(ted.frmt, 'base64'));
    }
    catch {
        frmtOk = false;
    }
    return frmtOk ? null : 'la firma FRMT no verifica con la llave del CAF';
}
