/**
 * The receipt of goods or services under Ley 19.983 (docs/receiving.md §3; FREC; schemas
 * EnvioRecibos_v10.xsd and Recibos_v10.xsd): an `EnvioRecibos` → `SetRecibos` with a Carátula
 * and one `Recibo` per received document, sent to the supplier with the ERM registered at the SII.
 *
 * Two levels of signature, as FREC asks: each `Recibo` carries a Signature over its
 * `DocumentoRecibo`, then the whole is signed over `SetRecibos`. Each Recibo is signed as a
 * document of its own, declaring only the SII namespace, and placed unchanged in the set, whose
 * root declares the same namespace and nothing else: the canonical form of `DocumentoRecibo`
 * (inclusive C14N imports the namespaces in scope) is then the same alone and in the set, so
 * the signature verifies both ways (cut out, as the SII verifies DTEs, and in place, as xmlsec1
 * does). The signing is respuesta.ts's and the DTEs' (`signXml`); the result is checked against
 * the schema before it is returned.
 */
import { SII_NS } from '../dte/dte-xml.js';
import { normalizeRut } from '../dte/rut.js';
import { escapeXml } from '../dte/xml-text.js';
import { encodeLatin1, signXml, stripXmlDeclaration, withXmlDeclaration } from '../dte/xmldsig.js';
import { validateXml } from '../dte/xsd.js';
/**
 * `Declaracion`: fixed in Recibos_v10.xsd byte for byte (plain ASCII, no accents); any other
 * text is schema-invalid.
 */
export const RECIBO_DECLARACION = 'El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4, y la letra c) del Art. 5 de la Ley 19.983, acredita que la entrega de mercaderias o servicio(s) prestado(s) ha(n) sido recibido(s).';
const el = (name, value) => `<${name}>${escapeXml(String(value))}</${name}>\n`;
const rut = (r) => normalizeRut(r) ?? r;
/** The signed EnvioRecibos as ISO-8859-1 bytes. */
export function buildEnvioRecibos(input, cert) {
    const recibos = input.documents.map((d, i) => {
        const id = `Recibo${input.number}_${i + 1}`;
        const unsigned = `<Recibo xmlns="${SII_NS}" version="1.0">\n<DocumentoRecibo ID="${id}">\n` +
            `${el('TipoDoc', d.type)}${el('Folio', d.folio)}${el('FchEmis', d.date)}` +
            `${el('RUTEmisor', rut(d.issuerRut))}${el('RUTRecep', rut(d.receiverRut))}${el('MntTotal', d.total)}` +
            `${el('Recinto', d.recinto)}${el('RutFirma', rut(input.signerRut))}${el('Declaracion', RECIBO_DECLARACION)}` +
            `${el('TmstFirmaRecibo', input.signedAt)}</DocumentoRecibo>\n</Recibo>`;
        return stripXmlDeclaration(signXml(unsigned, cert, { referenceId: id, parentClose: '</Recibo>' }));
    });
    const setId = `SetRecibos${input.number}`;
    const unsigned = `<EnvioRecibos xmlns="${SII_NS}" version="1.0">\n<SetRecibos ID="${setId}">\n<Caratula version="1.0">\n` +
        `${el('RutResponde', rut(input.responderRut))}${el('RutRecibe', rut(input.recipientRut))}` +
        `${el('TmstFirmaEnv', input.signedAt)}</Caratula>\n${recibos.join('\n')}\n</SetRecibos>\n</EnvioRecibos>`;
    const bytes = encodeLatin1(withXmlDeclaration(signXml(unsigned, cert, { referenceId: setId, parentClose: '</EnvioRecibos>' })));
    const check = validateXml(bytes, 'EnvioRecibos_v10.xsd');
    if (!check.valid)
        throw new Error(`EnvioRecibos not valid against its schema: ${check.errors.join('; ')}`);
    return bytes;
}
