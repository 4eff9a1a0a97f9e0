/**
 * The dashboard's data for events, webhooks and e-mail (DESIGN §9). Those use cases are being
 * built in src/events/ on another branch; until they are merged, each block's data comes from
 * one function here, which answers "not available" and the page shows the block's structure
 * with that state. Wiring a block means replacing one function body with a call into
 * src/events/ — the templates already render the rows.
 */
import type { AppContext } from '../context.ts';
import type { Document, Issuer } from '../generated/prisma/client.ts';

export interface ActivityRow {
  at: Date;
  /** `document.issued`, `email.sent`, … */
  type: string;
  detail: string;
}

export interface WebhookEndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
}

export interface DeliveryRow {
  at: Date;
  eventType: string;
  endpointUrl: string;
  attempt: number;
  status: number | null;
  latencyMs: number | null;
  error: string | null;
}

export interface Block<T> {
  available: boolean;
  rows: T[];
}

/** Events and e-mails of one document (document page). */
export async function documentActivity(
  _ctx: AppContext,
  _issuer: Issuer,
  _document: Document,
): Promise<Block<ActivityRow>> {
  return { available: false, rows: [] };
}

/** The issuer's webhook endpoints (Webhooks page). */
export async function webhookEndpoints(_ctx: AppContext, _issuer: Issuer): Promise<Block<WebhookEndpointRow>> {
  return { available: false, rows: [] };
}

/** The latest deliveries of the issuer's events (Webhooks page). */
export async function webhookDeliveries(_ctx: AppContext, _issuer: Issuer): Promise<Block<DeliveryRow>> {
  return { available: false, rows: [] };
}
