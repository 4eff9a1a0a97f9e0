/**
 * Folio reservations (src/issuing/folios.ts): a folio taken for a document that is never
 * stored comes back — at once when the request fails, after its lease when the request's
 * process died — and a request that outlived its lease cannot store a document under a folio
 * somebody else now holds. Leases follow the app's injected clock: the test moves it past
 * the lease instead of sleeping. Each test has its own issuer.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { calendarDate } from '../../src/dte/calendar-date.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import { computeDocument } from '../../src/dte/totals.ts';
import { documentInsert } from '../../src/issuing/document-insert.ts';
import {
  ensureSandboxCaf,
  type FolioReservation,
  generateSandboxRange,
  releaseReservation,
  reserveFolio,
} from '../../src/issuing/folios.ts';
import { issuerInfo } from '../../src/issuing/issue-document.ts';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { manualClock } from '../helpers/time.ts';

const LEASE_MS = 300;
const clock = manualClock('2026-11-22T15:00:00Z');
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ env: { FOLIO_LEASE_MS: String(LEASE_MS) }, clock });
});

async function tenant(): Promise<{ issuer: Issuer; api: KeyClient }> {
  const { issuer, api } = await createTestTenant(t);
  await ensureSandboxCaf(t.ctx, issuer, 33);
  return { issuer, api };
}

const input = (issuer: Issuer) => ({
  issuerId: issuer.id,
  environment: 'sandbox' as const,
  type: 33 as const,
  today: '2026-11-22',
});

async function issueFolio(issuer: Issuer, api: KeyClient): Promise<number> {
  const res = await api.post(`/api/${issuer.rut}/emitir`, factura());
  expect(res.statusCode, res.body).toBe(200);
  return res.json().folio;
}

/** The folios used form one block from 1, and nothing stays reserved. */
async function expectContiguous(issuer: Issuer) {
  const docs = await t.ctx.db.prisma.document.findMany({ where: { issuerId: issuer.id }, orderBy: { folio: 'asc' } });
  const caf = await t.ctx.db.prisma.caf.findFirstOrThrow({ where: { issuerId: issuer.id, type: 33 } });
  expect(docs.map((d) => d.folio)).toEqual(Array.from({ length: caf.nextFolio - 1 }, (_, i) => i + 1));
  expect(await t.ctx.db.prisma.folioReservation.count({ where: { issuerId: issuer.id } })).toBe(0);
}

/** The persist statement of an issue for `reservation` (src/issuing/document-insert.ts); rows written. */
async function writeDocument(issuer: Issuer, reservation: FolioReservation): Promise<number> {
  const req = issueRequestSchema.parse(factura());
  const date = calendarDate('2026-11-22');
  const doc = computeDocument(req, { issuer: issuerInfo(issuer), folio: reservation.folio, date });
  const insert = documentInsert({
    config: t.config,
    issuer,
    env: 'sandbox',
    date,
    req,
    doc,
    reservation,
    packed: Buffer.from('<DTE/>', 'latin1'),
    envelope: null,
    idempotencyId: null,
    emailTo: [],
    emailState: 'disabled',
    now: clock(),
  });
  const { rowCount } = await t.ctx.db.pool.query(insert.text, insert.values);
  return rowCount ?? 0;
}

