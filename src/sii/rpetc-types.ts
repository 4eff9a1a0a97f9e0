/**
 * The types of the SII's registry of cesiones, RPETC (the AEC upload RTCAnotEnvio.cgi and the
 * status service wsRPETCConsulta; src/sii/rpetc.ts speaks them): below both that file and
 * src/sii/types.ts, which carries the service on SiiClient.
 */
import type { SigningCertificate } from '../dte/certificate.ts';

export interface AecUploadInput {
  /** Signs the seed; its holder must act for the cedente. */
  cert: SigningCertificate;
  /** The cedente (rutCompany / dvCompany), with check digit. */
  companyRut: string;
  /** emailNotif: where the SII mails the result of the registration. */
  email: string;
  /** The signed AEC, ISO-8859-1 bytes, sent as they are. */
  aec: Buffer;
  /** The `archivo` part's file name; default `AEC.xml`. */
  fileName?: string;
}

export interface AecUploadAnswer {
  /** STATUS: 0 received (with TRACKID); 1, 2, 4, 6 refused (see RPETC_UPLOAD_STATUS). */
  status: number;
  /** TRACKID, only with STATUS 0. */
  trackId?: string;
  /** The meaning of STATUS, in Spanish. */
  glosa: string;
  /** STATUS 0: the registry took the file and will validate it (getEstEnvio follows it). */
  accepted: boolean;
}

/** RESP_HDR of every wsRPETCConsulta answer: ESTADO and its meaning (RPETC_HEADER_CODES). */
export interface RpetcHeader {
  code: number;
  /** GLOSA as the SII wrote it, else the manual's meaning of the code. */
  glosa: string;
}

export interface AecEnvioStatus {
  /**
   * ESTADO_ENVIO (UPL, RCP, RSC, SOK, RFS, FSO, RCR, COK, VDC, RDC, VCS, RCS, EOK, EAN); null when
   * the header is not 0 (e.g. 2: the SII has no such envío).
   */
  estado: string | null;
  /** DESC_ESTADO as the SII wrote it, else the meaning of the estado (or of the header code). */
  glosa: string;
  /** No further state will follow (EOK, EAN or a rejection). */
  final: boolean;
  /** EOK: the cesión is registered. */
  accepted: boolean;
  header: RpetcHeader;
}

export interface EstCesionInput {
  cert: SigningCertificate;
  /** The ceded document's issuer, with check digit. */
  issuerRut: string;
  type: number;
  folio: number;
  /** The cesión's access key ("clave de acceso a la información de la cesión"): with it the details come back. */
  idCesion?: string;
}

export interface EstCesionRelacInput {
  cert: SigningCertificate;
  issuerRut: string;
  type: number;
  folio: number;
  /** A company linked to the document as its holder or its receiver; the certificate holder acts for it. */
  companyRut: string;
}

export interface CesionStatus {
  /** RESP_HDR ESTADO (RPETC_HEADER_CODES): 0 = the document is ceded. */
  code: number;
  glosa: string;
  cedido: boolean;
  /** RUT_TENEDOR: the current holder of the credit (only in detailed answers). */
  holderRut?: string;
  /** FECHA_ULT_ANOT: the last annotation in the registry, as written ("YYYY-MM-DD HH:MM:SS"). */
  lastAnnotation?: string;
  /** DEC_JURADA: whether a sworn declaration is attached (EXISTE). */
  declaracionJurada?: boolean;
  /** RUT_COBRANZA / DIR_COBRANZA: when the credit is in collection. */
  collectorRut?: string;
  collectorAddress?: string;
}

/** The registry of cesiones as SiiClient carries it (the DTEWS token, like the claims registry). */
export interface RpetcService {
  uploadAec(input: AecUploadInput): Promise<AecUploadAnswer>;
  getEstEnvio(input: { cert: SigningCertificate; trackId: string }): Promise<AecEnvioStatus>;
  getEstCesion(input: EstCesionInput): Promise<CesionStatus>;
  getEstCesionRelac(input: EstCesionRelacInput): Promise<CesionStatus>;
}
