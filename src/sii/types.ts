/**
 * The one interface between Timbre and the SII (docs/design.md §6): authentication is internal to an
 * implementation (seed → signed seed → token, cached per certificate and service), callers
 * only upload envelopes and ask for states. The real implementation speaks the SII's SOAP and
 * HTTP (src/sii/client.ts); the local simulator (src/sii-simulator/) answers the same
 * protocol, so tests exercise the real client against it.
 *
 * Two services exist (docs/sii-reference.md §7): "dte" (DTEWS SOAP + cgi_dte/UPL/DTEUpload) for facturas,
 * notas and guías, and "boleta" (the boleta REST API) for types 39 and 41. Their tokens are
 * not interchangeable.
 */
import type { SigningCertificate } from '../dte/certificate.ts';
import type { RegistroReclamoService } from './registro-types.ts';
import type { RpetcService } from './rpetc-types.ts';

export type SiiService = 'dte' | 'boleta';

export interface UploadInput {
  service: SiiService;
  /** Signs the seed; its holder RUT is rutSender. */
  cert: SigningCertificate;
  /** rutCompany / dvCompany. */
  issuerRut: string;
  /** The signed EnvioDTE / EnvioBOLETA, ISO-8859-1 bytes, sent as they are. */
  envelope: Buffer;
  /** The `archivo` part's file name. */
  filename: string;
}

export interface UploadResult {
  /**
   * DTEUpload STATUS (0 = received; 99 = the same file was already received, `trackId` is the
   * earlier one; 1..9 = refused, docs/sii-reference.md §7.3). The boleta REST upload maps to 0 on success.
   */
  status: number;
  trackId: string | null;
  /** What the SII said, for humans (DETAIL/ERROR lines, or the REST message). */
  detail: string[];
  /** The raw answer, for the document's history. */
  raw: string;
}

export interface UploadStatusInput {
  service: SiiService;
  cert: SigningCertificate;
  issuerRut: string;
  trackId: string;
}

export interface TypeCount {
  type: number;
  informed: number;
  accepted: number;
  rejected: number;
  objections: number;
}

/** A document named by the SII as rejected or accepted with objections (REST detalle_rep_rech). */
export interface DocumentVerdict {
  type: number;
  folio: number;
  /** RCH, RPR, RLV … */
  estado: string;
  detail: string[];
}

export interface UploadStatus {
  /** ESTADO: REC, SOK, FOK, PDR/PRD, CRT, EPR, RSC, RFR, RCT, RPT, RCO, RCH, RPR, VOF, -11, 001 … */
  estado: string;
  glosa: string;
  /** Per-type counts once EPR. */
  counts: TypeCount[];
  documents: DocumentVerdict[];
  raw: string;
}

export interface DocumentStatusInput {
  service: SiiService;
  cert: SigningCertificate;
  issuerRut: string;
  receiverRut: string;
  type: number;
  folio: number;
  /** FchEmis YYYY-MM-DD. */
  date: string;
  /** MntTotal. */
  total: number;
}

export interface DocumentStatus {
  /** DOK, DNK, FAU, FNA, FAN, EMP, TMD, TMC, MMD, MMC, AND, ANC, or an error code. */
  estado: string;
  glosa: string;
  /** ERR_CODE when given. */
  errorCode: string | null;
  raw: string;
}

export interface CafRequestInput {
  cert: SigningCertificate;
  issuerRut: string;
  type: number;
  count: number;
}

export interface SiiClient {
  upload(input: UploadInput): Promise<UploadResult>;
  uploadStatus(input: UploadStatusInput): Promise<UploadStatus>;
  documentStatus(input: DocumentStatusInput): Promise<DocumentStatus>;
  /** A CAF file (ISO-8859-1 bytes) for `count` new folios of `type`. */
  requestCaf(input: CafRequestInput): Promise<Buffer>;
  /** The claims registry (RegistroReclamoDTE), with the DTEWS token: src/sii/registro-reclamo.ts. */
  registro: RegistroReclamoService;
  /** The registry of cesiones (RPETC: the AEC upload and wsRPETCConsulta), with the DTEWS token: src/sii/rpetc.ts. */
  rpetc: RpetcService;
}

/**
 * The SII could not be reached and certainly did not receive the request (connection refused,
 * DNS, TLS, a refusal before the body was sent, or a 5xx on a read-only query): safe to retry.
 */
export class SiiUnavailableError extends Error {
  override name = 'SiiUnavailableError';
}

/**
 * The request was sent but no usable answer came back (timeout or reset after sending, a 5xx
 * to an upload): the SII may have received it. Ask before sending again (docs/design.md §6).
 */
export class SiiAmbiguousError extends Error {
  override name = 'SiiAmbiguousError';
}

/** The SII answered, but refused to authenticate (bad signature, unknown certificate …). */
export class SiiAuthError extends Error {
  override name = 'SiiAuthError';
}

/** The SII answered something we cannot read (not the documented shape). */
export class SiiProtocolError extends Error {
  override name = 'SiiProtocolError';
}
