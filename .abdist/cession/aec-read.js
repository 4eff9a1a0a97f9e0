import { holderRutOfCertificate } from '../dte/certificate.js';
import { at, child, childElements, textOf } from '../dte/dom.js';
import { SII_NS } from '../dte/dte-xml.js';
import { decodeXmlBytes } from '../dte/xml-text.js';
import { checkSignatureElement, parseXml, stripXmlDeclaration, verifyDte, } from '../dte/xmldsig.js';
/** The AEC cannot be read as an AEC (not XML, not an `AEC`, a part missing). */
export class AecReadError extends Error {
    constructor(reason) {
        super(reason);
        this.name = 'AecReadError';
    }
}
const number = (s) => (/^\d+$/.test(s) ? Number(s) : Number.NaN);
const named = (el, name) => el ? childElements(el).filter((c) => c.localName === name) : [];
/** Reads an AEC's bytes; throws `AecReadError` when they are not a readable AEC. */
export function readAec(bytes) {
    const text = stripXmlDeclaration(decodeXmlBytes(bytes));
    let doc;
    try {
        doc = parseXml(text);
    }
    catch (e) {
        throw new AecReadError(`not well-formed XML: ${e.message}`);
    }
    const root = doc.documentElement;
    if (root?.localName !== 'AEC')
        throw new AecReadError(`the root element is ${root?.localName ?? 'missing'}, not AEC`);
    const documento = child(root, 'DocumentoAEC');
    const caratula = child(documento, 'Caratula');
    const cesionesEl = child(documento, 'Cesiones');
    const dteCedido = child(cesionesEl, 'DTECedido');
    const documentoCedido = child(dteCedido, 'DocumentoDTECedido');
    const dteEl = child(documentoCedido, 'DTE');
    if (!caratula || !dteCedido || !dteEl)
        throw new AecReadError('the AEC lacks its Caratula, DTECedido or DTE');
    const cesionEls = named(cesionesEl, 'Cesion');
    if (cesionEls.length === 0)
        throw new AecReadError('the AEC carries no Cesion');
    const dteText = cutOut(text, 'DTE', 0);
    const cesionTexts = cesionEls.map((_, i) => cutOut(text, 'Cesion', i));
    return {
        caratula: {
            rutCedente: textOf(child(caratula, 'RutCedente')),
            rutCesionario: textOf(child(caratula, 'RutCesionario')),
            tmst: textOf(child(caratula, 'TmstFirmaEnvio')),
        },
        dte: { bytes: dteText ?? '', ...readDteIdentity(dteEl), recibos: named(documentoCedido, 'Recibo').length },
        cesiones: cesionEls.map(readCesion),
        signatures: {
            aec: signatureChecks(doc, root, null)[0] ?? NO_SIGNATURE,
            dteCedido: signatureChecks(doc, dteCedido, cutOut(text, 'DTECedido', 0))[0] ?? NO_SIGNATURE,
            dte: dteText ? guarded(() => verifyDte(dteText)) : { valid: false, reason: 'DTE text not found' },
            cesiones: cesionEls.map((c, i) => combined(signatureChecks(doc, c, cesionTexts[i] ?? null))),
        },
    };
}
const NO_SIGNATURE = { valid: false, reason: 'Signature missing' };
/** A signature check that reports, rather than throws, a key or certificate that cannot be read. */
function guarded(check) {
    try {
        return check();
    }
    catch (e) {
        return { valid: false, reason: `unreadable key or certificate: ${e.message}` };
    }
}
function combined(checks) {
    if (checks.length === 0)
        return NO_SIGNATURE;
    return checks.find((c) => !c.valid) ?? checks[0];
}
function readDteIdentity(dte) {
    const documento = childElements(dte).find((e) => ['Documento', 'Liquidacion', 'Exportaciones'].includes(e.localName ?? ''));
    const encabezado = child(documento, 'Encabezado');
    const idDoc = child(encabezado, 'IdDoc');
    return {
        type: number(textOf(child(idDoc, 'TipoDTE'))),
        folio: number(textOf(child(idDoc, 'Folio'))),
        date: textOf(child(idDoc, 'FchEmis')),
        issuerRut: textOf(at(encabezado, 'Emisor', 'RUTEmisor')),
        receiverRut: textOf(at(encabezado, 'Receptor', 'RUTRecep')),
        receiverName: textOf(at(encabezado, 'Receptor', 'RznSocRecep')),
        total: number(textOf(at(encabezado, 'Totales', 'MntTotal'))),
    };
}
function readParty(el) {
    return {
        rut: textOf(child(el, 'RUT')),
        razonSocial: textOf(child(el, 'RazonSocial')),
        direccion: textOf(child(el, 'Direccion')),
        email: textOf(child(el, 'eMail')),
    };
}
function readCesion(cesion) {
    const doc = child(cesion, 'DocumentoCesion');
    const idDte = child(doc, 'IdDTE');
    const cedente = child(doc, 'Cedente');
    const declaracion = child(cedente, 'DeclaracionJurada');
    const signatures = named(cesion, 'Signature');
    return {
        seq: number(textOf(child(doc, 'SeqCesion'))),
        idDte: {
            type: number(textOf(child(idDte, 'TipoDTE'))),
            issuerRut: textOf(child(idDte, 'RUTEmisor')),
            receiverRut: textOf(child(idDte, 'RUTReceptor')),
            folio: number(textOf(child(idDte, 'Folio'))),
            date: textOf(child(idDte, 'FchEmis')),
            total: number(textOf(child(idDte, 'MntTotal'))),
        },
        cedente: {
            ...readParty(cedente),
            autorizados: named(cedente, 'RUTAutorizado').map((a) => ({
                rut: textOf(child(a, 'RUT')),
                nombre: textOf(child(a, 'Nombre')),
            })),
            ...(declaracion && { declaracionJurada: textOf(declaracion) }),
        },
        cesionario: readParty(child(doc, 'Cesionario')),
        monto: number(textOf(child(doc, 'MontoCesion'))),
        ultimoVencimiento: textOf(child(doc, 'UltimoVencimiento')),
        tmst: textOf(child(doc, 'TmstCesion')),
        signatures: signatures.length,
        signerRuts: signatures.map(signerRut),
    };
}
/** The holder RUT in the X509Certificate of a Signature (null when absent or unreadable). */
function signerRut(signature) {
    const der = textOf(at(signature, 'KeyInfo', 'X509Data', 'X509Certificate')).replace(/\s+/g, '');
    if (!der)
        return null;
    try {
        return holderRutOfCertificate(Buffer.from(der, 'base64'));
    }
    catch {
        return null;
    }
}
/**
 * The text of the `index`-th element named `name` (any prefix) as it stands in the file; null
 * when it cannot be found. The elements cut out here never nest in themselves.
 */
