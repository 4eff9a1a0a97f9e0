/**
 * Events (docs/design.md §9): rows written in the same transaction as the change they describe, so
 * there is no event without its change and no change without its event. The statement that
 * writes an event also queues one delivery per enabled webhook endpoint of the issuer that
 * subscribes to its type; delivery itself is asynchronous (src/events/deliveries.ts), so a
 * configured endpoint costs the writer one statement, not an HTTP call.
 *
 * Events that must happen once per subject and threshold (a CAF 7 days from expiry, folios low
 * after a range was added, a document 15 min unsent) carry a `dedupeKey`; the unique index on it
 * makes any second writer — another instance, a retried job — insert nothing.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { Event, Issuer } from '../generated/prisma/client.ts';
import type { EventPayload, EventType } from './types.ts';

/** Prisma's transaction client or the client itself: events join whatever the caller runs in. */
export type Db = Prisma.TransactionClient;

export interface NewEvent {
  issuerId: string;
  type: EventType;
  data: Record<string, unknown>;
  documentId?: string | null;
  dedupeKey?: string | null;
  /** Only to this endpoint (a `ping` test); default: every subscribed, enabled endpoint. */
  endpointId?: string;
  /** When the deliveries fall due (default: now); a ping sent at once by its caller is not due. */
  deliverAt?: Date;
}

/**
 * Writes an event and its webhook deliveries in one statement, inside the caller's
 * transaction. Returns the event id, or null when its dedupe key was already used.
 */
export async function recordEvent(db: Db, e: NewEvent, now: Date): Promise<string | null> {
  const id = randomUUID();
  const data = JSON.stringify(e.data);
  const endpointFilter = e.endpointId
    ? Prisma.sql`w.id = ${e.endpointId}::uuid`
    : Prisma.sql`w.enabled AND (cardinality(w.events) = 0 OR ${e.type} = ANY (w.events))`;
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH ev AS (
      INSERT INTO events (id, issuer_id, type, data, document_id, dedupe_key, created_at)
      VALUES (${id}::uuid, ${e.issuerId}::uuid, ${e.type}, ${data}::jsonb, ${e.documentId ?? null}::uuid,
              ${e.dedupeKey ?? null}, ${now})
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id, issuer_id
    ), fan AS (
      INSERT INTO webhook_deliveries (id, issuer_id, event_id, endpoint_id, state, next_run_at, created_at)
      SELECT gen_random_uuid(), ev.issuer_id, ev.id, w.id, 'pending', ${e.deliverAt ?? now}, ${now}
        FROM ev JOIN webhook_endpoints w ON w.issuer_id = ev.issuer_id
       WHERE ${endpointFilter}
    )
    SELECT id::text FROM ev`;
  return rows[0]?.id ?? null;
}

export function eventPayload(e: Pick<Event, 'id' | 'type' | 'createdAt' | 'data'>): EventPayload {
  return {
    id: e.id,
    type: e.type as EventType,
    created_at: e.createdAt.toISOString(),
    data: e.data as Record<string, unknown>,
  };
}

export interface EventFilters {
  type?: EventType;
  /** Only the events of this document (the dashboard's document page). */
  documentId?: string;
  page: number;
  limit: number;
}

/** `GET /api/{rut}/events`: newest first, paged. */
export async function listEvents(ctx: AppContext, issuer: Issuer, f: EventFilters) {
  const where: Prisma.EventWhereInput = {
    issuerId: issuer.id,
    ...(f.type && { type: f.type }),
    ...(f.documentId && { documentId: f.documentId }),
  };
  const [rows, total] = await Promise.all([
    ctx.db.prisma.event.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (f.page - 1) * f.limit,
      take: f.limit,
    }),
    ctx.db.prisma.event.count({ where }),
  ]);
  return { data: rows.map(eventPayload), total, page: f.page, limit: f.limit };
}

/** The events of one document, oldest first (for a document page). */
export async function eventsOfDocument(ctx: AppContext, issuer: Issuer, documentId: string): Promise<EventPayload[]> {
  const rows = await ctx.db.prisma.event.findMany({
    where: { issuerId: issuer.id, documentId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map(eventPayload);
}

/** One event of the issuer, or EVENT_NOT_FOUND (also for another issuer's event). */
export async function findEvent(ctx: AppContext, issuer: Issuer, id: string): Promise<Event> {
  const event = /^[0-9a-f-]{36}$/i.test(id)
    ? await ctx.db.prisma.event.findFirst({ where: { id, issuerId: issuer.id } })
    : null;
  if (!event) throw new AppError('EVENT_NOT_FOUND', `No event ${id} for ${issuer.rut}.`);
  return event;
}
