/**
 * The 8-day clock of received facturas (docs/claims-registry.md §3), in live against the SII
 * simulator: the reception date-time asked to the SII's registry by the background job, the
 * deadline, `plazo` and `vence_antes` in `GET /recibidos`, and the events
 * `received.deadline_near` / `received.tacitly_accepted` with the injected clock (no test waits
 * for real days: the job and the scan are run by hand).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { scanDeadlineEvents } from '../../src/receiving/deadline-events.ts';
import { checkReceptions } from '../../src/receiving/reception-clock.ts';
import type { SiiSimulator } from '../../src/sii-simulator/index.ts';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';
import { createLiveIssuer, type LiveIssuer, liveEnv, startSimulator } from '../helpers/live.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';
import { manualClock } from '../helpers/time.ts';

const DAY = 86_400_000;
const clock = manualClock();
let t: TestApp;
let sim: SiiSimulator;
let supplier: Supplier;
let live: LiveIssuer;
let nextFolio = 300;

beforeAll(async () => {
  supplier = standInSupplier();
  const started = await startSimulator();
  sim = started.sim;
  t = await buildTestApp({
    clock,
    env: {
      ...liveEnv(sim, started.url),
      // The job and the scans are run by hand, on the manual clock.
      JOBS_ENABLED: 'false',
      TIMBRE_EXTRA_CAF_KEYS: `${sim.cafPublicKeyPem}\n${supplier.siiPublicKeyPem}`,
    },
  });
  live = await createLiveIssuer(t, sim, []);
});

/** A supplier's factura e-mailed to `rut`, uploaded by hand; returns its folio. */
async function receive(rut: string, auth: Record<string, string>): Promise<number> {
  const folio = nextFolio++;
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${rut}/recibidos`,
    headers: { ...auth, 'content-type': 'application/xml' },
    payload: supplier.envelope(rut, [supplier.dte(rut, folio)]),
  });
  expect(res.json()).toMatchObject({ accepted: true });
  return folio;
}

async function row(issuerId: string, folio: number) {
  return t.db.prisma.receivedDocument.findFirstOrThrow({ where: { issuerId, folio: BigInt(folio) } });
}

const listed = async (query: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/${live.rut}/recibidos${query}`, headers: live.auth });
  expect(res.statusCode).toBe(200);
  return res.json() as { data: { folio: number; plazo: Record<string, unknown> | null }[] };
};

describe('the reception date-time and the deadline (live)', () => {
  it('is asked to the SII by the job; deadline = reception + 8 × 24 h; plazo shows the days left', async () => {
    const folio = await receive(live.rut, live.auth);
    const before = await row(live.issuer.id, folio);
    expect(before).toMatchObject({ siiReceivedAt: null, deadline: null });
    expect(before.receptionCheckAt).not.toBeNull();
    // The SII received the supplier's envelope 1.5 days before the e-mail arrived.
    const reception = new Date(Math.floor((clock().getTime() - 1.5 * DAY) / 1000) * 1000);
    sim.registerReceivedDocument({
      issuerRut: SUPPLIER.rut,
      type: 33,
      folio,
      receiverRut: live.rut,
      receivedAt: reception,
    });
    await checkReceptions(t.ctx);
    const after = await row(live.issuer.id, folio);
    expect(after.siiReceivedAt?.toISOString()).toBe(reception.toISOString());
    expect(after.deadline?.getTime()).toBe(reception.getTime() + 8 * DAY);
    expect(after.receptionCheckAt).toBeNull();
    const entry = (await listed(`?q=${folio}`)).data[0]!;
    expect(entry.plazo).toEqual({
      sii_received_at: reception.toISOString(),
      deadline: new Date(reception.getTime() + 8 * DAY).toISOString(),
      days_left: 6,
      expired: false,
      pending_reason: null,
    });
  });

  it('a document the SII does not have yet is asked again later, with the reason shown', async () => {
    const folio = await receive(live.rut, live.auth);
    await checkReceptions(t.ctx);
    const r = await row(live.issuer.id, folio);
    expect(r.siiReceivedAt).toBeNull();
    expect(r.receptionError).toMatch(/no informa la recepción/);
    expect(r.receptionCheckAt!.getTime()).toBeGreaterThan(clock().getTime());
    expect((await listed(`?q=${folio}`)).data[0]!.plazo).toMatchObject({
      deadline: null,
      pending_reason: r.receptionError,
    });
  });

  it('an SII outage leaves the row to be asked again (retryable), then it gets its date', async () => {
    const folio = await receive(live.rut, live.auth);
    sim.registerReceivedDocument({ issuerRut: SUPPLIER.rut, type: 33, folio, receiverRut: live.rut });
    sim.setFault({ kind: 'http500', count: 1, paths: ['/WSREGISTRORECLAMODTE/*'] });
    await checkReceptions(t.ctx);
    const failed = await row(live.issuer.id, folio);
    expect(failed.siiReceivedAt).toBeNull();
    expect(failed.receptionError).toMatch(/no está disponible/);
    clock.advance(failed.receptionCheckAt!.getTime() - clock().getTime());
    await checkReceptions(t.ctx);
    expect((await row(live.issuer.id, folio)).siiReceivedAt).not.toBeNull();
  });

  it('vence_antes keeps the open ones due by that day, soonest first', async () => {
    const folios: number[] = [];
    for (const daysAgo of [2, 7.5, 5]) {
      const folio = await receive(live.rut, live.auth);
      folios.push(folio);
      sim.registerReceivedDocument({
        issuerRut: SUPPLIER.rut,
        type: 33,
        folio,
        receiverRut: live.rut,
        receivedAt: new Date(clock().getTime() - daysAgo * DAY),
      });
    }
    await checkReceptions(t.ctx);
    const inFourDays = new Date(clock().getTime() + 4 * DAY).toISOString().slice(0, 10);
    const due = (await listed(`?vence_antes=${inFourDays}&limit=100`)).data.map((d) => d.folio);
    // 7.5 days ago ends in half a day, 5 days ago in 3 days; 2 days ago in 6 days is later.
    expect(due.filter((f) => folios.includes(f))).toEqual([folios[1], folios[2]]);
    const bad = await t.app.inject({
      method: 'GET',
      url: `/api/${live.rut}/recibidos?vence_antes=mañana`,
      headers: live.auth,
    });
    expect(bad.statusCode).toBe(400);
  });
});

