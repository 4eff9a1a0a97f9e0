import { recordEvent } from '../events/record.js';
import { receivedDocumentView } from './views.js';
/** Documents looked at per scan and kind; the rest wait for the next scan. */
const BATCH = 500;
export async function scanDeadlineEvents(ctx) {
    const now = ctx.clock();
    const near = new Date(now.getTime() + ctx.config.RECEIVED_DEADLINE_NEAR_HOURS * 3_600_000);
    let written = 0;
    for (const kind of ['received.tacitly_accepted', 'received.deadline_near']) {
        const window = kind === 'received.tacitly_accepted' ? { lte: now } : { gt: now, lte: near };
        // Undecided documents in the window without their event yet (the dedupe key names them).
        const ids = await ctx.db.prisma.$queryRaw `
      SELECT r.id::text FROM received_documents r
       WHERE r.deadline IS NOT NULL
         AND r.deadline > ${window.gt ?? new Date(0)} AND r.deadline <= ${window.lte}
         AND r.state = 'recibido'
         AND NOT EXISTS (SELECT 1 FROM received_decisions d WHERE d.received_document_id = r.id
                          AND (d.state <> 'refused' OR cardinality(d.registered) > 0))
         AND NOT EXISTS (SELECT 1 FROM events e WHERE e.dedupe_key = ${`${kind}:`} || r.id::text)
       ORDER BY r.deadline
       LIMIT ${BATCH}`;
        if (ids.length === 0)
            continue;
        const rows = await ctx.db.prisma.receivedDocument.findMany({
            where: { id: { in: ids.map((r) => r.id) } },
            omit: { xml: true, model: true, checks: true },
            include: { issuer: true, envelope: { select: { number: true } } },
        });
        for (const r of rows) {
            const { issuer, envelope, ...doc } = r;
            const data = receivedDocumentView(ctx, issuer, { ...doc, xml: new Uint8Array(), model: null, checks: [] }, envelope);
            const id = await ctx.db.prisma.$transaction((tx) => recordEvent(tx, { issuerId: r.issuerId, type: kind, dedupeKey: `${kind}:${r.id}`, data: { ...data } }, now));
            if (id)
                written++;
        }
    }
    if (written > 0)
        ctx.jobs?.nudge();
    return written;
}
