/** How the dashboard writes numbers, RUTs, dates and states (es-CL; docs/dashboard.md "Layout"). */
import { dateOfInstantInSantiago } from '../dte/chile-time.js';
import { formatRutDisplay } from '../dte/rut.js';
/** `$ 1.234.567` (negative: `-$ 1.234`). */
export function money(n) {
    const v = typeof n === 'bigint' ? n : BigInt(Math.round(n));
    const neg = v < 0n;
    const digits = (neg ? -v : v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '.');
    return `${neg ? '-' : ''}$ ${digits}`;
}
/** `1.234,5` for quantities. */
export function decimal(n) {
    const [int, frac] = String(n).split('.');
    return `${(int ?? '0').replace(/\B(?=(\d{3})+(?!\d))/g, '.')}${frac ? `,${frac}` : ''}`;
}
/** `76.086.428-5` */
export function rut(r) {
    return formatRutDisplay(r);
}
/** A calendar date (`2026-11-23`, as the API and the DTE write it) → `23-11-2026`. */
export function date(d) {
    if (!d)
        return '—';
    const [y, m, day] = d.slice(0, 10).split('-');
    return `${day}-${m}-${y}`;
}
/**
 * The day an instant falls on in Santiago (a certificate's validity): `23-11-2026`. Its UTC day
 * would be a day late every evening from 20:00 or 21:00.
 */
export function dayInSantiago(d) {
    return d ? date(dateOfInstantInSantiago(d)) : '—';
}
const SANTIAGO = new Intl.DateTimeFormat('es-CL', {
    timeZone: 'America/Santiago',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
});
/** An instant in Santiago: `23-11-2026 14:05`. */
export function dateTime(d) {
    if (!d)
        return '—';
    const p = Object.fromEntries(SANTIAGO.formatToParts(d).map((x) => [x.type, x.value]));
    return `${p.day}-${p.month}-${p.year} ${p.hour}:${p.minute}`;
}
export const TYPE_NAMES = {
    33: 'Factura electrónica',
    34: 'Factura no afecta o exenta',
    39: 'Boleta electrónica',
    41: 'Boleta exenta',
    46: 'Factura de compra',
    52: 'Guía de despacho',
    56: 'Nota de débito',
    61: 'Nota de crédito',
};
export function typeName(t) {
    return TYPE_NAMES[t] ?? `Tipo ${t}`;
}
/** Estado SII → label and badge class (colour plus words: never colour alone). */
export const ESTADO_LABELS = {
    local: { label: 'Sandbox', tone: 'gray' },
    pendiente: { label: 'Pendiente', tone: 'amber' },
    enviado: { label: 'Enviado al SII', tone: 'blue' },
    aceptado: { label: 'Aceptado', tone: 'green' },
    aceptado_con_reparos: { label: 'Aceptado con reparos', tone: 'olive' },
    rechazado: { label: 'Rechazado', tone: 'red' },
    anulado: { label: 'Anulado', tone: 'struck' },
};
export const ROLE_LABELS = { owner: 'Dueño', editor: 'Editor', viewer: 'Lector' };
/** Whole days from `now` until `until` (negative when past). */
export function daysLeft(until, now) {
    return Math.floor((until.getTime() - now.getTime()) / 86_400_000);
}
/** Event types (docs/design.md §9) in words; the code itself is shown next to them for integrators. */
const EVENT_LABELS = {
    'document.issued': 'Documento emitido',
    'document.accepted': 'Aceptado por el SII',
    'document.accepted_with_objections': 'Aceptado con reparos por el SII',
    'document.rejected': 'Rechazado por el SII',
    'document.voided': 'Anulado',
    'document.restored': 'Vuelve a estar vigente',
    'document.submission_delayed': 'Envío al SII demorado',
    'folios.low': 'Quedan pocos folios',
    'folios.exhausted': 'Folios agotados',
    'caf.expiring': 'CAF por vencer',
    'certificate.expiring': 'Certificado por vencer',
    'certificate.expired': 'Certificado vencido',
    'email.sent': 'Correo enviado',
    'email.failed': 'Correo no enviado',
    ping: 'Prueba (ping)',
    'webhook.disabled': 'Webhook desactivado',
    'received.document': 'Documento recibido',
    'received.refused': 'Recepción rechazada',
    'received.accepted': 'Documento recibido aceptado',
    'received.claimed': 'Documento recibido reclamado',
    'received.decision_refused': 'Decisión rechazada por el SII',
    'received.deadline_near': 'Plazo de 8 días por vencer',
    'received.tacitly_accepted': 'Aceptado tácitamente (pasaron 8 días)',
    'document.receipt_acknowledged': 'El cliente otorgó recibo de mercaderías',
    'document.accepted_by_receiver': 'El cliente aceptó el contenido',
    'document.claimed': 'El cliente reclamó el documento',
    'document.tacitly_accepted': 'Aceptado tácitamente por el cliente',
    'cession.registered': 'Cesión registrada en el SII',
    'cession.rejected': 'Cesión rechazada por el SII',
};
export function eventLabel(type) {
    return EVENT_LABELS[type] ?? type;
}
/** An e-mail's state (email_messages.state) → label and badge tone. */
export const EMAIL_STATE_LABELS = {
    waiting: { label: 'Espera la aceptación del SII', tone: 'amber' },
    pending: { label: 'Pendiente', tone: 'amber' },
    sending: { label: 'Enviando', tone: 'blue' },
    sent: { label: 'Enviado', tone: 'green' },
    failed: { label: 'No enviado', tone: 'red' },
    disabled: { label: 'Correo desactivado', tone: 'gray' },
    cancelled: { label: 'Cancelado', tone: 'gray' },
};