function cutOut(text, name, index) {
    const re = new RegExp(`<((?:[\\w.-]+:)?${name})(?=[\\s>])[^>]*>[\\s\\S]*?</\\1\\s*>`, 'g');
    return [...text.matchAll(re)][index]?.[0] ?? null;
}
/**
 * Each `Signature` child of `host`, checked in place, then (when that fails) in the cut-out text
 * of `host` as written and with its default namespace toggled.
 */
function signatureChecks(doc, host, hostText) {
    const signatures = named(host, 'Signature');
    return signatures.map((sig, i) => {
        const inPlace = guarded(() => checkSignatureElement(doc, sig));
        if (inPlace.valid || !hostText)
            return inPlace;
        for (const variant of namespaceVariants(hostText)) {
            const alone = checkCutOut(variant, i);
            if (alone.valid)
                return alone;
        }
        return inPlace;
    });
}
function namespaceVariants(elementText) {
    const open = /^<[^>]*>/.exec(elementText)?.[0];
    if (!open)
        return [elementText];
    const rest = elementText.slice(open.length);
    const declared = /\sxmlns="[^"]*"/.test(open);
    const toggled = declared
        ? open.replace(/\sxmlns="[^"]*"/, '')
        : open.replace(/^<([\w.:-]+)/, `<$1 xmlns="${SII_NS}"`);
    return [elementText, toggled + rest];
}
function checkCutOut(elementText, signatureIndex) {
    let doc;
    try {
        doc = parseXml(elementText);
    }
    catch (e) {
        return { valid: false, reason: `not well-formed XML: ${e.message}` };
    }
    const sig = doc.documentElement ? named(doc.documentElement, 'Signature')[signatureIndex] : undefined;
    return sig ? guarded(() => checkSignatureElement(doc, sig)) : NO_SIGNATURE;
}
