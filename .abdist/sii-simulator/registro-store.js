/**
 * The claims registry's state in the simulator (docs/claims-registry.md §4): the documents the
 * SII knows (accepted uploads, and others' documents registered by hand), their reception
 * date-times, the events recorded on them, and which certificate holder acts for which company.
 */
import { normalizeRut } from '../dte/rut.js';
const ACCIONES = {
    ACD: 'Acepta Contenido del Documento',
    RCD: 'Reclamo al Contenido del Documento',
    ERM: 'Otorga Recibo de Mercaderias o Servicios',
    RFP: 'Reclamo por Falta Parcial de Mercaderias',
    RFT: 'Reclamo por Falta Total de Mercaderias',
};
export const CLAIMS = ['RCD', 'RFP', 'RFT'];
export const isAccion = (v) => Object.hasOwn(ACCIONES, v);
const keyOf = (issuerRut, type, folio) => `${issuerRut}|${type}|${folio}`;
function instant(value, fallback) {
    if (value === undefined)
        return fallback;
    const at = new Date(value);
    if (Number.isNaN(at.getTime()))
        throw new Error('receivedAt must be a date-time');
    return at;
}
/** The registry's own state: documents registered by hand, moved receptions, events, authorisations. */
export class RegistroStore {
    clock;
    uploaded;
    external = new Map();
    receptions = new Map();
    events = new Map();
    authorizations = new Map();
    constructor(clock, uploaded) {
        this.clock = clock;
        this.uploaded = uploaded;
    }
    /** Another issuer's document, received by the SII at `receivedAt` (a supplier's factura). */
    registerReceived(input) {
        const issuerRut = normalizeRut(String(input.issuerRut ?? ''));
        const receiverRut = normalizeRut(String(input.receiverRut ?? ''));
        if (!issuerRut || !receiverRut)
            throw new Error('issuerRut and receiverRut must be valid RUTs');
        const type = Number(input.type);
        const folio = Number(input.folio);
        if (!Number.isInteger(type) || !Number.isInteger(folio) || folio < 1)
            throw new Error('bad type or folio');
        const receivedAt = instant(input.receivedAt, this.clock());
        const references = (input.references ?? []).map((r) => ({
            type: Number(r.type),
            folio: Number(r.folio),
            codRef: Number(r.codRef),
        }));
        this.external.set(keyOf(issuerRut, type, folio), { issuerRut, type, folio, receiverRut, receivedAt, references });
        this.receptions.delete(keyOf(issuerRut, type, folio));
    }
    /** Moves the SII's reception of a known document (day 7 / day 9 tests). */
    setReception(input) {
        const issuerRut = normalizeRut(String(input.issuerRut ?? ''));
        if (!issuerRut)
            throw new Error('issuerRut must be a valid RUT');
        const doc = this.find(issuerRut, Number(input.type), Number(input.folio));
        if (!doc)
            throw new Error('the simulator has not received that document');
        this.receptions.set(keyOf(doc.issuerRut, doc.type, doc.folio), instant(input.receivedAt, this.clock()));
    }
    /** Lets the certificate holder `holderRut` act for `companyRut` (from then on, only for those registered). */
    authorize(holderRut, companyRut) {
        const holder = normalizeRut(String(holderRut ?? ''));
        const company = normalizeRut(String(companyRut ?? ''));
        if (!holder || !company)
            throw new Error('holderRut and companyRut must be valid RUTs');
        const set = this.authorizations.get(holder) ?? new Set();
        set.add(company);
        this.authorizations.set(holder, set);
    }
    actsFor(holderRut, companyRut) {
        const set = this.authorizations.get(holderRut);
        return !set || set.has(companyRut);
    }
    find(issuerRut, type, folio) {
        const key = keyOf(issuerRut, type, folio);
        const moved = this.receptions.get(key);
        const external = this.external.get(key);
        // Credit notes registered by hand that reference this document, as NCA / ENC.
        const handNotes = [...this.external.values()]
            .filter((n) => n.type === 61 && n.issuerRut === issuerRut)
            .flatMap((n) => n.references.filter((r) => r.type === type && r.folio === folio).map((r) => note(r.codRef, n.receivedAt)));
        if (external) {
            const { references: _refs, ...doc } = external;
            return { ...doc, receivedAt: moved ?? external.receivedAt, notes: handNotes };
        }
        const doc = this.uploaded.find(issuerRut, type, folio);
        if (!doc)
            return null;
        const notes = doc.modifications.filter((m) => m.noteType === 61).map((m) => note(m.codRef, m.upload.receivedAt));
        return {
            issuerRut,
            type,
            folio,
            receiverRut: doc.receiverRut,
            receivedAt: moved ?? doc.upload.receivedAt,
            notes: [...notes, ...handNotes],
        };
    }
    actions(doc) {
        return this.events.get(keyOf(doc.issuerRut, doc.type, doc.folio)) ?? [];
    }
    record(doc, accion, holderRut) {
        const key = keyOf(doc.issuerRut, doc.type, doc.folio);
        const list = this.events.get(key) ?? [];
        list.push({ codEvento: accion, descEvento: ACCIONES[accion], rutResponsable: holderRut, at: this.clock() });
        this.events.set(key, list);
    }
    /** Every event of a document, as listarEventosHistDoc lists them (for tests and GET /sim/registro/events). */
    history(issuerRut, type, folio) {
        const doc = this.find(issuerRut, type, folio);
        if (!doc)
            return [];
        return allEvents(this, doc).map((e) => ({
            codEvento: e.codEvento,
            rutResponsable: e.rutResponsable,
            at: e.at.toISOString(),
        }));
    }
}
/** NCA / ENC: what the SII records itself when a credit note references a document ([WSRR] v1.2). */
function note(codRef, at) {
    return codRef === 1
        ? {
            codEvento: 'NCA',
            descEvento: 'Recepcion de NC de anulacion que referencia al documento',
            rutResponsable: '',
            at,
        }
        : {
            codEvento: 'ENC',
            descEvento: 'Recepcion de NC, distinta de anulacion, que referencia al documento',
            rutResponsable: '',
            at,
        };
}
export const allEvents = (store, doc) => [...store.actions(doc), ...doc.notes].sort((a, b) => a.at.getTime() - b.at.getTime());
