/**
 * What the API, the events and the dashboard show of a cesión (README "Cesión"; src/cession/):
 * one shape, built here from the row and its document, so src/http and src/web never read the
 * table, and issued documents (src/issuing/) can show theirs.
 */
import type { Config } from '../config.ts';
import { fromDbDate } from '../dte/calendar-date.ts';
import type { Cession, Document } from '../generated/prisma/client.ts';

/** pendiente (stored, not yet taken by the SII) · enviada · aceptada (EOK) · rechazada. */
export const CESSION_STATES = ['pendiente', 'enviada', 'aceptada', 'rechazada'] as const;
export type CessionState = (typeof CESSION_STATES)[number];

/** The states that hold the document: a second cesión or a voiding note is refused while one exists. */
export const LIVE_CESSION_STATES: readonly CessionState[] = ['pendiente', 'enviada', 'aceptada'];

export interface CessionView {
  id: string;
  type: number;
  folio: number;
  seq: number;
  estado: CessionState;
  cesionario: { rut: string; razon_social: string; direccion: string; email: string };
  monto: number;
  ultimo_vencimiento: string;
  otras_condiciones: string | null;
  email_deudor: string | null;
  /** Who holds the factura at the registry: the cesionario, once the cesión is registered. */
  tenedor: string | null;
  sii_estado: string | null;
  sii_glosa: string | null;
  track_id: string | null;
  attempts: number;
  last_error: string | null;
  aec_url: string;
  created_at: string;
  updated_at: string;
}

/** The short form an issued document carries (`emisiones`, the detail) when it is ceded. */
export interface DocumentCessionView {
  id: string;
  estado: CessionState;
  cesionario: { rut: string; razon_social: string };
  tenedor: string | null;
  sii_estado: string | null;
  sii_glosa: string | null;
}

export function cessionView(
  config: Pick<Config, 'publicBaseUrl'>,
  issuerRut: string,
  c: Cession,
  doc: Pick<Document, 'type' | 'folio'>,
): CessionView {
  return {
    id: c.id,
    type: doc.type,
    folio: doc.folio,
    seq: c.seq,
    estado: c.estado as CessionState,
    cesionario: {
      rut: c.cesionarioRut,
      razon_social: c.cesionarioRazonSocial,
      direccion: c.cesionarioDireccion,
      email: c.cesionarioEmail,
    },
    monto: Number(c.monto),
    ultimo_vencimiento: fromDbDate(c.ultimoVencimiento),
    otras_condiciones: c.otrasCondiciones,
    email_deudor: c.emailDeudor,
    tenedor: c.holderRut,
    sii_estado: c.siiEstado,
    sii_glosa: c.siiGlosa,
    track_id: c.trackId,
    attempts: c.attempts,
    last_error: c.lastError,
    aec_url: `${config.publicBaseUrl}/api/${issuerRut}/cesiones/${c.id}/aec`,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function documentCessionView(
  c: Pick<
    Cession,
    'id' | 'estado' | 'cesionarioRut' | 'cesionarioRazonSocial' | 'holderRut' | 'siiEstado' | 'siiGlosa'
  >,
): DocumentCessionView {
  return {
    id: c.id,
    estado: c.estado as CessionState,
    cesionario: { rut: c.cesionarioRut, razon_social: c.cesionarioRazonSocial },
    tenedor: c.holderRut,
    sii_estado: c.siiEstado,
    sii_glosa: c.siiGlosa,
  };
}

/** A supplier's factura at the registry of cesiones, as last asked (src/cession/received-holder.ts). */
export interface ReceivedCessionView {
  cedido: boolean;
  /** RUT_TENEDOR: who is to be paid; null when not ceded. */
  tenedor: string | null;
  checked_at: string;
  /** For a ceded factura: whom to pay. */
  message: string | null;
}

/** The holder as stored on a received document (its detail), or null when never asked. */
export function receivedCessionView(d: {
  cessionHolderRut: string | null;
  cessionCheckedAt: Date | null;
}): ReceivedCessionView | null {
  if (!d.cessionCheckedAt) return null;
  return {
    cedido: d.cessionHolderRut !== null,
    tenedor: d.cessionHolderRut,
    checked_at: d.cessionCheckedAt.toISOString(),
    message: d.cessionHolderRut
      ? `The supplier ceded this factura: pay its holder ${d.cessionHolderRut}, not the supplier.`
      : null,
  };
}