describe('folio reservations', () => {
  it('a released folio is the next one handed out', async () => {
    const { issuer, api } = await tenant();
    const first = await issueFolio(issuer, api);
    const r = await reserveFolio(t.ctx, input(issuer));
    expect(r.folio).toBe(first + 1);
    await releaseReservation(t.ctx, r);
    expect(await issueFolio(issuer, api)).toBe(first + 1);
    expect(await issueFolio(issuer, api)).toBe(first + 2);
    await expectContiguous(issuer);
  });

  it('a reservation abandoned by a dead request is reused once its lease expires, not before', async () => {
    const { issuer, api } = await tenant();
    const abandoned = await reserveFolio(t.ctx, input(issuer));
    // Within the lease (to the last millisecond) the folio stays with its owner.
    clock.advance(LEASE_MS - 1);
    const during = await issueFolio(issuer, api);
    expect(during).toBe(abandoned.folio + 1);
    clock.advance(2);
    expect(await issueFolio(issuer, api)).toBe(abandoned.folio);
    await expectContiguous(issuer);
  });

  it('a request that outlived its lease cannot confirm a folio another request took over', async () => {
    const { issuer, api } = await tenant();
    const slow = await reserveFolio(t.ctx, input(issuer));
    clock.advance(LEASE_MS + 1);
    const taker = await reserveFolio(t.ctx, input(issuer));
    expect(taker.folio).toBe(slow.folio);
    // The slow request's write (the product's one statement) finds its reservation gone and
    // stores nothing: not its document, not its event.
    const events = await t.ctx.db.prisma.event.count({ where: { issuerId: issuer.id } });
    expect(await writeDocument(issuer, slow)).toBe(0);
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id, folio: slow.folio } })).toBe(0);
    expect(await t.ctx.db.prisma.event.count({ where: { issuerId: issuer.id } })).toBe(events);
    // The taker's request fails in turn: the folio goes back and the next document gets it.
    await releaseReservation(t.ctx, taker);
    expect(await issueFolio(issuer, api)).toBe(slow.folio);
    await expectContiguous(issuer);
  });

  it('a reservation skips the wait for the disk in its own transaction only: the document write still waits', async () => {
    // One connection, so the statement that follows runs where the reservation ran.
    const one = await buildTestApp({ env: { DB_POOL_MAX: '1' }, clock });
    const { issuer } = await createTestTenant(one);
    await ensureSandboxCaf(one.ctx, issuer, 33);
    const reservation = await reserveFolio(one.ctx, input(issuer));
    expect(reservation.folio).toBe(1);
    const { rows } = await one.ctx.db.pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    expect(rows[0]?.synchronous_commit).toBe('on');
  });

  it('a reservation does not wait for a write in flight that references the same range (its foreign key lock)', async () => {
    const { issuer } = await tenant();
    const caf = await t.ctx.db.prisma.caf.findFirstOrThrow({ where: { issuerId: issuer.id, type: 33 } });
    // A write not yet committed whose foreign key names the range, as a document insert waiting
    // for its commit to reach the disk: it holds FOR KEY SHARE on the range's row.
    const writer = await t.ctx.db.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO folio_reservations (id, issuer_id, environment, type, caf_id, folio, token, lease_until)
         VALUES (gen_random_uuid(), $1::uuid, 'sandbox', 33, $2::uuid, 999999, gen_random_uuid(), now())`,
        [issuer.id, caf.id],
      );
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'waited'>((r) => {
        timer = setTimeout(() => r('waited'), 3000);
      });
      const reservation = await Promise.race([reserveFolio(t.ctx, input(issuer)), waited]);
      clearTimeout(timer);
      expect(reservation, 'the reservation waited for the open write').not.toBe('waited');
      if (reservation !== 'waited') {
        expect(reservation.folio).toBe(1);
        await releaseReservation(t.ctx, reservation);
      }
    } finally {
      await writer.query('ROLLBACK');
      writer.release();
    }
  });

  it('requests that wait while a reservation runs are served together by the next statement', async () => {
    const { issuer } = await tenant();
    const query = vi.spyOn(t.ctx.db.pool, 'query');
    try {
      // The first runs its statement at once; the eleven that arrive meanwhile wait for it and
      // share the next one.
      const reservations = await Promise.all(Array.from({ length: 12 }, () => reserveFolio(t.ctx, input(issuer))));
      expect(reservations.map((r) => r.folio)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const statements = query.mock.calls.filter(([q]) => JSON.stringify(q).includes('reserve'));
      expect(statements).toHaveLength(2);
      expect(new Set(reservations.map((r) => r.id)).size).toBe(12);
      const rows = await t.ctx.db.prisma.folioReservation.count({ where: { issuerId: issuer.id } });
      expect(rows).toBe(12);
      await Promise.all(reservations.map((r) => releaseReservation(t.ctx, r)));
    } finally {
      query.mockRestore();
    }
  });

  it('a shared statement that runs out of a range goes on in the next one, and waiters beyond the last folio get FOLIOS_EXHAUSTED', async () => {
    const { issuer } = await createTestTenant(t);
    await generateSandboxRange(t.ctx, issuer, 34, 5);
    await generateSandboxRange(t.ctx, issuer, 34, 3);
    const of34 = { ...input(issuer), type: 34 as const };
    const outcomes = await Promise.allSettled(Array.from({ length: 11 }, () => reserveFolio(t.ctx, of34)));
    const folios = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.folio] : []));
    expect(folios.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as { code?: string }] : []));
    expect(refused.map((e) => e.code)).toEqual(['FOLIOS_EXHAUSTED', 'FOLIOS_EXHAUSTED', 'FOLIOS_EXHAUSTED']);
    const cafs = await t.ctx.db.prisma.caf.findMany({
      where: { issuerId: issuer.id, type: 34 },
      orderBy: { rangeFrom: 'asc' },
    });
    expect(cafs.map((c) => c.nextFolio)).toEqual([6, 9]);
  });
});
