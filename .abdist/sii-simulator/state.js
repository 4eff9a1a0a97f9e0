/**
 * What the simulated SII remembers, in memory only: registered issuers, received uploads and
 * the documents it accepted (the "registry" QueryEstDte answers from and duplicate folios are
 * checked against). Nothing here touches Timbre's database.
 */
export const ENVELOPE_GLOSAS = {
    REC: 'Envio Recibido',
    SOK: 'Schema Validado',
    FOK: 'Firma de Envio Validada',
    PDR: 'Envio en Proceso',
    CRT: 'Caratula OK',
    EPR: 'Envio Procesado',
    RSC: 'Rechazado por Error en Schema',
    RFR: 'Rechazado por Error en Firma',
    RCT: 'Rechazado por Error en Caratula',
    RPT: 'Envio Repetido Rechazado',
};
export const errorCode = (e) => `${e.section}-${e.level}-${e.code}`;
export const errorText = (e) => `(${errorCode(e)}) ${e.description}`;
export const currentEstado = (u) => u.path[u.step];
export const isFinal = (u) => u.step >= u.path.length - 1;
/** Documents of an upload count as received once the envelope is processed (EPR). */
export const isProcessed = (u) => isFinal(u) && currentEstado(u) === 'EPR';
const documentKey = (issuerRut, type, folio) => `${issuerRut}|${type}|${folio}`;
export class DocumentRegistry {
    docs = new Map();
    find(issuerRut, type, folio) {
        return this.docs.get(documentKey(issuerRut, type, folio));
    }
    add(doc) {
        this.docs.set(documentKey(doc.issuerRut, doc.type, doc.folio), doc);
    }
}
