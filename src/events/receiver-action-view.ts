/**
 * What the API and the dashboard show of an issued factura's life at the SII's claims registry
 * (docs/claims-registry.md §5), read from its `registry_watches` row (src/issuing/receiver-actions.ts).
 */
import type { RegistryWatch } from '../generated/prisma/client.ts';

const CLAIMS = ['RCD', 'RFP', 'RFT'];

/** The actions' names as the SII gives them ([WSRR] accionDoc). */
export const ACTION_NAMES: Record<string, string> = {
  ACD: 'Acepta Contenido del Documento',
  RCD: 'Reclamo al Contenido del Documento',
  ERM: 'Otorga Recibo de Mercaderías o Servicios',
  RFP: 'Reclamo por Falta Parcial de Mercaderías',
  RFT: 'Reclamo por Falta Total de Mercaderías',
  NCA: 'Nota de crédito de anulación que referencia al documento',
  ENC: 'Nota de crédito que referencia al documento',
};

export interface StoredEvent {
  accion: string;
  rut: string;
  fecha: string;
  at: string | null;
}

export type ReceiverOutcome = 'pendiente' | 'acuse_recibo' | 'aceptado' | 'reclamado' | 'aceptado_tacitamente';

export interface ReceiverActionView {
  /** What the customer did so far (reclamado wins; aceptado_tacitamente once the 8 days passed). */
  outcome: ReceiverOutcome;
  claim: { code: string; description: string } | null;
  events: { accion: string; description: string; rut: string; at: string | null }[];
  sii_received_at: string | null;
  deadline: string | null;
  checked_at: string | null;
  /** For a claimed factura: what the issuer should do. */
  message: string | null;
}

export function outcomeOf(
  events: StoredEvent[],
  pastDeadline: boolean,
): { outcome: ReceiverOutcome; claim: string | null } {
  const claim = events.find((e) => CLAIMS.includes(e.accion))?.accion ?? null;
  if (claim) return { outcome: 'reclamado', claim };
  if (events.some((e) => e.accion === 'ACD')) return { outcome: 'aceptado', claim: null };
  if (pastDeadline) return { outcome: 'aceptado_tacitamente', claim: null };
  if (events.some((e) => e.accion === 'ERM')) return { outcome: 'acuse_recibo', claim: null };
  return { outcome: 'pendiente', claim: null };
}

/** The API's view of a watch; null for documents that are not followed (sandbox, other types). */
export function receiverActionView(
  w: Pick<RegistryWatch, 'events' | 'outcome' | 'claim' | 'siiReceivedAt' | 'deadline' | 'checkedAt'> | null,
): ReceiverActionView | null {
  if (!w) return null;
  const events = (w.events as unknown as StoredEvent[]) ?? [];
  const outcome = (w.outcome as ReceiverOutcome | null) ?? 'pendiente';
  return {
    outcome,
    claim: w.claim ? { code: w.claim, description: ACTION_NAMES[w.claim] ?? w.claim } : null,
    events: events.map((e) => ({
      accion: e.accion,
      description: ACTION_NAMES[e.accion] ?? e.accion,
      rut: e.rut,
      at: e.at,
    })),
    sii_received_at: w.siiReceivedAt?.toISOString() ?? null,
    deadline: w.deadline?.toISOString() ?? null,
    checked_at: w.checkedAt?.toISOString() ?? null,
    message: w.claim
      ? `The customer claimed this invoice at the SII (${w.claim}: ${ACTION_NAMES[w.claim] ?? w.claim}). Issue a credit note (type 61) that voids or corrects it.`
      : null,
  };
}
