/**
 * The Archivo Electrónico de Cesión (AEC) of a factura (FAEC v1.1; schemas AEC_v10.xsd,
 * DTECedido_v10.xsd, Cesion_v10.xsd): `AEC` → `DocumentoAEC` { Carátula, `Cesiones` {
 * `DTECedido`, `Cesion` } }, with three signatures, all by the cedente's certificate holder:
 * `DocumentoDTECedido` (FAEC B.6), `DocumentoCesion` (C.2) and `DocumentoAEC` (D).
 *
 * Only first cesiones are built (SeqCesion 1, the issuer ceding its own DTE): a re-cesión would
 * carry the earlier `DTECedido` and `Cesion`s unchanged, with their original signatures, and is
 * refused here.
 *
 * Signing follows recibos.ts: `DTECedido` and `Cesion` are each signed as documents of their
 * own, declaring only the SII namespace, then placed unchanged in the `AEC`, whose root declares
 * that same namespace and nothing else. Inclusive C14N imports the namespaces in scope, so the
 * canonical form of every signed element (and of the DTE's `Documento`, whose `<DTE>` declares
 * the SII namespace itself) is the same alone and in place: each signature verifies cut out, as
 * the SII verifies a DTE, and in place, as xmlsec1 does. The DTE is copied as the text of its
 * stored bytes (only the XML declaration dropped), never re-serialised.
 *
 * Before signing, the request is checked against the registry's rules that it alone decides
 * (cedente, amount, due date); before returning, the AEC is validated against AEC_v10.xsd and
 * every signature is verified both ways, with the DTE's own. Any failure throws
 * `AecInvalidError` with the reasons.
 */
import { SII_NS } from '../dte/dte-xml.js';
import { normalizeRut } from '../dte/rut.js';
import { decodeXmlBytes, escapeXml } from '../dte/xml-text.js';
import { checkSignatureElement, encodeLatin1, extractDtes, parseXml, signXml, stripXmlDeclaration, verifyDte, verifyRootSignature, withXmlDeclaration, } from '../dte/xmldsig.js';
import { validateXml } from '../dte/xsd.js';
import { readDte } from '../receiving/read-dte.js';
import { childElements } from '../dte/dom.js';
/** The AEC failed its own checks (schema, a signature); `reasons` lists each failure. */
export class AecInvalidError extends Error {
    reasons;
    constructor(reasons) {
        super(`AEC not valid: ${reasons.join('; ')}`);
        this.reasons = reasons;
        this.name = 'AecInvalidError';
    }
}
/** FAEC §1 and Cesion_v10.xsd `DTEFacturasType`: facturas (33, 34), liquidación-factura (43), factura de compra (46). */
const CEDIBLE_TYPES = new Set([33, 34, 43, 46]);
/** Cesion_v10.xsd: DeclaracionJurada and OtrasCondiciones are at most 512 characters. */
const DECLARACION_MAX = 512;
const el = (name, value) => `<${name}>${escapeXml(String(value))}</${name}>\n`;
const optional = (name, value) => (value ? el(name, value) : '');
const rut = (r) => normalizeRut(r) ?? r;
/**
 * The DeclaracionJurada in FAEC C.1 #14's words, required when the receipt of the goods is not
 * carried as an electronic Recibo. Names are shortened (evenly, from the longest) so that the
 * text fits the schema's 512 characters.
 */
