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
import { AppError } from '../errors.js';
import { Prisma } from '../generated/prisma/client.js';
import { documentEventRead, documentEventStored, LISTED_COLUMNS } from './document-view.js';
/**
 * Writes an event and its webhook deliveries in one statement, inside the caller's
 * transaction. Returns the event id, or null when its dedupe key was already used.
 */
export async function recordEvent(db, e, now) {
    const id = randomUUID();
    const fromDocument = e.fromDocument === true && e.documentId != null;
    const data = JSON.stringify(fromDocument ? documentEventStored(e.data) : e.data);
    const endpointFilter = e.endpointId
        ? Prisma.sql `w.id = ${e.endpointId}::uuid`
        : Prisma.sql `w.enabled AND (cardinality(w.events) = 0 OR ${e.type} = ANY (w.events))`;
    const rows = await db.$queryRaw `
    WITH ev AS (
      INSERT INTO events (id, issuer_id, type, data, document_id, dedupe_key, created_at, from_document)
      VALUES (${id}::uuid, ${e.issuerId}::uuid, ${e.type}, ${data}::jsonb, ${e.documentId ?? null}::uuid,
              ${e.dedupeKey ?? null}, ${now}, ${fromDocument})
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
/** The events as delivered and listed: a document event's `data` completed from its document row. */
export async function eventPayloads(ctx, events) {
    const ids = [...new Set(events.filter((e) => e.fromDocument && e.documentId).map((e) => e.documentId))];
    const documents = ids.length
        ? await ctx.db.prisma.document.findMany({
            where: { id: { in: ids } },
            select: { id: true, ...LISTED_COLUMNS, issuer: { select: { rut: true } } },
        })
        : [];
    const byId = new Map(documents.map((d) => [d.id, d]));
    return events.map((e) => {
        const stored = e.data;
        const doc = e.fromDocument && e.documentId ? byId.get(e.documentId) : undefined;
        return {
            id: e.id,
            type: e.type,
            created_at: e.createdAt.toISOString(),
            data: doc ? documentEventRead(ctx.config, doc.issuer.rut, doc, stored) : stored,
        };
    });
}
/** `GET /api/{rut}/events`: newest first, paged. */
export async function listEvents(ctx, issuer, f) {
    const where = {
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
    return { data: await eventPayloads(ctx, rows), total, page: f.page, limit: f.limit };
}
/** The events of one document, oldest first (for a document page). */
export async function eventsOfDocument(ctx, issuer, documentId) {
    const rows = await ctx.db.prisma.event.findMany({
        where: { issuerId: issuer.id, documentId },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return eventPayloads(ctx, rows);
}
/** One event of the issuer, or EVENT_NOT_FOUND (also for another issuer's event). */
export async function findEvent(ctx, issuer, id) {
    const event = /^[0-9a-f-]{36}$/i.test(id)
        ? await ctx.db.prisma.event.findFirst({ where: { id, issuerId: issuer.id } })
        : null;
    if (!event)
        throw new AppError('EVENT_NOT_FOUND', `No event ${id} for ${issuer.rut}.`);
    return event;
}
