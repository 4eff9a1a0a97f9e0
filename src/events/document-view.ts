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

/** The note that voided a document (its `voided_by`). */
export interface VoidingNote {
  type: number;
  folio: number;
}

export function documentView(
  config: Config,
  issuerRut: string,
  doc: ListedDocument,
  email?: EmailView,
  voidedBy?: VoidingNote | null,
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
    voided_by: voidedBy ? { type: voidedBy.type, folio: voidedBy.folio } : null,
    receiver_action: receiverAction,
  };
}

export type DocumentView = ReturnType<typeof documentView>;

/**
 * The keys of a document event's `data` that the document row gives back: its list entry's
 * columns that never change after issuing (the file URLs are built from the token and the
 * current PUBLIC_BASE_URL). A document event keeps only the rest (`events.from_document`):
 * estado_sii, track_id, email, sii and what the event adds — about half the bytes of its row.
 */
const ROW_KEYS = ['type', 'folio', 'date', 'receiver', 'totals', 'env', 'pdf_url', 'xml_url', 'created_at'];

/** What a document event stores of `data` (read back with `documentEventRead`). */
export function documentEventStored(data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  for (const k of ROW_KEYS) delete out[k];
  return out;
}

/** A document event's `data` as written: the document's list entry, what the event stored over it. */
export function documentEventRead(
  config: Config,
  issuerRut: string,
  doc: ListedDocument,
  stored: Record<string, unknown>,
): Record<string, unknown> {
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
} as const;

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
