import { addDays, compareDates, firstOfMonth, firstOfNextMonth } from '../dte/calendar-date.js';
import { Prisma } from '../generated/prisma/client.js';
import { emailViewOf } from '../events/email-view.js';
import { documentView, searchable } from '../events/document-view.js';
import { receiverActionView } from '../events/receiver-action-view.js';
import { documentCessionView } from '../events/cession-view.js';
const MAX_INT4 = 2_147_483_647;
const ORDER = Prisma.sql `ORDER BY date DESC, created_at DESC, id DESC`;
export async function listDocuments(ctx, issuer, f) {
    const search = parseSearch(f.q);
    const [rows, total] = await Promise.all([
        // The page's latest e-mail per document (docs/design.md §9 `email`), one index probe per row.
        ctx.db.prisma.$queryRaw `
      SELECT d.type, d.folio, d.date, d.receiver_rut AS "receiverRut", d.receiver_name AS "receiverName",
             d.net, d.exempt, d.vat, d.vat_rate AS "vatRate", d.total, d.environment, d.estado_sii AS "estadoSii",
             d.track_id AS "trackId", d.public_token AS "publicToken", d.created_at AS "createdAt",
             em.email_state AS "emailState", em.email_to AS "emailTo", em.email_sent_at AS "emailSentAt",
             em.email_updated_at AS "emailUpdatedAt", v.type AS "voidedByType", v.folio AS "voidedByFolio",
             rw.watch_outcome AS "watchOutcome", rw.watch_claim AS "watchClaim", rw.watch_events AS "watchEvents",
             rw.watch_received_at AS "watchReceivedAt", rw.watch_deadline AS "watchDeadline",
             rw.watch_checked_at AS "watchCheckedAt", rw.watch_outcome_known IS NOT NULL AS "watched",
             ce.id AS "cessionId", ce.estado AS "cessionEstado", ce.cesionario_rut AS "cesionarioRut",
             ce.cesionario_razon_social AS "cesionarioRazonSocial", ce.holder_rut AS "holderRut",
             ce.sii_estado AS "cessionSiiEstado", ce.sii_glosa AS "cessionSiiGlosa"
      FROM documents d
      LEFT JOIN documents v ON v.id = d.voided_by_id
      LEFT JOIN LATERAL (
        SELECT e.state::text AS email_state, e."to" AS email_to, e.sent_at AS email_sent_at,
               e.updated_at AS email_updated_at
          FROM email_messages e WHERE e.document_id = d.id ORDER BY e.created_at DESC LIMIT 1
      ) em ON TRUE
      -- What the customer did at the claims registry (live 33/34; src/issuing/receiver-actions.ts).
      LEFT JOIN LATERAL (
        SELECT w.outcome AS watch_outcome, w.claim AS watch_claim, w.events AS watch_events,
               w.sii_received_at AS watch_received_at, w.deadline AS watch_deadline,
               w.checked_at AS watch_checked_at, 1 AS watch_outcome_known
          FROM registry_watches w WHERE w.document_id = d.id
      ) rw ON TRUE
      -- Its cesión in flight or accepted (src/cession/; at most one, a partial unique index).
      LEFT JOIN LATERAL (
        SELECT c.id::text AS id, c.estado, c.cesionario_rut, c.cesionario_razon_social, c.holder_rut,
               c.sii_estado, c.sii_glosa
          FROM cessions c
         WHERE c.document_id = d.id AND c.estado IN ('pendiente', 'enviada', 'aceptada')
         LIMIT 1
      ) ce ON TRUE
      WHERE d.id IN (${pageIds(issuer.id, f, search)})
      ORDER BY d.date DESC, d.created_at DESC, d.id DESC`,
        foldCounts(ctx).then(() => search ? countSearch(ctx, issuer.id, f, search) : countFromCounters(ctx, issuer.id, f)),
    ]);
    const data = rows.map((d) => ({
        ...documentView(ctx.config, issuer.rut, d, emailViewOf(d.emailState
            ? {
                state: d.emailState,
                to: d.emailTo ?? [],
                sentAt: d.emailSentAt,
                updatedAt: d.emailUpdatedAt ?? d.createdAt,
            }
            : null), d.voidedByType === null ? null : { type: d.voidedByType, folio: d.voidedByFolio }, d.watched
            ? receiverActionView({
                outcome: d.watchOutcome,
                claim: d.watchClaim,
                events: d.watchEvents,
                siiReceivedAt: d.watchReceivedAt,
                deadline: d.watchDeadline,
                checkedAt: d.watchCheckedAt,
            })
            : null),
        cesion: cessionOfRow(d),
    }));
    return { data, total, page: f.page, limit: f.limit };
}
/**
 * Moves the pending counter deltas into the counters (one statement; returns at once when
 * another fold is running). Only keeps the deltas few: counts are exact without it.
 */
