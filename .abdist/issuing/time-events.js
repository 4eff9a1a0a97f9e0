import { addDays, daysBetween, fromDbDate, toDbDate } from '../dte/calendar-date.js';
import { dateOfInstantInSantiago } from '../dte/chile-time.js';
import { documentEventData } from './document-state.js';
import { recordEvent } from '../events/record.js';
const DAY_MS = 24 * 3600 * 1000;
const CAF_THRESHOLDS = [7, 30];
const CERT_THRESHOLDS = [1, 7, 30];
/** The nearest threshold a subject `daysLeft` away has reached, or null. */
function reached(thresholds, daysLeft) {
    return thresholds.find((t) => daysLeft <= t) ?? null;
}
export async function scanTimeEvents(ctx) {
    const now = ctx.clock();
    let written = 0;
    const write = async (e) => {
        const id = await ctx.db.prisma.$transaction((tx) => recordEvent(tx, e, now));
        if (id)
            written++;
    };
    // Live documents whose submission has not reached the SII in time: found through the
    // submissions not yet uploaded (index on state), never by scanning documents; those already
    // announced are skipped.
    const cutoff = new Date(now.getTime() - ctx.config.SUBMISSION_DELAY_ALERT_MS);
    const delayedIds = await ctx.db.prisma.$queryRaw `
    SELECT DISTINCT d.id::text
      FROM submissions s JOIN documents d ON d.id = s.document_id
     WHERE s.state IN ('queued', 'sending', 'ambiguous') AND s.created_at < ${cutoff}
       AND d.estado_sii = 'pendiente'
       AND NOT EXISTS (SELECT 1 FROM events e WHERE e.dedupe_key = 'document.submission_delayed:' || d.id::text)
     LIMIT 500`;
    const delayed = await ctx.db.prisma.document.findMany({
        where: { id: { in: delayedIds.map((r) => r.id) } },
        include: { issuer: { select: { rut: true } } },
    });
    for (const d of delayed) {
        const id = await ctx.db.prisma.$transaction(async (tx) => recordEvent(tx, {
            issuerId: d.issuerId,
            type: 'document.submission_delayed',
            documentId: d.id,
            dedupeKey: `document.submission_delayed:${d.id}`,
            fromDocument: true,
            data: {
                ...(await documentEventData(ctx, tx, d.issuer.rut, d)),
                last_error: d.lastSubmitError,
                attempts: d.submitAttempts,
            },
        }, now));
        if (id)
            written++;
    }
    // CAF ranges with folios left that expire within 30 days: a CAF's expiry is a calendar date,
    // counted in days from today in Santiago.
    const today = dateOfInstantInSantiago(now);
    const cafs = await ctx.db.prisma.caf.findMany({
        where: { expiresAt: { not: null, lte: toDbDate(addDays(today, 31)), gte: toDbDate(today) } },
    });
    for (const c of cafs) {
        if (c.nextFolio > c.rangeTo || !c.expiresAt)
            continue;
        const expiresAt = fromDbDate(c.expiresAt);
        const daysLeft = daysBetween(today, expiresAt);
        const t = reached(CAF_THRESHOLDS, daysLeft);
        if (t === null)
            continue;
        await write({
            issuerId: c.issuerId,
            type: 'caf.expiring',
            dedupeKey: `caf.expiring:${c.id}:${t}`,
            data: {
                type: c.type,
                env: c.environment,
                from: c.rangeFrom,
                to: c.rangeTo,
                available: c.rangeTo - c.nextFolio + 1,
                expires_at: expiresAt,
                days_left: daysLeft,
                threshold_days: t,
            },
        });
    }
    // Each issuer's newest imported certificate (the one that signs), expiring or expired.
    const certs = await ctx.db.prisma.$queryRaw `
    SELECT DISTINCT ON (c.issuer_id) c.id::text, c.issuer_id::text, c.holder_rut, c.subject_name, c.not_after, c.fingerprint
      FROM certificates c JOIN issuers i ON i.id = c.issuer_id AND i.active
     WHERE c.kind = 'imported'
     ORDER BY c.issuer_id, c.not_after DESC`;
    for (const c of certs) {
        const msLeft = c.not_after.getTime() - now.getTime();
        if (msLeft > 31 * DAY_MS)
            continue;
        const data = {
            holder_rut: c.holder_rut,
            subject: c.subject_name,
            fingerprint: c.fingerprint,
            not_after: c.not_after.toISOString(),
            days_left: Math.max(0, Math.ceil(msLeft / DAY_MS)),
        };
        if (msLeft <= 0) {
            await write({
                issuerId: c.issuer_id,
                type: 'certificate.expired',
                dedupeKey: `certificate.expired:${c.id}`,
                data,
            });
            continue;
        }
        const t = reached(CERT_THRESHOLDS, msLeft / DAY_MS);
        if (t === null)
            continue;
        await write({
            issuerId: c.issuer_id,
            type: 'certificate.expiring',
            dedupeKey: `certificate.expiring:${c.id}:${t}`,
            data: { ...data, threshold_days: t },
        });
    }
    if (written > 0)
        ctx.jobs?.nudge();
    return written;
}