describe('sandbox', () => {
  it('has no SII: the reception is when Timbre received it', async () => {
    const { issuer, rut, api } = await createTestTenant(t);
    const folio = await receive(rut, api.headers);
    const r = await row(issuer.id, folio);
    expect(r.siiReceivedAt?.getTime()).toBe(clock().getTime());
    expect(r.deadline?.getTime()).toBe(clock().getTime() + 8 * DAY);
    expect(r.receptionCheckAt).toBeNull();
  });
});

describe('the events of the clock', () => {
  it('deadline_near within 48 h of the deadline, then tacitly_accepted after it, each once and in order', async () => {
    const { issuer, rut, api } = await createTestTenant(t);
    const folio = await receive(rut, api.headers);
    const eventsOf = async () =>
      (
        await t.db.prisma.event.findMany({
          where: { issuerId: issuer.id, type: { startsWith: 'received.' } },
          orderBy: { createdAt: 'asc' },
        })
      ).map((e) => e.type);
    const saved = clock();
    try {
      clock.advance(5.9 * DAY);
      await scanDeadlineEvents(t.ctx);
      expect(await eventsOf()).toEqual(['received.document']);
      clock.advance(0.2 * DAY);
      await scanDeadlineEvents(t.ctx);
      await scanDeadlineEvents(t.ctx);
      expect(await eventsOf()).toEqual(['received.document', 'received.deadline_near']);
      clock.advance(2 * DAY);
      await scanDeadlineEvents(t.ctx);
      await scanDeadlineEvents(t.ctx);
      expect(await eventsOf()).toEqual(['received.document', 'received.deadline_near', 'received.tacitly_accepted']);
      const tacit = await t.db.prisma.event.findFirstOrThrow({
        where: { issuerId: issuer.id, type: 'received.tacitly_accepted' },
      });
      expect(tacit.data).toMatchObject({ folio, plazo: { expired: true, days_left: 0 } });
    } finally {
      clock.set(saved);
    }
  });

  it('a document first seen past its deadline gets only tacitly_accepted', async () => {
    const { issuer, rut, api } = await createTestTenant(t);
    await receive(rut, api.headers);
    const saved = clock();
    try {
      clock.advance(9 * DAY);
      await scanDeadlineEvents(t.ctx);
      const types = (await t.db.prisma.event.findMany({ where: { issuerId: issuer.id } })).map((e) => e.type).sort();
      expect(types).toEqual(['received.document', 'received.tacitly_accepted']);
    } finally {
      clock.set(saved);
    }
  });
});
