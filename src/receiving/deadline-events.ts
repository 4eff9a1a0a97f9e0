/**
 * The events of the 8-day clock (docs/claims-registry.md §3), found by the periodic time-based
 * scan (src/jobs.ts) as src/issuing/time-events.ts finds its own:
 *
 * - `received.deadline_near`: a received 33/34/43 still undecided (state `recibido`, and no
 *   decision of src/receiving/decisions.ts other than one the SII refused outright) whose
 *   deadline is within RECEIVED_DEADLINE_NEAR_HOURS;
 * - `received.tacitly_accepted`: its deadline passed with no decision: by law it is accepted
 *   irrevocably ([GUIA] §1); the SII records no event for it, so Timbre says it.
 *
 * Each is written with a dedupe key naming the document, so however many instances scan, each
 * fires once; a document first seen already past its deadline gets only the second.
 */
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { receivedDocumentView } from './views.ts';

/** Documents looked at per scan and kind; the rest wait for the next scan. */
const BATCH = 500;

export async function scanDeadlineEvents(ctx: AppContext): Promise<number> {
  const now = ctx.clock();
  const near = new Date(now.getTime() + ctx.config.RECEIVED_DEADLINE_NEAR_HOURS * 3_600_000);
  let written = 0;
  for (const kind of ['received.tacitly_accepted', 'received.deadline_near'] as const) {
    const window = kind === 'received.tacitly_accepted' ? { lte: now } : { gt: now, lte: near };
    // Undecided documents in the window without their event yet (the dedupe key names them).
    const ids = await ctx.db.prisma.$queryRaw<{ id: string }[]>`
      SELECT r.id::text FROM received_documents r
       WHERE r.deadline IS NOT NULL
         AND r.deadline > ${window.gt ?? new Date(0)} AND r.deadline <= ${window.lte}
         AND r.state = 'recibido'
         AND NOT EXISTS (SELECT 1 FROM received_decisions d WHERE d.received_document_id = r.id
                          AND (d.state <> 'refused' OR cardinality(d.registered) > 0))
         AND NOT EXISTS (SELECT 1 FROM events e WHERE e.dedupe_key = ${`${kind}:`} || r.id::text)
       ORDER BY r.deadline
       LIMIT ${BATCH}`;
    if (ids.length === 0) continue;
    const rows = await ctx.db.prisma.receivedDocument.findMany({
      where: { id: { in: ids.map((r) => r.id) } },
      omit: { xml: true, model: true, checks: true },
      include: { issuer: true, envelope: { select: { number: true } } },
    });
    for (const r of rows) {
      const { issuer, envelope, ...doc } = r;
      const data = receivedDocumentView(
        ctx,
        issuer,
        { ...doc, xml: new Uint8Array(), model: null, checks: [] },
        envelope,
      );
      const id = await ctx.db.prisma.$transaction((tx) =>
        recordEvent(tx, { issuerId: r.issuerId, type: kind, dedupeKey: `${kind}:${r.id}`, data: { ...data } }, now),
      );
      if (id) written++;
    }
  }
  if (written > 0) ctx.jobs?.nudge();
  return written;
}
