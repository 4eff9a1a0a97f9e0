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
 */
import { isRealDate } from '../dte/calendar-date.ts';
import { SII_NS } from '../dte/dte-xml.ts';
import { normalizeRut } from '../dte/rut.ts';
import { escapeXml } from '../dte/xml-text.ts';
import { encodeLatin1, type SignatureKey, signXml, withXmlDeclaration } from '../dte/xmldsig.ts';
import { validateXml } from '../dte/xsd.ts';
import { ANSWERABLE_TYPES } from './codes.ts';

interface RespuestaDocument {
  type: number;
  folio: number;
  date: string;
  issuerRut: string;
  receiverRut: string;
  total: number;
  estado: number;
  glosa: string;
}

export interface RespuestaInput {
  /** RutResponde: this issuer, answering. */
  responderRut: string;
  /** RutRecibe: the envelope's issuer (Carátula RutEmisor). */
  recipientRut: string;
  /** IdRespuesta and CodEnvio: Timbre's number for the received envelope (> 0). */
  number: number;
  /** NmbEnvio: the file name (≤ 80). */
  fileName: string;
  /** FchRecep and TmstFirmaResp, YYYY-MM-DDTHH:MM:SS (Chile). */
  receivedAt: string;
  signedAt: string;
  /** EnvioDTEID: the received SetDTE/@ID; Digest: its signature's DigestValue. */
  setId: string;
  digest: string | null;
  caratulaIssuerRut: string | null;
  caratulaReceiverRut: string | null;
  estado: number;
  /** The code's glosa, plus the reason (cut to the schema's 256 characters). */
  glosa: string;
  dteCount: number;
  documents: RespuestaDocument[];
}

const el = (name: string, value: string | number) => `<${name}>${escapeXml(String(value))}</${name}>\n`;
const cut = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

function answerable(d: RespuestaDocument): boolean {
  return (
    ANSWERABLE_TYPES.includes(d.type) &&
    d.folio > 0 &&
    d.folio <= 9_999_999_999 &&
    isRealDate(d.date) &&
    normalizeRut(d.issuerRut) !== null &&
    normalizeRut(d.receiverRut) !== null &&
    Number.isSafeInteger(d.total) &&
    d.total >= 0
  );
}

/** The signed RespuestaDTE as ISO-8859-1 bytes. */
export function buildRespuesta(input: RespuestaInput, cert: SignatureKey): Buffer {
  const id = `RespuestaEnvio${input.number}`;
  const rut = (r: string | null) => (r ? normalizeRut(r) : null);
  const recepcionDte = input.documents
    .filter(answerable)
    .map(
      (d) =>
        `<RecepcionDTE>\n${el('TipoDTE', d.type)}${el('Folio', d.folio)}${el('FchEmis', d.date)}` +
        `${el('RUTEmisor', normalizeRut(d.issuerRut)!)}${el('RUTRecep', normalizeRut(d.receiverRut)!)}` +
        `${el('MntTotal', d.total)}${el('EstadoRecepDTE', d.estado)}${el('RecepDTEGlosa', cut(d.glosa, 256))}</RecepcionDTE>\n`,
    )
    .join('');
  const emisor = rut(input.caratulaIssuerRut);
  const receptor = rut(input.caratulaReceiverRut);
  const unsigned =
    `<RespuestaDTE xmlns="${SII_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
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
  const bytes = encodeLatin1(
    withXmlDeclaration(signXml(unsigned, cert, { referenceId: id, parentClose: '</RespuestaDTE>' })),
  );
  const check = validateXml(bytes, 'RespuestaEnvioDTE_v10.xsd');
  if (!check.valid) throw new Error(`RespuestaDTE not valid against its schema: ${check.errors.join('; ')}`);
  return bytes;
}
