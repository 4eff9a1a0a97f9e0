import { fromDbDate } from '../dte/calendar-date.js';
/** pendiente (stored, not yet taken by the SII) · enviada · aceptada (EOK) · rechazada. */
export const CESSION_STATES = ['pendiente', 'enviada', 'aceptada', 'rechazada'];
/** The states that hold the document: a second cesión or a voiding note is refused while one exists. */
export const LIVE_CESSION_STATES = ['pendiente', 'enviada', 'aceptada'];
export function cessionView(config, issuerRut, c, doc) {
    return {
        id: c.id,
        type: doc.type,
        folio: doc.folio,
        seq: c.seq,
        estado: c.estado,
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
export function documentCessionView(c) {
    return {
        id: c.id,
        estado: c.estado,
        cesionario: { rut: c.cesionarioRut, razon_social: c.cesionarioRazonSocial },
        tenedor: c.holderRut,
        sii_estado: c.siiEstado,
        sii_glosa: c.siiGlosa,
    };
}
/** The holder as stored on a received document (its detail), or null when never asked. */
export function receivedCessionView(d) {
    if (!d.cessionCheckedAt)
        return null;
    return {
        cedido: d.cessionHolderRut !== null,
        tenedor: d.cessionHolderRut,
        checked_at: d.cessionCheckedAt.toISOString(),
        message: d.cessionHolderRut
            ? `The supplier ceded this factura: pay its holder ${d.cessionHolderRut}, not the supplier.`
            : null,
    };
}