export async function foldCounts(ctx) {
    const [row] = await ctx.db.prisma.$queryRaw `SELECT fold_document_counts() AS n`;
    return Number(row.n);
}
function cessionOfRow(d) {
    if (d.cessionId === null)
        return null;
    return documentCessionView({
        id: d.cessionId,
        estado: d.cessionEstado ?? '',
        cesionarioRut: d.cesionarioRut ?? '',
        cesionarioRazonSocial: d.cesionarioRazonSocial ?? '',
        holderRut: d.holderRut,
        siiEstado: d.cessionSiiEstado,
        siiGlosa: d.cessionSiiGlosa,
    });
}
/**
 * `q`, normalised like search_text itself and matched anywhere in it (LIKE wildcards in it
 * match literally); a number may also be an exact folio. A fragment that normalises to
 * nothing (only dots or spaces) filters nothing.
 */
function parseSearch(q) {
    const text = q?.trim();
    const needle = text ? searchable(text) : '';
    if (!text || !needle)
        return null;
    return {
        pattern: `%${needle.replace(/[\\%_]/g, '\\$&')}%`,
        folio: /^\d{1,10}$/.test(text) && Number(text) <= MAX_INT4 ? Number(text) : null,
    };
}
function documentFilters(issuerId, f, dates) {
    const where = [Prisma.sql `issuer_id = ${issuerId}::uuid`];
    if (f.type !== undefined)
        where.push(Prisma.sql `type = ${f.type}::int`);
    if (f.estadoSii !== undefined)
        where.push(Prisma.sql `estado_sii = ${f.estadoSii}`);
    if (dates && f.from)
        where.push(Prisma.sql `date >= ${f.from}::date`);
    if (dates && f.to)
        where.push(Prisma.sql `date <= ${f.to}::date`);
    return where;
}
/**
 * The documents whose receiver matches: the pattern is matched once per receiver (trigram
 * index on receiver_search_texts), then the documents are found by search_text equality.
 */
function receiverMatches(issuerId, s) {
    return Prisma.sql `search_text IN (
    SELECT search_text FROM receiver_search_texts WHERE issuer_id = ${issuerId}::uuid AND search_text LIKE ${s.pattern})`;
}
/** Documents found only by their folio (disjoint from the receiver matches, so counts add up). */
function folioOnly(s) {
    return Prisma.sql `folio = ${s.folio}::int AND search_text NOT LIKE ${s.pattern}`;
}
/** The ids of the requested page, in list order. */
function pageIds(issuerId, f, s) {
    const where = documentFilters(issuerId, f, true);
    const offset = (f.page - 1) * f.limit;
    if (!s) {
        return Prisma.sql `SELECT id FROM documents WHERE ${Prisma.join(where, ' AND ')}
      ${ORDER} LIMIT ${f.limit}::int OFFSET ${offset}::int`;
    }
    const byReceiver = Prisma.join([...where, receiverMatches(issuerId, s)], ' AND ');
    if (s.folio === null) {
        return Prisma.sql `SELECT id FROM documents WHERE ${byReceiver} ${ORDER} LIMIT ${f.limit}::int OFFSET ${offset}::int`;
    }
    // Two ordered branches merged: each stops after the rows the page can need.
    const byFolio = Prisma.join([...where, folioOnly({ ...s, folio: s.folio })], ' AND ');
    return Prisma.sql `SELECT id FROM (
      (SELECT id, date, created_at FROM documents WHERE ${byReceiver} ${ORDER} LIMIT ${offset + f.limit}::int)
      UNION ALL
      (SELECT id, date, created_at FROM documents WHERE ${byFolio})
    ) matches ${ORDER} LIMIT ${f.limit}::int OFFSET ${offset}::int`;
}
/**
 * `total` with `q`. Without a date range: a sum over the receiver_counts rows whose receiver
 * matches (trigram index; one row per receiver, type and estado), plus the matching deltas not
 * yet folded. With one: a count of the
 * matching documents, index-only through documents_issuer_id_search_text_idx, one range per
 * matching receiver, so proportional to the matches.
 */
