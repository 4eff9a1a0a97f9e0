/**
 * Crash safety: the real server process is killed with SIGKILL in the middle of concurrent
 * issuing, then restarted. Every request that got a 200 has its document with signed XML, no
 * folio is duplicated, and folios taken by requests that never committed were given back
 * once their lease expired (the consumed folios form one contiguous block from the start of
 * the range).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.ts';
import { buildTestApp, createTestIssuer, TEST_MASTER_KEY, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
const LEASE_MS = 1500;

beforeAll(async () => {
  t = await buildTestApp();
});

afterAll(async () => {
  await t.close();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function start(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: t.db.url,
      TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
      TIMBRE_DATA_DIR: t.config.dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TIMBRE_DEMO: 'false',
      JOBS_ENABLED: 'false',
      RATE_LIMIT_PER_MINUTE: '100000',
      // Folios reserved by requests the kill interrupted come back once their lease expires.
      FOLIO_LEASE_MS: String(LEASE_MS),
    },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return proc;
    } catch {}
    if (Date.now() > deadline) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('SIGKILL mid-load loses no acknowledged document and leaves no gap', async () => {
  const issuer = await createTestIssuer(t.ctx);
  const { key } = await createApiKey(t.ctx, { rut: issuer.rut, role: 'owner' });
  const port = await freePort();
  let proc = await start(port);
  const acknowledged: number[] = [];
  let stop = false;
  const body = JSON.stringify(factura());
  const workers = Array.from({ length: 12 }, async () => {
    while (!stop) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/${issuer.rut}/emitir`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        if (res.status === 200) acknowledged.push(((await res.json()) as { folio: number }).folio);
      } catch {
        // connection reset by the kill: this request was never acknowledged
      }
    }
  });
  const deadline = Date.now() + 30_000;
  while (acknowledged.length < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  proc.kill('SIGKILL');
  await new Promise((r) => proc.once('exit', r));
  stop = true;
  await Promise.all(workers);
  expect(acknowledged.length).toBeGreaterThanOrEqual(40);

  proc = await start(port);
  try {
    // The folios the kill left reserved by requests that never committed are handed out again
    // (lowest first) once their lease has expired: issue as many documents as there were
    // requests in flight, and the consumed folios must close up into one block.
    await new Promise((r) => setTimeout(r, LEASE_MS + 200));
    for (let i = 0; i < 12; i++) {
      const after = await fetch(`http://127.0.0.1:${port}/api/${issuer.rut}/emitir`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
      expect(after.status).toBe(200);
    }
    const docs = await t.ctx.db.prisma.document.findMany({
      where: { issuerId: issuer.id, type: 33 },
      orderBy: { folio: 'asc' },
    });
    const folios = docs.map((d) => d.folio);
    for (const f of acknowledged) expect(folios).toContain(f);
    expect(new Set(folios).size).toBe(folios.length);
    expect(folios).toEqual(Array.from({ length: folios.length }, (_, i) => i + 1));
    for (const d of docs) {
      expect(d.signedXml.length).toBeGreaterThan(1000);
      expect(Buffer.from(d.signedXml).toString('latin1')).toContain('<SignatureValue>');
    }
    const caf = await t.ctx.db.prisma.caf.findFirstOrThrow({ where: { issuerId: issuer.id, type: 33 } });
    expect(caf.nextFolio).toBe(folios.length + 1);
    expect(await t.ctx.db.prisma.folioReservation.count({ where: { issuerId: issuer.id } })).toBe(0);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
});
