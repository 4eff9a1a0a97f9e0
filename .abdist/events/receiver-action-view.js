const CLAIMS = ['RCD', 'RFP', 'RFT'];
/** The actions' names as the SII gives them ([WSRR] accionDoc). */
export const ACTION_NAMES = {
    ACD: 'Acepta Contenido del Documento',
    RCD: 'Reclamo al Contenido del Documento',
    ERM: 'Otorga Recibo de Mercaderías o Servicios',
    RFP: 'Reclamo por Falta Parcial de Mercaderías',
    RFT: 'Reclamo por Falta Total de Mercaderías',
    NCA: 'Nota de crédito de anulación que referencia al documento',
    ENC: 'Nota de crédito que referencia al documento',
};
export function outcomeOf(events, pastDeadline) {
    const claim = events.find((e) => CLAIMS.includes(e.accion))?.accion ?? null;
    if (claim)
        return { outcome: 'reclamado', claim };
    if (events.some((e) => e.accion === 'ACD'))
        return { outcome: 'aceptado', claim: null };
    if (pastDeadline)
        return { outcome: 'aceptado_tacitamente', claim: null };
    if (events.some((e) => e.accion === 'ERM'))
        return { outcome: 'acuse_recibo', claim: null };
    return { outcome: 'pendiente', claim: null };
}
/** The API's view of a watch; null for documents that are not followed (sandbox, other types). */
export function receiverActionView(w) {
    if (!w)
        return null;
    const events = w.events ?? [];
    const outcome = w.outcome ?? 'pendiente';
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
