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
  return signRespuesta(unsigned, id, cert);
}

/** Signs a RespuestaDTE (Reference `#<Resultado/@ID>`) and checks it against its schema. */
function signRespuesta(unsigned: string, id: string, cert: SignatureKey): Buffer {
  const bytes = encodeLatin1(
    withXmlDeclaration(signXml(unsigned, cert, { referenceId: id, parentClose: '</RespuestaDTE>' })),
  );
  const check = validateXml(bytes, 'RespuestaEnvioDTE_v10.xsd');
  if (!check.valid) throw new Error(`RespuestaDTE not valid against its schema: ${check.errors.join('; ')}`);
  return bytes;
}

/** `EstadoDTE` of a ResultadoDTE (FRESP §3; RespuestaEnvioDTE_v10.xsd allows only these three). */
export const ESTADO_DTE = { ACCEPTED: 0, ACCEPTED_WITH_DISCREPANCIES: 1, REJECTED: 2 } as const;
export type EstadoDte = (typeof ESTADO_DTE)[keyof typeof ESTADO_DTE];

/** The glosas FRESP asks for; a discrepancy or rejection adds its reason after them. */
const GLOSA_ESTADO_DTE: Record<EstadoDte, string> = {
  0: 'ACEPTADO OK',
  1: 'ACEPTADO CON DISCREPANCIAS',
  2: 'RECHAZADO',
};

export interface ResultadoInput {
  /** RutResponde: this issuer (the document's receiver), answering. */
  responderRut: string;
  /** RutRecibe: the supplier (the document's RUTEmisor). */
  recipientRut: string;
  /** IdRespuesta: Timbre's number for this answer (> 0). */
  number: number;
  /** TmstFirmaResp, YYYY-MM-DDTHH:MM:SS (Chile). */
  signedAt: string;
  document: {
    type: number;
    folio: number;
    date: string;
    issuerRut: string;
    receiverRut: string;
    total: number;
    /** CodEnvio: Timbre's number for the envelope the document came in (> 0). */
    envelopeNumber: number;
  };
  estado: EstadoDte;
  /** The reason, written after the state's glosa (cut to the schema's 256 characters). */
  reason: string | null;
}

/** The signed RespuestaDTE with one `ResultadoDTE` (a decision on a received document). */
export function buildResultado(input: ResultadoInput, cert: SignatureKey): Buffer {
  const id = `ResultadoDTE${input.number}`;
  const d = input.document;
  const glosa = input.reason ? `${GLOSA_ESTADO_DTE[input.estado]}: ${input.reason}` : GLOSA_ESTADO_DTE[input.estado];
  const unsigned =
    `<RespuestaDTE xmlns="${SII_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
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
