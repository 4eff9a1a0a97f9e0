/**
 * The event types of docs/design.md §9 and the shape of their payloads. A webhook delivery's body and
 * an entry of `GET /api/{rut}/events` are the same object: `{ id, type, created_at, data }`.
 */
export const EVENT_TYPES = [
    'document.issued',
    'document.accepted',
    'document.accepted_with_objections',
    'document.rejected',
    'document.voided',
    // A voided document becomes valid again when the credit note that
    // voided it is itself voided by a debit note ([FMT] CodRef 1 on a 56 referencing a 61).
    'document.restored',
    'document.submission_delayed',
    'folios.low',
    'folios.exhausted',
    'caf.expiring',
    'certificate.expiring',
    'certificate.expired',
    'email.sent',
    'email.failed',
    'ping',
    // The account is told by this event when an endpoint is disabled after days of failures
    // (docs/design.md §9).
    'webhook.disabled',
    // Received documents (README "Received documents"): a supplier's DTE passed the receiver's checks; a received envelope or DTE was refused.
    'received.document',
    'received.refused',
    // Decisions on received documents (README "Accepting and claiming received documents"): accepted
    // (ACD, with ERM) or claimed (RCD, RFP, RFT) at the SII, or decided locally in sandbox; refused by the SII.
    'received.accepted',
    'received.claimed',
    'received.decision_refused',
    // The 8-day clock of a received factura (docs/claims-registry.md §3): its deadline is near;
    // it passed without a decision (accepted by law).
    'received.deadline_near',
    'received.tacitly_accepted',
    // What the customer did with an issued factura at the SII's claims registry
    // (docs/claims-registry.md §5): ERM, ACD, a claim (RCD/RFP/RFT), or nothing for 8 days.
    'document.receipt_acknowledged',
    'document.accepted_by_receiver',
    'document.claimed',
    'document.tacitly_accepted',
    // Cesión of an issued factura at the SII's RPETC (README "Cesión"): the registry accepted the
    // AEC (EOK, the cesionario holds the factura now), or refused it (upload STATUS or RSC … RCS).
    // data: { cesion } — the cesión as GET /api/{rut}/cesiones lists it.
    'cession.registered',
    'cession.rejected',
];
export function isEventType(s) {
    return EVENT_TYPES.includes(s);
}
