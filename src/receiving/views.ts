/** What the API shows of received documents: the list entry and the detail. */
import { fromDbDate } from '../dte/calendar-date.ts';
import type { AppContext } from '../context.ts';
import type { Issuer, ReceivedDocument, ReceivedEnvelope } from '../generated/prisma/client.ts';
import { type ReceivedCessionView, receivedCessionView } from '../events/cession-view.ts';
import type { CheckResult } from './checks.ts';
import { type Plazo, plazoOf } from './reception-clock.ts';
import type { ReceivedLine, ReceivedReference } from './read-dte.ts';

export interface ReceivedDocumentView {
  emisor: { rut: string; name: string };
  type: number;
  folio: number;
  date: string;
  totals: { net: number; exempt: number; vat: number; total: number };
  estado: string;
  envelope: number;
  xml_url: string;
  created_at: string;
  /** The 8-day clock (33, 34, 43; null for other types). */
  plazo: Plazo | null;
}

export interface ReceivedDocumentDetail extends ReceivedDocumentView {
  receiver: { rut: string; name: string };
  lines: ReceivedLine[];
  refs: ReceivedReference[];
  checks: CheckResult[];
  ted: { idk: number; caf_from: number; caf_to: number } | null;
  respuesta_url: string | null;
  pdf_url: string;
  /** Who holds it at the registry of cesiones, when asked (…/cesion); null: never asked. */
  cesion: ReceivedCessionView | null;
}

function receivedDocumentUrl(
  ctx: AppContext,
  issuer: Pick<Issuer, 'rut'>,
  d: Pick<ReceivedDocument, 'emisorRut' | 'type' | 'folio'>,
) {
  return `${ctx.config.publicBaseUrl}/api/${issuer.rut}/recibidos/${d.emisorRut}/${d.type}/${d.folio}`;
}

export function respuestaUrl(ctx: AppContext, issuer: Pick<Issuer, 'rut'>, envelopeNumber: bigint | number) {
  return `${ctx.config.publicBaseUrl}/api/${issuer.rut}/recibidos_envios/${envelopeNumber}/respuesta`;
}

export function receivedDocumentView(
  ctx: AppContext,
  issuer: Pick<Issuer, 'rut'>,
  d: ReceivedDocument,
  envelope: Pick<ReceivedEnvelope, 'number'>,
): ReceivedDocumentView {
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

export function receivedDocumentDetail(
  ctx: AppContext,
  issuer: Pick<Issuer, 'rut'>,
  d: ReceivedDocument,
  envelope: Pick<ReceivedEnvelope, 'number' | 'respuestaXml'>,
): ReceivedDocumentDetail {
  const model = d.model as unknown as {
    receiver: { rut: string; name: string };
    lines: ReceivedLine[];
    refs: ReceivedReference[];
    ted: ReceivedDocumentDetail['ted'];
  };
  return {
    ...receivedDocumentView(ctx, issuer, d, envelope),
    receiver: model.receiver,
    lines: model.lines,
    refs: model.refs,
    checks: d.checks as unknown as CheckResult[],
    ted: model.ted,
    respuesta_url: envelope.respuestaXml ? respuestaUrl(ctx, issuer, envelope.number) : null,
    pdf_url: `${receivedDocumentUrl(ctx, issuer, d)}/pdf`,
    cesion: receivedCessionView(d),
  };
}
