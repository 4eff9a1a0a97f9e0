/**
 * The types of the SII's claims registry (RegistroReclamoDTE, [WSRR]; src/sii/registro-reclamo.ts
 * speaks it): below both that file and src/sii/types.ts, which carries the service on SiiClient.
 */
import type { SigningCertificate } from '../dte/certificate.ts';

/** accionDoc ([WSRR] ingresarAceptacionReclamoDoc, field 5). */
export type AccionDoc = 'ACD' | 'RCD' | 'ERM' | 'RFP' | 'RFT';

/**
 * Events listarEventosHistDoc shows: the five actions, and two the SII records by itself when a
 * credit note references the document ([WSRR] v1.2): NCA (a voiding note), ENC (another note).
 * A code the SII adds later is kept as OTRO with its codEvento.
 */
export type EventoDoc = AccionDoc | 'NCA' | 'ENC' | 'OTRO';

/** The document an operation is about: the issuer's RUT, the type and the folio. */
export interface DocKey {
  /** With check digit, e.g. '76354771-K'. */
  rutEmisor: string;
  tipoDoc: number;
  folio: number | bigint;
}

/** What kind of answer a code is, for callers that branch on it. */
export type RegistroOutcome =
  /** 0: the action was recorded. */
  | 'ok'
  /** 7: it was already recorded (a repeated call, or the same action twice). */
  | 'already'
  /** The request is malformed for the SII (1–4): our bug or bad data, never retried. */
  | 'invalid'
  /** The SII refuses the action on this document (5, 6, 8, 10–14, 17–19). */
  | 'refused'
  /** An answer to a query (9, 15, 16, 20–25, 27). */
  | 'info';

export interface RegistroAnswer {
  codResp: number;
  /** As the SII wrote it (≤ 70 characters, names the earlier claim where the glosa says XXX). */
  descResp: string;
  /** The manual's meaning of codResp, in Spanish. */
  glosa: string;
  outcome: RegistroOutcome;
  /** rutToken: who the SII took the caller for (the certificate holder), when it says. */
  rutToken: string | null;
}

export interface RegistroEvento {
  accion: EventoDoc;
  /** codEvento as the SII wrote it. */
  codEvento: string;
  descEvento: string;
  /** Who registered it, with check digit; '' when the SII gives none (NCA/ENC). */
  rutResponsable: string;
  /** fechaEvento as the SII writes it: "DD-MM-YYYY HH:MM:SS", Santiago time. */
  fecha: string;
  /** The same instant; null when `fecha` is not in that form. */
  at: Date | null;
}

export interface IngresarAnswer extends RegistroAnswer {
  /** True on 0, and on 7: the event is at the SII (a retry of a call whose answer was lost). */
  registered: boolean;
}

export interface EventosAnswer extends RegistroAnswer {
  /** In the order the SII listed them. */
  eventos: RegistroEvento[];
}

export interface FechaRecepcionAnswer {
  /** 0 when the SII gave a date; otherwise 18 (it gave none: the document was not received). */
  codResp: number;
  /** The SII's string as returned (a date, or its explanation). */
  descResp: string;
  fechaRecepcion: Date | null;
}

/** The registry operations as SiiClient carries them (the certificate signs the seed for the token). */
export interface RegistroReclamoService {
  ingresar(cert: SigningCertificate, key: DocKey, accion: AccionDoc): Promise<IngresarAnswer>;
  listarEventos(cert: SigningCertificate, key: DocKey): Promise<EventosAnswer>;
  consultarCedible(cert: SigningCertificate, key: DocKey): Promise<RegistroAnswer>;
  consultarFechaRecepcion(cert: SigningCertificate, key: DocKey): Promise<FechaRecepcionAnswer>;
}
