/**
 * The background jobs as operators rely on them: work queued in PostgreSQL survives a
 * restart, and several instances on one database share it without ever sending a document
 * twice (checked on the simulator's side: one upload per document, never even a re-upload).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SiiSimulator } from '../../src/sii-simulator/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { createLiveIssuer, estadoOf, eventually, startLiveApp, startSimulator } from '../helpers/live.ts';
import { factura } from '../helpers/requests.ts';

let sim: SiiSimulator;
let url: string;

beforeAll(async () => {
  ({ sim, url } = await startSimulator());
});

// A fault never outlives its test, even one that failed half-way.
afterEach(() => {
  sim.clearFaults();
});

async function issuePending(app: TestApp, rut: string, key: string) {
  const res = await app.as(key).post(`/api/${rut}/emitir`, factura());
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ estado_sii: 'pendiente', track_id: '' });
  return res.json().folio as number;
}

const SII_DOWN = ['/cgi_dte/UPL/DTEUpload', '/DTEWS/CrSeed.jws', '/DTEWS/GetTokenFromSeed.jws'];

/**
 * These tests count uploads (exactly one per document). With the live tests' short SII timeout
 * (1.5 s) a simulator slowed by a loaded machine can answer an upload after Timbre gave up on
 * it; Timbre then rightly sends the same envelope again, and the count is 2. No test here needs
 * a timeout, so the SII is given all the time it takes.
 */
const PATIENT = { SII_TIMEOUT_MS: '60000' };

describe('background submission', () => {
  it('pending work survives a restart: the next process submits it', async () => {
    // The anchor owns the database (it outlives the two processes below) and runs no jobs.
    const anchor = await startLiveApp(sim, url, { env: { ...PATIENT, JOBS_ENABLED: 'false' } });
    const first = await startLiveApp(sim, url, { env: PATIENT, shareDatabaseOf: anchor });
    const live = await createLiveIssuer(first, sim, [33]);
    sim.setFault({ kind: 'down', paths: SII_DOWN });
    const folios = [
      await issuePending(first, live.rut, live.key),
      await issuePending(first, live.rut, live.key),
      await issuePending(first, live.rut, live.key),
    ];
    await first.close();
    sim.clearFaults();
    // A new process on the same database picks the queued work up.
    const second = await startLiveApp(sim, url, { env: PATIENT, shareDatabaseOf: anchor });
    for (const folio of folios) {
      await eventually(async () => (await estadoOf(second, live.rut, 33, folio)) === 'aceptado');
    }
    for (const folio of folios) {
      const uploads = sim
        .uploads()
        .filter((u) => u.companyRut === live.rut && u.documents.some((d) => d.folio === folio));
      expect(uploads).toHaveLength(1);
      expect(uploads[0]!.timesSent).toBe(1);
    }
  });

  it('two instances on one database share the queue without a double submission', async () => {
    const a = await startLiveApp(sim, url, { env: PATIENT });
    const b = await startLiveApp(sim, url, { env: PATIENT, shareDatabaseOf: a });
    const live = await createLiveIssuer(a, sim, [33]);
    sim.setFault({ kind: 'down', paths: SII_DOWN });
    const folios: number[] = [];
    for (let i = 0; i < 8; i++) folios.push(await issuePending(i % 2 ? a : b, live.rut, live.key));
    sim.clearFaults();
    for (const folio of folios) {
      await eventually(async () => (await estadoOf(a, live.rut, 33, folio)) === 'aceptado', 30_000);
    }
    const uploads = sim.uploads().filter((u) => u.companyRut === live.rut);
    expect(uploads).toHaveLength(8);
    expect(uploads.every((u) => u.timesSent === 1)).toBe(true);
    expect(new Set(uploads.flatMap((u) => u.documents.map((d) => d.folio)))).toEqual(new Set(folios));
  });

  it('an instance with JOBS_ENABLED=false only queues: an instance with jobs on its database submits, one document per envelope', async () => {
    const httpOnly = await startLiveApp(sim, url, { env: { ...PATIENT, JOBS_ENABLED: 'false' } });
    const live = await createLiveIssuer(httpOnly, sim, [33]);
    sim.setFault({ kind: 'down', paths: SII_DOWN });
    const folio = await issuePending(httpOnly, live.rut, live.key);
    sim.clearFaults();
    // The HTTP-only instance answered and stored the document; the instance that runs jobs,
    // started afterwards on the same database, finds it queued and sends it.
    const worker = await startLiveApp(sim, url, { env: PATIENT, shareDatabaseOf: httpOnly });
    await eventually(async () => (await estadoOf(worker, live.rut, 33, folio)) === 'aceptado');
    const uploads = sim.uploads().filter((u) => u.companyRut === live.rut);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.timesSent).toBe(1);
    // One document per envelope: the EnvioDTE the SII received holds this DTE alone.
    expect(uploads[0]!.documents.map((d) => [d.type, d.folio])).toEqual([[33, folio]]);
    expect(await estadoOf(httpOnly, live.rut, 33, folio)).toBe('aceptado');
  });
});
