/**
 * Crash safety: the real server process is killed with SIGKILL in the middle of concurrent
 * issuing, then restarted. Every request that got a 200 has its document with signed XML, no
 * folio is duplicated, and folios taken by requests that never committed were given back
 * once their lease expired (the consumed folios form one contiguous block from the start of
 * the range).
 */
import { beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.ts';
import { bearer, buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { type ServerProcess, startServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/time.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';

/** The folios reserved by requests the kill interrupted come back once their lease expires. */
const start = (): Promise<ServerProcess> =>
  startServer(t, { RATE_LIMIT_PER_MINUTE: '100000', FOLIO_LEASE_MS: String(LEASE_MS) });

let t: TestApp;
const LEASE_MS = 1500;

beforeAll(async () => {
  t = await buildTestApp();
});

it('SIGKILL mid-load loses no acknowledged document and leaves no gap', async () => {
  const issuer = await createTestIssuer(t.ctx);
  const { key } = await createApiKey(t.ctx, { rut: issuer.rut, role: 'owner' });
  let server = await start();
  const acknowledged: number[] = [];
  let stop = false;
  const body = JSON.stringify(factura());
  const workers = Array.from({ length: 12 }, async () => {
    while (!stop) {
      try {
        const res = await fetch(`${server.url}/api/${issuer.rut}/emitir`, {
          method: 'POST',
          headers: { ...bearer(key), 'content-type': 'application/json' },
          body,
        });
        if (res.status === 200) acknowledged.push(((await res.json()) as { folio: number }).folio);
      } catch {
        // connection reset by the kill: this request was never acknowledged
      }
    }
  });
  await waitFor(() => acknowledged.length >= 40, { timeoutMs: 30_000, intervalMs: 20, what: '40 acknowledged issues' });
  await server.kill();
  stop = true;
  await Promise.all(workers);
  expect(acknowledged.length).toBeGreaterThanOrEqual(40);

  server = await start();
  try {
    // The folios the kill left reserved by requests that never committed are handed out again
    // (lowest first) once their lease has expired: wait until every lease has run out, then
    // issue as many documents as there were requests in flight, and the consumed folios must
    // close up into one block.
    await waitFor(
      async () =>
        (await t.ctx.db.prisma.folioReservation.count({
          where: { issuerId: issuer.id, leaseUntil: { gte: new Date() } },
        })) === 0,
      { timeoutMs: LEASE_MS + 30_000, what: 'the leases of the interrupted requests to run out' },
    );
    for (let i = 0; i < 12; i++) {
      const after = await fetch(`${server.url}/api/${issuer.rut}/emitir`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
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
      const xml = await signedXmlOf(t.ctx, d);
      expect(xml.length).toBeGreaterThan(1000);
      expect(xml.toString('latin1')).toContain('<SignatureValue>');
    }
    const caf = await t.ctx.db.prisma.caf.findFirstOrThrow({ where: { issuerId: issuer.id, type: 33 } });
    expect(caf.nextFolio).toBe(folios.length + 1);
    expect(await t.ctx.db.prisma.folioReservation.count({ where: { issuerId: issuer.id } })).toBe(0);
  } finally {
    await server.stop();
  }
});
