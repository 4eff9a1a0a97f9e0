/**
 * The receiver's answer to an envelope: a RespuestaDTE with one `RecepcionEnvio`
 * (docs/receiving.md §2; FRESP; schema RespuestaEnvioDTE_v10.xsd), signed with the issuer's certificate
 * by the same XMLDSig code that signs DTEs (`signXml`: Reference `#<Resultado/@ID>`, the
 * Signature the second child of RespuestaDTE). Written as text in the element order of the
 * schema and checked against it before it is returned: an answer that fails is a Timbre bug.
 *
 * RecepcionDTE lists only the documents whose type the schema's `DTEType` allows (33, 34, 46,
 * 52, 56, 61) and whose identity fields are well-formed enough to write; `NroDTE` counts every
 * DTE of the envelope.
 *
 * The same file answers a commercial decision on a received document (`buildResultado`): a
 * RespuestaDTE whose choice is `ResultadoDTE` (FRESP §3: EstadoDTE 0 ACEPTADO OK, 1 ACEPTADO CON
 * DISCREPANCIAS, 2 RECHAZADO with the reason in the glosa), signed the same way.
 */
import { isRealDate } from '../dte/calendar-date.js';
import { SII_NS } from '../dte/dte-xml.js';
import { normalizeRut } from '../dte/rut.js';
import { escapeXml } from '../dte/xml-text.js';
import { encodeLatin1, signXml, withXmlDeclaration } from '../dte/xmldsig.js';
import { validateXml } from '../dte/xsd.js';
import { ANSWERABLE_TYPES } from './codes.js';
const el = (name, value) => `<${name}>${escapeXml(String(value))}</${name}>\n`;
const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
function answerable(d) {
    return (ANSWERABLE_TYPES.includes(d.type) &&
        d.folio > 0 &&
        d.folio <= 9_999_999_999 &&
        isRealDate(d.date) &&
        normalizeRut(d.issuerRut) !== null &&
        normalizeRut(d.receiverRut) !== null &&
        Number.isSafeInteger(d.total) &&
        d.total >= 0);
}
/** The signed RespuestaDTE as ISO-8859-1 bytes. */
export function buildRespuesta(input, cert) {
    const id = `RespuestaEnvio${input.number}`;
    const rut = (r) => (r ? normalizeRut(r) : null);
    const recepcionDte = input.documents
        .filter(answerable)
        .map((d) => `<RecepcionDTE>\n${el('TipoDTE', d.type)}${el('Folio', d.folio)}${el('FchEmis', d.date)}` +
        `${el('RUTEmisor', normalizeRut(d.issuerRut))}${el('RUTRecep', normalizeRut(d.receiverRut))}` +
        `${el('MntTotal', d.total)}${el('EstadoRecepDTE', d.estado)}${el('RecepDTEGlosa', cut(d.glosa, 256))}</RecepcionDTE>\n`)
        .join('');
    const emisor = rut(input.caratulaIssuerRut);
    const receptor = rut(input.caratulaReceiverRut);
    const unsigned = `<RespuestaDTE xmlns="${SII_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
        `xsi:schemaLocation="${SII_NS} RespuestaEnvioDTE_v10.xsd" version="1.0">\n` +
        `<Resultado ID="${id}">\n<Caratula version="1.0">\n` +
        `${el('RutResponde', input.responderRut)}${el('RutRecibe', input.recipientRut)}` +
        `${el('IdRespuesta', input.number)}${el('NroDetalles', 1)}${el('TmstFirmaResp', input.signedAt)}</Caratula>\n` +
        `<RecepcionEnvio>\n${el('NmbEnvio', cut(input.fileName, 80))}${el('FchRecep', input.receivedAt)}` +
        `${el('CodEnvio', input.number)}${el('EnvioDTEID', cut(input.setId, 80))}` +
        `${input.digest ? el('Digest', input.digest) : ''}${emisor ? el('RutEmisor', emisor) : ''}` +
        `${receptor ? el('RutReceptor', receptor) : ''}${el('EstadoRecepEnv', input.estado)}` +
        `${el('RecepEnvGlosa', cut(input.glosa, 256))}` +
        `${input.dteCount > 0 && input.dteCount < 10_000 ? el('NroDTE', input.dteCount) : ''}${recepcionDte}</RecepcionEnvio>\n` +
        `</Resultado>\n</RespuestaDTE>`;
    return signRespuesta(unsigned, id, cert);
}
/** Signs a RespuestaDTE (Reference `#<Resultado/@ID>`) and checks it against its schema. */
function signRespuesta(unsigned, id, cert) {
    const bytes = encodeLatin1(withXmlDeclaration(signXml(unsigned, cert, { referenceId: id, parentClose: '</RespuestaDTE>' })));
    const check = validateXml(bytes, 'RespuestaEnvioDTE_v10.xsd');
    if (!check.valid)
        throw new Error(`RespuestaDTE not valid against its schema: ${check.errors.join('; ')}`);
    return bytes;
}
/** `EstadoDTE` of a ResultadoDTE (FRESP §3; RespuestaEnvioDTE_v10.xsd allows only these three). */
export const ESTADO_DTE = { ACCEPTED: 0, ACCEPTED_WITH_DISCREPANCIES: 1, REJECTED: 2 };
/** The glosas FRESP asks for; a discrepancy or rejection adds its reason after them. */
const GLOSA_ESTADO_DTE = {
    0: 'ACEPTADO OK',
    1: 'ACEPTADO CON DISCREPANCIAS',
    2: 'RECHAZADO',
};
/** The signed RespuestaDTE with one `ResultadoDTE` (a decision on a received document). */
export function buildResultado(input, cert) {
    const id = `ResultadoDTE${input.number}`;
    const d = input.document;
    const glosa = input.reason ? `${GLOSA_ESTADO_DTE[input.estado]}: ${input.reason}` : GLOSA_ESTADO_DTE[input.estado];
    const unsigned = `<RespuestaDTE xmlns="${SII_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
        `xsi:schemaLocation="${SII_NS} RespuestaEnvioDTE_v10.xsd" version="1.0">\n` +
        `<Resultado ID="${id}">\n<Caratula version="1.0">\n` +
        `${el('RutResponde', normalizeRut(input.responderRut) ?? input.responderRut)}` +
        `${el('RutRecibe', normalizeRut(input.recipientRut) ?? input.recipientRut)}` +
        `${el('IdRespuesta', input.number)}${el('NroDetalles', 1)}${el('TmstFirmaResp', input.signedAt)}</Caratula>\n` +
        `<ResultadoDTE>\n${el('TipoDTE', d.type)}${el('Folio', d.folio)}${el('FchEmis', d.date)}` +
        `${el('RUTEmisor', normalizeRut(d.issuerRut) ?? d.issuerRut)}${el('RUTRecep', normalizeRut(d.receiverRut) ?? d.receiverRut)}` +
        `${el('MntTotal', d.total)}${el('CodEnvio', d.envelopeNumber)}${el('EstadoDTE', input.estado)}` +
        `${el('EstadoDTEGlosa', cut(glosa, 256))}</ResultadoDTE>\n` +
        `</Resultado>\n</RespuestaDTE>`;
    return signRespuesta(unsigned, id, cert);
}