export function declaracionJurada(p) {
    const text = (cedente, cesionario, deudor) => `Se declara bajo juramento que ${cedente}, RUT ${rut(p.cedente.rut)} ha puesto a disposición del cesionario ` +
        `${cesionario}, RUT ${rut(p.cesionario.rut)}, el o los documentos donde constan los recibos de las ` +
        'mercaderías entregadas o servicios prestados, entregados por parte del deudor de la factura ' +
        `${deudor}, RUT ${rut(p.deudor.rut)}, de acuerdo a lo establecido en la Ley N° 19.983.`;
    const names = [p.cedente.razonSocial, p.cesionario.razonSocial, p.deudor.razonSocial].map((n) => n.trim());
    const fixed = text('', '', '').length;
    let limit = Math.max(...names.map((n) => n.length));
    while (fixed + names.reduce((sum, n) => sum + Math.min(n.length, limit), 0) > DECLARACION_MAX)
        limit -= 1;
    const [a, b, c] = names.map((n) => n.slice(0, limit).trimEnd());
    return text(a, b, c);
}
function dteIdentity(dteXml) {
    const dtes = extractDtes(stripXmlDeclaration(decodeXmlBytes(dteXml)));
    if (dtes.length !== 1)
        throw new AecInvalidError([`expected one <DTE> element, found ${dtes.length}`]);
    const text = dtes[0];
    const dte = readDte(text);
    if (!dte)
        throw new AecInvalidError(['the DTE cannot be read']);
    // A DTE that no longer matches its own signature is refused before anything is signed over it.
    const own = verifyDte(text);
    if (!own.valid)
        throw new AecInvalidError([`DTE signature: ${own.reason ?? 'invalid'}`]);
    return { text, ...dte };
}
/** The signed AEC of a first cesión, as ISO-8859-1 bytes with the XML declaration. */
export function buildAec(input, cert) {
    if (input.seq !== 1)
        throw new AecInvalidError([`only first cesiones (SeqCesion 1) are built, not ${input.seq}`]);
    const dte = dteIdentity(input.dteXml);
    const refused = inputProblems(input, dte);
    if (refused.length > 0)
        throw new AecInvalidError(refused);
    const ids = {
        dteCedido: `DTECedido_${dte.type}_${dte.folio}`,
        cesion: `Cesion_${dte.type}_${dte.folio}_${input.seq}`,
        aec: `AEC_${dte.type}_${dte.folio}_${input.seq}`,
    };
    const dteCedido = signedDteCedido(input, dte.text, ids.dteCedido, cert);
    const cesion = signedCesion(input, dte, ids.cesion, cert);
    const unsigned = `<AEC xmlns="${SII_NS}" version="1.0">\n<DocumentoAEC ID="${ids.aec}">\n${caratula(input)}` +
        `<Cesiones>\n${dteCedido}\n${cesion}\n</Cesiones>\n</DocumentoAEC>\n</AEC>`;
    const text = withXmlDeclaration(signXml(unsigned, cert, { referenceId: ids.aec, parentClose: '</AEC>' }));
    const bytes = encodeLatin1(text);
    const reasons = aecProblems(bytes, { dte: dte.text, dteCedido, cesion });
    if (reasons.length > 0)
        throw new AecInvalidError(reasons);
    return bytes;
}
/**
 * What the registry would refuse in the request itself (ITEC p.5), refused here before signing:
 * a type that is not a factura, the cedente of a first cesión other than the issuer, MontoCesion a whole amount up to MntTotal,
 * UltimoVencimiento not before FchEmis.
 */
