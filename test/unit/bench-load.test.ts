/**
 * The issuing rows' load generators (bench/wrk.ts): real wrk processes (and the bench's node:http
 * client) against small local HTTP servers whose answers the test chooses, so the counts a
 * BENCHMARKS.md row reports can be checked: exactly the row's number of requests, every
 * non-200 answer and every answer without a folio a failure, duplicate folios found, the body
 * and the key sent as given, and with two instances both served from one queue.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { tenLineFactura } from '../../bench/harness.ts';
import { loadGenerator } from '../../bench/wrk.ts';

const hasWrk = spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;

interface Seen {
  requests: number;
  bodies: Set<string>;
  keys: Set<string>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * A stand-in for POST /emitir: the i-th request (from 1) is answered after `delayMs` with a 422
 * when i is a multiple of 10, a 201 with a folio when a multiple of 25, a 200 without a folio
 * when 7, the folio 12 again when 13, else a 200 with folio i.
 */
async function fakeIssuer(delayMs: number): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = { requests: 0, bodies: new Set(), keys: new Set() };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      const i = ++seen.requests;
      seen.bodies.add(body);
      seen.keys.add(req.headers.authorization ?? '');
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        if (i % 10 === 0) {
          res.writeHead(422).end('{"code":"folios_agotados","error":"sin \\"folios\\"\\ny más"}');
        } else if (i % 25 === 0) res.writeHead(201).end(JSON.stringify({ folio: 100_000 + i }));
        else if (i === 7) res.end('{"estado":"sin folio"}');
        else res.end(JSON.stringify({ folio: i === 13 ? 12 : i, estado: 'aceptado' }));
      }, delayMs);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen };
}

/** Failures the rules of `fakeIssuer` give over its first `n` requests. */
function expectedFailures(n: number): number {
  let f = 0;
  for (let i = 1; i <= n; i++) if (i % 10 === 0 || i % 25 === 0 || i === 7) f++;
  return f;
}

describe('load generators of the issuing rows', () => {
  it.skipIf(!hasWrk)('wrk sends exactly the row’s requests and counts failures and duplicate folios', async () => {
    const { port, seen } = await fakeIssuer(2);
    const r = await loadGenerator('wrk').run([port], 'k3y', '76354771-K', 300, 6);
    expect(seen.requests).toBe(300);
    expect(r.failures).toBe(expectedFailures(300));
    expect(r.firstFailure).toMatch(/^(422|201|200) /);
    expect(r.duplicates).toBe(1);
    // The factura's accented names went through the Lua script unchanged, with the key.
    expect([...seen.bodies]).toEqual([JSON.stringify(tenLineFactura())]);
    expect([...seen.keys]).toEqual(['Bearer k3y']);
    // Every answer waited at least the server's delay: the latencies are the requests'.
    expect(r.p50).toBeGreaterThanOrEqual(2);
    // wrk's own CPU, read from /proc in clock ticks (10 ms): 300 short requests may take less
    // than one tick, so only that it was read (a number, not NaN).
    expect(Number.isFinite(r.clientMsPerDoc)).toBe(true);
    expect(r.clientMsPerDoc).toBeGreaterThanOrEqual(0);
  });

  it('the node:http client counts the same', async () => {
    const { port, seen } = await fakeIssuer(2);
    const r = await loadGenerator('node').run([port], 'k3y', '76354771-K', 300, 6);
    expect(seen.requests).toBe(300);
    expect(r.failures).toBe(expectedFailures(300));
    expect(r.duplicates).toBe(1);
  });

  it.skipIf(!hasWrk)('two instances: half the connections each, one queue, the samples of both', async () => {
    const fast = await fakeIssuer(1);
    const slow = await fakeIssuer(60);
    const r = await loadGenerator('wrk').run([fast.port, slow.port], 'k3y', '76354771-K', 400, 4);
    expect(fast.seen.requests + slow.seen.requests).toBe(400);
    // The slow instance's two connections took fewer documents from the shared queue…
    expect(slow.seen.requests).toBeGreaterThanOrEqual(2);
    expect(slow.seen.requests).toBeLessThan(fast.seen.requests);
    // …and its answers are among the samples (over 1 % of them: at 60 ms, p99 is one of them).
    if (slow.seen.requests > 4) expect(r.p99).toBeGreaterThanOrEqual(60);
    expect(r.p50).toBeLessThan(60);
    expect(r.failures).toBe(expectedFailures(fast.seen.requests) + expectedFailures(slow.seen.requests));
  });

  it.skipIf(!hasWrk)(
    'wrk splits the answers by the stages their Server-Timing names; the slowest 1 % apart',
    async () => {
      // Every 50th answer is slow (80 ms, 75 of them in `sign`); every 7th names no stages.
      let i = 0;
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          const n = ++i;
          const slow = n % 50 === 0;
          setTimeout(
            () => {
              if (n % 7 !== 0) {
                res.setHeader('Server-Timing', `folio;dur=0.5, sign;dur=${slow ? '75.0' : '0.8'}, store;dur=0.3`);
              }
              res.setHeader('content-type', 'application/json');
              res.end(JSON.stringify({ folio: n }));
            },
            slow ? 80 : 2,
          );
        });
      });
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const r = await loadGenerator('wrk').run([(server.address() as AddressInfo).port], 'k3y', '76354771-K', 300, 4);
      expect(r.failures).toBe(0);
      const s = r.stages!;
      expect(s.p50).toMatchObject({ folio: 0.5, sign: 0.8, store: 0.3 });
      // The slowest 1 % of the 258 timed answers: 3 of the 6 slow ones, their time in `sign`.
      expect(s.slowest.sign).toBe(75);
      expect(s.slowest.latency).toBeGreaterThanOrEqual(80);
      expect(s.slowest.rest).toBeCloseTo(s.slowest.latency - 75.8, 5);
      expect(s.p50.rest).toBeGreaterThan(0);
    },
  );

  it('BENCH_LOAD takes wrk or node only', () => {
    expect(() => loadGenerator('ab')).toThrow(/wrk" or "node/);
    expect(loadGenerator('node').name).toBe('node');
  });
});
