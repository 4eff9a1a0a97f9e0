/**
 * From the SII's raw answers to Timbre's `estado_sii` (docs/design.md §5): one table, so every place
 * that reads an SII answer agrees. Sources: docs/sii-reference.md §7.3 (upload STATUS), §7.4 (envelope
 * ESTADO, after LibreDTE's EstadoEnvioSii mapping), §7.5 (document ESTADO).
 */
import { fromDbDate } from '../dte/calendar-date.js';
import { envelopeKindOf } from '../dte/envelope.js';
/** DTEUpload STATUS values that refuse the file for good (docs/sii-reference.md §7.3); others are retried. */
export const FINAL_UPLOAD_REFUSALS = {
    1: 'El usuario no tiene permiso para enviar',
    2: 'Error en el tamaño del archivo',
    3: 'Archivo cortado (tamaño distinto al informado)',
    6: 'Empresa no autorizada a enviar archivos',
    7: 'Esquema inválido',
    8: 'Error en la firma del documento',
};
/** Envelope ESTADO values that reject the whole envelope (terminal). */
const ENVELOPE_REJECTIONS = new Set(['RSC', 'RFR', 'RCT', 'RCO', 'RCH']);
/** What an upload-status answer means for the one document its envelope carries. */
export function verdictOfUpload(status, doc) {
    const estado = status.estado.toUpperCase();
    // RPT "envío repetido": this envelope repeats one the SII already has (a boleta re-sent after
    // an upload whose answer was lost); the earlier envelope decides, so ask about the document.
    if (estado === 'RPT')
        return { kind: 'ask-document' };
    if (ENVELOPE_REJECTIONS.has(estado)) {
        return { kind: 'final', estado: 'rechazado', glosa: status.glosa || estado };
    }
    if (estado === 'RPR' || estado === 'RLV') {
        return { kind: 'final', estado: 'aceptado_con_reparos', glosa: status.glosa || estado };
    }
    if (estado !== 'EPR')
        return { kind: 'processing' };
    // Documents named with a problem (REST detalle_rep_rech, or our own bookkeeping).
    const named = status.documents.find((d) => d.type === doc.type && d.folio === doc.folio);
    if (named) {
        const e = named.estado.toUpperCase();
        const glosa = [e, ...named.detail].join(' ');
        if (e === 'RCH' || e.startsWith('RCH'))
            return { kind: 'final', estado: 'rechazado', glosa };
        if (e === 'RLV' || e === 'RPR')
            return { kind: 'final', estado: 'aceptado_con_reparos', glosa };
    }
    // One document per envelope: the counts of its type identify it (docs/sii-reference.md §7.4).
    const count = status.counts.find((c) => c.type === doc.type);
    if (!count)
        return { kind: 'ask-document' };
    if (count.rejected > 0)
        return { kind: 'final', estado: 'rechazado', glosa: 'DTE rechazado' };
    if (count.objections > 0)
        return { kind: 'final', estado: 'aceptado_con_reparos', glosa: 'DTE aceptado con reparos' };
    if (count.accepted > 0)
        return { kind: 'final', estado: 'aceptado', glosa: 'DTE aceptado' };
    return { kind: 'ask-document' };
}
/** Document ESTADO (QueryEstDte / boleta estado) codes that mean the SII has the document. */
const RECEIVED = new Set(['DOK', 'TMD', 'TMC', 'MMD', 'MMC', 'AND', 'ANC']);
/** What a document-status answer means: null when the SII has not (yet) got the document. */
export function estadoOfDocument(status) {
    const e = status.estado.toUpperCase();
    if (e === 'ANC' || e === 'AND')
        return 'anulado';
    if (RECEIVED.has(e))
        return 'aceptado';
    if (e === 'DNK' || e === 'FNA' || e === 'FAN' || e === 'EMP')
        return 'rechazado';
    return null;
}
/** FAU: "not received" (or received but not processed yet). */
export function isNotReceived(status) {
    return status.estado.toUpperCase() === 'FAU';
}
/** The QueryEstDte / boleta-estado question about a stored document. */
export function documentStatusQuery(document, issuerRut, cert) {
    return {
        service: envelopeKindOf(document.type),
        cert,
        issuerRut,
        receiverRut: document.receiverRut,
        type: document.type,
        folio: document.folio,
        date: fromDbDate(document.date),
        total: Number(document.total),
    };
}
