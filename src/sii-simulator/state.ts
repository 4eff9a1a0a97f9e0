/**
 * What the simulated SII remembers, in memory only: registered issuers, received uploads and
 * the documents it accepted (the "registry" QueryEstDte answers from and duplicate folios are
 * checked against). Nothing here touches Timbre's database.
 */

/** Channels a file can arrive by (docs/sii-reference.md §7.3, §7.6). */
export type Channel = 'dteupload' | 'boleta-rest';

export type EnvelopeKind = 'dte' | 'boleta';

/**
 * Envelope states (docs/sii-reference.md §7.4). In-progress: REC, SOK, FOK, PDR (the REST API says PRD),
 * CRT; terminal: EPR, or a reject of the whole envelope: RSC, RFR, RCT, RPT.
 */
export type EnvelopeEstado = 'REC' | 'SOK' | 'FOK' | 'PDR' | 'CRT' | 'EPR' | 'RSC' | 'RFR' | 'RCT' | 'RPT';

export const ENVELOPE_GLOSAS: Record<EnvelopeEstado, string> = {
  REC: 'Envio Recibido',
  SOK: 'Schema Validado',
  FOK: 'Firma de Envio Validada',
  PDR: 'Envio en Proceso',
  CRT: 'Caratula OK',
  EPR: 'Envio Procesado',
  RSC: 'Rechazado por Error en Schema',
  RFR: 'Rechazado por Error en Firma',
  RCT: 'Rechazado por Error en Caratula',
  RPT: 'Envio Repetido Rechazado',
};

/**
 * An error on a document or an envelope, written by the SII as SECCION-NIVEL-CODIGO
 * (e.g. DTE-3-505); level 1 = reparo leve, 2 = reparo, 3 = rechazo (docs/sii-reference.md §7.4).
 */
export interface SiiError {
  section: string;
  level: 1 | 2 | 3;
  code: number;
  description: string;
}

export const errorCode = (e: SiiError): string => `${e.section}-${e.level}-${e.code}`;
export const errorText = (e: SiiError): string => `(${errorCode(e)}) ${e.description}`;

/**
 * The verdict on one document after EPR: accepted, accepted with objections (RLV leve,
 * RPR reparo) or rejected (RCH) (docs/sii-reference.md §7.4, RESULTADO_ENVIO).
 */
export type DocumentEstado = 'ACEPTADO' | 'RLV' | 'RPR' | 'RCH';

export interface DocumentResult {
  type: number;
  folio: number;
  estado: DocumentEstado;
  errors: SiiError[];
}

export interface EnvelopeRejection {
  estado: 'RSC' | 'RFR' | 'RCT' | 'RPT';
  /** The GLOSA of QueryEstUp, e.g. "Rechazado por Error en Caratula (CRT-3-19) …". */
  glosa: string;
  /** Detail lines (schema errors, the failed Carátula rule …). */
  detail: string[];
}

export interface UploadRecord {
  /** 10 digits for DTEUpload, 15 for the boleta REST API (docs/sii-reference.md §7.3, §7.6). */
  trackId: string;
  channel: Channel;
  filename: string;
  /** rutSender-dvSender: the token's certificate holder. */
  senderRut: string;
  /** rutCompany-dvCompany. */
  companyRut: string;
  sha256: string;
  size: number;
  receivedAt: Date;
  kind: EnvelopeKind | null;
  /** The states this upload walks through, one per processing step; the last one is final. */
  path: EnvelopeEstado[];
  step: number;
  rejection: EnvelopeRejection | null;
  documents: DocumentResult[];
  /** How many times these exact bytes arrived (the STATUS 99 answers count the repeats). */
  timesSent: number;
}

export const currentEstado = (u: UploadRecord): EnvelopeEstado => u.path[u.step]!;
export const isFinal = (u: UploadRecord): boolean => u.step >= u.path.length - 1;
/** Documents of an upload count as received once the envelope is processed (EPR). */
export const isProcessed = (u: UploadRecord): boolean => isFinal(u) && currentEstado(u) === 'EPR';

/** An issuer the SII knows, with the resolution its Carátulas must carry (CRT-3-19). */
export interface RegisteredIssuer {
  rut: string;
  /** FchResol, YYYY-MM-DD. */
  resolutionDate: string;
  /** NroResol (0 in certification). */
  resolutionNumber: number;
  /** RS of the CAFs handed out to it (40 characters at most). */
  name?: string;
}

/** A note (56/61) that modifies an accepted document (QueryEstDte TMx / MMx / ANx). */
interface Modification {
  noteType: 56 | 61;
  /** CodRef: 1 anula, 2 corrige texto, 3 corrige montos. */
  codRef: 1 | 2 | 3;
  upload: UploadRecord;
}

/** A document the SII accepted (with or without objections). */
export interface RegisteredDocument {
  issuerRut: string;
  type: number;
  folio: number;
  /** FchEmis, YYYY-MM-DD. */
  date: string;
  receiverRut: string;
  /** MntTotal as written in the document. */
  total: string;
  sha256: string;
  estado: Exclude<DocumentEstado, 'RCH'>;
  upload: UploadRecord;
  modifications: Modification[];
}

const documentKey = (issuerRut: string, type: number, folio: number) => `${issuerRut}|${type}|${folio}`;

export class DocumentRegistry {
  private readonly docs = new Map<string, RegisteredDocument>();

  find(issuerRut: string, type: number, folio: number): RegisteredDocument | undefined {
    return this.docs.get(documentKey(issuerRut, type, folio));
  }

  add(doc: RegisteredDocument): void {
    this.docs.set(documentKey(doc.issuerRut, doc.type, doc.folio), doc);
  }
}