function inputProblems(input, dte) {
    const problems = [];
    if (!CEDIBLE_TYPES.has(dte.type))
        problems.push(`type ${dte.type} cannot be ceded (only 33, 34, 43 and 46)`);
    if (rut(input.cedente.rut) !== rut(dte.issuerRut))
        problems.push(`cedente ${input.cedente.rut} is not the DTE's issuer ${dte.issuerRut}`);
    if (!Number.isSafeInteger(input.monto) || input.monto < 1 || input.monto > Number(dte.totalText))
        problems.push(`monto ${input.monto} must be a whole amount from 1 to MntTotal ${dte.totalText}`);
    if (input.ultimoVencimiento < dte.date)
        problems.push(`ultimoVencimiento ${input.ultimoVencimiento} is before FchEmis ${dte.date}`);
    return problems;
}
function caratula(input) {
    return (`<Caratula version="1.0">\n${el('RutCedente', rut(input.cedente.rut))}${el('RutCesionario', rut(input.cesionario.rut))}` +
        `${optional('NmbContacto', input.contacto?.nombre)}${optional('FonoContacto', input.contacto?.fono)}` +
        `${optional('MailContacto', input.contacto?.email)}${el('TmstFirmaEnvio', input.signedAt)}</Caratula>\n`);
}
/** `DTECedido` (FAEC B): the DTE unchanged, the receiver's Recibos, TmstFirma; signed alone. */
function signedDteCedido(input, dteText, id, cert) {
    const recibos = (input.recibos ?? []).map((r) => `${stripXmlDeclaration(r).trim()}\n`).join('');
    const unsigned = `<DTECedido xmlns="${SII_NS}" version="1.0">\n<DocumentoDTECedido ID="${id}">\n${dteText}\n` +
        `${recibos}${el('TmstFirma', input.signedAt)}</DocumentoDTECedido>\n</DTECedido>`;
    return signXml(unsigned, cert, { referenceId: id, parentClose: '</DTECedido>' });
}
/** `Cesion` (FAEC C.1): IdDTE from the DTE itself, cedente, cesionario, amounts; signed alone. */
function signedCesion(input, dte, id, cert) {
    const { cedente, cesionario } = input;
    const declaracion = input.declaracionJurada ??
        (input.recibos?.length
            ? undefined
            : declaracionJurada({ cedente, cesionario, deudor: { rut: dte.receiverRut, razonSocial: dte.receiverName } }));
    const autorizados = cedente.autorizados
        .map((a) => `<RUTAutorizado>\n${el('RUT', rut(a.rut))}${el('Nombre', a.nombre)}</RUTAutorizado>\n`)
        .join('');
    const unsigned = `<Cesion xmlns="${SII_NS}" version="1.0">\n<DocumentoCesion ID="${id}">\n${el('SeqCesion', input.seq)}` +
        `<IdDTE>\n${el('TipoDTE', dte.type)}${el('RUTEmisor', dte.issuerRut)}${el('RUTReceptor', dte.receiverRut)}` +
        `${el('Folio', dte.folio)}${el('FchEmis', dte.date)}${el('MntTotal', dte.totalText)}</IdDTE>\n` +
        `<Cedente>\n${party(cedente)}${autorizados}${optional('DeclaracionJurada', declaracion)}</Cedente>\n` +
        `<Cesionario>\n${party(cesionario)}</Cesionario>\n` +
        `${el('MontoCesion', input.monto)}${el('UltimoVencimiento', input.ultimoVencimiento)}` +
        `${optional('OtrasCondiciones', input.otrasCondiciones)}${optional('eMailDeudor', input.emailDeudor)}` +
        `${el('TmstCesion', input.signedAt)}</DocumentoCesion>\n</Cesion>`;
    return signXml(unsigned, cert, { referenceId: id, parentClose: '</Cesion>' });
}
function party(p) {
    return `${el('RUT', rut(p.rut))}${el('RazonSocial', p.razonSocial)}${el('Direccion', p.direccion)}${el('eMail', p.email)}`;
}
/**
 * Every reason the finished AEC would be refused: its schema, then each signature in place
 * (the AEC's, the DTECedido's, the Cesion's, the DTE's) and alone (the DTECedido and the Cesion
 * as documents of their own, the DTE as the SII cuts it out).
 */
function aecProblems(bytes, parts) {
    const schema = validateXml(bytes, 'AEC_v10.xsd');
    if (!schema.valid)
        return schema.errors.map((e) => `AEC_v10.xsd: ${e}`);
    const reasons = [];
    const note = (what, check) => {
        if (!check.valid)
            reasons.push(`${what}: ${check.reason ?? 'invalid'}`);
    };
    const doc = parseXml(stripXmlDeclaration(bytes.toString('latin1')));
    const inPlace = signaturesInPlace(doc);
    note('AEC signature', inPlace.aec);
    note('DTECedido signature in place', inPlace.dteCedido);
    note('Cesion signature in place', inPlace.cesion);
    note('DTE signature in place', inPlace.dte);
    note('DTECedido signature alone', verifyRootSignature(parts.dteCedido));
    note('Cesion signature alone', verifyRootSignature(parts.cesion));
    note('DTE signature alone', verifyDte(parts.dte));
    return reasons;
}
const missing = { valid: false, reason: 'Signature missing' };
function signatureOf(doc, host) {
    const sig = host && childElements(host).find((e) => e.localName === 'Signature');
    return sig ? checkSignatureElement(doc, sig) : missing;
}
function signaturesInPlace(doc) {
    const root = doc.documentElement;
    const cesiones = childElements(childElements(root)[0]).find((e) => e.localName === 'Cesiones');
    const [dteCedido, cesion] = cesiones ? childElements(cesiones) : [];
    const documento = dteCedido && childElements(dteCedido)[0];
    const dte = documento && childElements(documento).find((e) => e.localName === 'DTE');
    return {
        aec: signatureOf(doc, root),
        dteCedido: signatureOf(doc, dteCedido),
        cesion: signatureOf(doc, cesion),
        dte: signatureOf(doc, dte),
    };
}
