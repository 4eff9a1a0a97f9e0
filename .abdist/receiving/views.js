/** What the API shows of received documents: the list entry and the detail. */
import { fromDbDate } from '../dte/calendar-date.js';
import { receivedCessionView } from '../events/cession-view.js';
import { plazoOf } from './reception-clock.js';
function receivedDocumentUrl(ctx, issuer, d) {
    return `${ctx.config.publicBaseUrl}/api/${issuer.rut}/recibidos/${d.emisorRut}/${d.type}/${d.folio}`;
}
export function respuestaUrl(ctx, issuer, envelopeNumber) {
    return `${ctx.config.publicBaseUrl}/api/${issuer.rut}/recibidos_envios/${envelopeNumber}/respuesta`;
}
export function receivedDocumentView(ctx, issuer, d, envelope) {
    return {
        emisor: { rut: d.emisorRut, name: d.emisorName },
        type: d.type,
        folio: Number(d.folio),
        date: fromDbDate(d.date),
        totals: { net: Number(d.net), exempt: Number(d.exempt), vat: Number(d.vat), total: Number(d.total) },
        estado: d.state,
        envelope: Number(envelope.number),
        xml_url: `${receivedDocumentUrl(ctx, issuer, d)}/xml`,
        created_at: d.createdAt.toISOString(),
        plazo: plazoOf(d, ctx.clock()),
    };
}
export function receivedDocumentDetail(ctx, issuer, d, envelope) {
    const model = d.model;
    return {
        ...receivedDocumentView(ctx, issuer, d, envelope),
        receiver: model.receiver,
        lines: model.lines,
        refs: model.refs,
        checks: d.checks,
        ted: model.ted,
        respuesta_url: envelope.respuestaXml ? respuestaUrl(ctx, issuer, envelope.number) : null,
        pdf_url: `${receivedDocumentUrl(ctx, issuer, d)}/pdf`,
        cesion: receivedCessionView(d),
    };
}
