import { fromDbDate } from '../dte/calendar-date.js';
const NO_EMAIL = { status: 'none', to: [], at: null };
export function fileUrls(config, issuerRut, doc) {
    const base = `${config.publicBaseUrl}/api/${issuerRut}`;
    const tk = encodeURIComponent(doc.publicToken);
    return {
        pdf_url: `${base}/pdf/${doc.type}/${doc.folio}?tk=${tk}`,
        xml_url: `${base}/xml/${doc.type}/${doc.folio}?tk=${tk}`,
    };
}
export function totalsView(doc) {
    return {
        net: Number(doc.net),
        exempt: Number(doc.exempt),
        vat: Number(doc.vat),
        vat_rate: doc.vatRate,
        total: Number(doc.total),
    };
}
export function documentView(config, issuerRut, doc, email, voidedBy, receiverAction = null) {
    return {
        type: doc.type,
        folio: doc.folio,
        date: fromDbDate(doc.date),
        receiver: { rut: doc.receiverRut, name: doc.receiverName },
        totals: totalsView(doc),
        env: doc.environment,
        estado_sii: doc.estadoSii,
        track_id: doc.trackId,
        ...fileUrls(config, issuerRut, doc),
        created_at: doc.createdAt.toISOString(),
        email: email ?? NO_EMAIL,
        voided_by: voidedBy ? { type: voidedBy.type, folio: voidedBy.folio } : null,
        receiver_action: receiverAction,
    };
}
/**
 * The keys of a document event's `data` that the document row gives back: its list entry's
 * columns that never change after issuing (the file URLs are built from the token and the
 * current PUBLIC_BASE_URL). A document event keeps only the rest (`events.from_document`):
 * estado_sii, track_id, email, sii and what the event adds — about half the bytes of its row.
 */
const ROW_KEYS = ['type', 'folio', 'date', 'receiver', 'totals', 'env', 'pdf_url', 'xml_url', 'created_at'];
/** What a document event stores of `data` (read back with `documentEventRead`). */
export function documentEventStored(data) {
    const out = { ...data };
    for (const k of ROW_KEYS)
        delete out[k];
    return out;
}
/** A document event's `data` as written: the document's list entry, what the event stored over it. */
export function documentEventRead(config, issuerRut, doc, stored) {
    // The stored keys replace the entry's in place: the key order is the one written.
    return { ...documentView(config, issuerRut, doc), ...stored };
}
/** The columns `documentEventRead` reads (a Prisma `select`). */
export const LISTED_COLUMNS = {
    type: true,
    folio: true,
    date: true,
    receiverRut: true,
    receiverName: true,
    net: true,
    exempt: true,
    vat: true,
    vatRate: true,
    total: true,
    environment: true,
    estadoSii: true,
    trackId: true,
    publicToken: true,
    createdAt: true,
};
/** Lower-case, accent-free text for `q` search (stored in documents.search_text). */
export function searchable(text) {
    return text
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/\./g, '')
        .replace(/\s+/g, ' ')
        .trim();
}