async function countSearch(ctx, issuerId, f, s) {
    const byReceiver = f.from || f.to
        ? Prisma.sql `(SELECT count(*) FROM documents
          WHERE ${Prisma.join([...documentFilters(issuerId, f, true), receiverMatches(issuerId, s)], ' AND ')})`
        : Prisma.sql `(SELECT coalesce(sum(count), 0) FROM receiver_counts
          WHERE ${Prisma.join([...documentFilters(issuerId, f, false), Prisma.sql `search_text LIKE ${s.pattern}`], ' AND ')})
        + (SELECT coalesce(sum(delta), 0) FROM document_count_deltas
          WHERE ${Prisma.join([...documentFilters(issuerId, f, false), Prisma.sql `search_text LIKE ${s.pattern}`], ' AND ')})`;
    const byFolio = s.folio === null
        ? Prisma.sql `0`
        : Prisma.sql `(SELECT count(*) FROM documents
          WHERE ${Prisma.join([...documentFilters(issuerId, f, true), folioOnly({ ...s, folio: s.folio })], ' AND ')})`;
    const [row] = await ctx.db.prisma.$queryRaw `SELECT (${byReceiver} + ${byFolio})::bigint AS n`;
    return Number(row.n);
}
/**
 * `total` without `q`: whole months from month counters, the partial months' days from day
 * counters, plus the deltas not yet folded.
 */
async function countFromCounters(ctx, issuerId, f) {
    const { months, days } = countingPeriods(f.from, f.to);
    const periods = [];
    if (months) {
        const bounds = [Prisma.sql `grain = 'month'`];
        if (months.from)
            bounds.push(Prisma.sql `period >= ${months.from}::date`);
        if (months.before)
            bounds.push(Prisma.sql `period < ${months.before}::date`);
        periods.push(Prisma.sql `(${Prisma.join(bounds, ' AND ')})`);
    }
    for (const d of days) {
        const bounds = [Prisma.sql `grain = 'day'`];
        if (d.from)
            bounds.push(Prisma.sql `period >= ${d.from}::date`);
        if (d.to)
            bounds.push(Prisma.sql `period <= ${d.to}::date`);
        periods.push(Prisma.sql `(${Prisma.join(bounds, ' AND ')})`);
    }
    // The deltas not yet folded carry their document's date: filtered like documents.
    const [row] = await ctx.db.prisma.$queryRaw `
    SELECT ((SELECT coalesce(sum(count), 0) FROM document_counts
             WHERE ${Prisma.join(documentFilters(issuerId, f, false), ' AND ')} AND (${Prisma.join(periods, ' OR ')}))
          + (SELECT coalesce(sum(delta), 0) FROM document_count_deltas
             WHERE ${Prisma.join(documentFilters(issuerId, f, true), ' AND ')}))::bigint AS n`;
    return Number(row.n);
}
/**
 * Splits the inclusive date range [from, to] (either end may be open) into the whole months
 * it covers, read from month counters, and the days of the partial months at its ends, read
 * from day counters. Every day of the range is counted exactly once.
 */
export function countingPeriods(from, to) {
    // First day of the first whole month in the range, and first day after the last one.
    const monthsFrom = from === undefined ? undefined : firstOfNextMonth(addDays(from, -1));
    const monthsBefore = to === undefined ? undefined : firstOfMonth(addDays(to, 1));
    if (monthsFrom !== undefined && monthsBefore !== undefined && compareDates(monthsFrom, monthsBefore) >= 0) {
        // No whole month inside: every day of the range from day counters.
        return { months: null, days: [{ ...(from && { from }), ...(to && { to }) }] };
    }
    const days = [];
    if (from !== undefined && monthsFrom !== undefined && compareDates(from, monthsFrom) < 0) {
        days.push({ from, to: addDays(monthsFrom, -1) });
    }
    if (to !== undefined && monthsBefore !== undefined && compareDates(monthsBefore, to) <= 0) {
        days.push({ from: monthsBefore, to });
    }
    return {
        months: { ...(monthsFrom && { from: monthsFrom }), ...(monthsBefore && { before: monthsBefore }) },
        days,
    };
}
