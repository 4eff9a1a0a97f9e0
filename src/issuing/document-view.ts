/**
 * How a stored document is shown through the API (docs/design.md §5 list entries), and its public
 * file URLs, absolute from PUBLIC_BASE_URL, carrying the document's `tk` token.
 */
import type { ReceiverActionView } from './receiver-action-view.ts';
import type { Config } from '../config.ts';
import { fromDbDate } from '../dte/calendar-date.ts';
import type { Document } from '../generated/prisma/client.ts';
import type { EmailView } from './email-view.ts';

const NO_EMAIL: EmailView = { status: 'none', to: [], at: null };

export function fileUrls(config: Config, issuerRut: string, doc: Pick<Document, 'type' | 'folio' | 'publicToken'>) {
  const base = `${config.publicBaseUrl}/api/${issuerRut}`;
  const tk = encodeURIComponent(doc.publicToken);
  return {
    pdf_url: `${base}/pdf/${doc.type}/${doc.folio}?tk=${tk}`,
    xml_url: `${base}/xml/${doc.type}/${doc.folio}?tk=${tk}`,
  };
}

export function totalsView(doc: Pick<Document, 'net' | 'exempt' | 'vat' | 'vatRate' | 'total'>) {
  return {
    net: Number(doc.net),
    exempt: Number(doc.exempt),
    vat: Number(doc.vat),
    vat_rate: doc.vatRate,
    total: Number(doc.total),
  };
}

/** The columns a list entry shows (the list reads only these, never the XML or the JSON). */
export type ListedDocument = Pick<
  Document,
  | 'type'
  | 'folio'
  | 'date'
  | 'receiverRut'
  | 'receiverName'
  | 'net'
  | 'exempt'
  | 'vat'
  | 'vatRate'
  | 'total'
  | 'environment'
  | 'estadoSii'
  | 'trackId'
  | 'publicToken'
  | 'createdAt'
>;

export function documentView(
  config: Config,
  issuerRut: string,
  doc: ListedDocument,
  email?: EmailView,
  receiverAction: ReceiverActionView | null = null,
) {
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
    receiver_action: receiverAction,
  };
}

export type DocumentView = ReturnType<typeof documentView>;

/** Lower-case, accent-free text for `q` search (stored in documents.search_text). */
export function searchable(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\./g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
