/**
 * What the bench's parts share: the demo request (a 10-line factura), server processes run the
 * way `npm start` runs them, the CLI, the load generator and small API calls.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import pg from 'pg';
import { BENCH_RECEIVER } from './fixtures.ts';

/** A directory: each server process writes a V8 CPU profile there (`--cpu-prof`) when it exits. */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** Extra node flags for every server process (e.g. `--trace-gc`), space-separated: BENCH_NODE_FLAGS. */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** The compiled server: BENCH_SERVER_JS runs another build (an A/B against a copy of an older `dist/`). */
const SERVER_JS = process.env.BENCH_SERVER_JS ?? 'dist/server.js';
/** Folios a sandbox range request may ask for at once (POST folios_sii). */
const FOLIO_REQUEST_MAX = 10_000;

export function tenLineFactura() {
  return {
    type: 33,
    receiver: BENCH_RECEIVER,
    items: Array.from({ length: 10 }, (_, i) => ({
      name: `Artículo de ferretería Nº ${i + 1}`,
      qty: i + 1,
      price: 1350 + i * 10,
    })),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Server {
  proc: ChildProcess;
  port: number;
  peakRss: number;
  stop(): Promise<void>;
}

/**
 * A port nobody listens on. Fixed ports are not safe on a shared machine: with another run's
 * server already on one, the health check would pass against that server and every request
 * would go to a different database.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

export async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  // What `npm start` and the Dockerfile run: the compiled service under plain node.
  const profile = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROFILE_DIR)}`] : [];
  const proc = spawn(process.execPath, ['--max-old-space-size=192', ...NODE_FLAGS, ...profile, SERVER_JS], {
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: '2',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TIMBRE_DEMO: 'false',
      RATE_LIMIT_PER_MINUTE: '10000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr?.on('data', (c) => {
    err += String(c);
  });
  // BENCH_SERVER_LOG: the server's standard output (pino, --trace-gc…) appended to this file.
  if (process.env.BENCH_SERVER_LOG) {
    const log = createWriteStream(process.env.BENCH_SERVER_LOG, { flags: 'a' });
    proc.stdout?.pipe(log);
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.ok && proc.exitCode === null) break;
    } catch {}
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`server did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const server: Server = {
    proc,
    port,
    peakRss: 0,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    },
  };
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      server.peakRss = Math.max(server.peakRss, kb * 1024);
    } catch {}
  }, 100);
  proc.once('exit', () => clearInterval(sampler));
  return server;
}

export async function cli(env: Record<string, string>, ...args: string[]): Promise<any> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args, '--json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c) => {
    out += String(c);
  });
  proc.stderr.on('data', (c) => {
    err += String(c);
  });
  const code = await new Promise<number>((r) => proc.once('exit', (c) => r(c ?? 1)));
  if (code !== 0) throw new Error(`cli ${args.join(' ')} failed: ${err}`);
  return JSON.parse(out);
}

/**
 * Issues `docs` 10-line facturas over `concurrency` keep-alive connections (spread over the
 * ports), one request at a time per connection. The client is node:http with a keep-alive agent,
 * not `fetch`: on these 2 cores the load generator shares the CPU with the service, and fetch
 * spent about 2 ms of CPU per request (a third of what Timbre and PostgreSQL could use).
 */
export async function load(ports: number[], key: string, rut: string, docs: number, concurrency: number) {
  const body = Buffer.from(JSON.stringify(tenLineFactura()));
  const agents = ports.map(() => new Agent({ keepAlive: true, maxSockets: concurrency }));
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'content-length': String(body.length),
  };
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const folios: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (;;) {
        const i = next++;
        if (i >= docs) return;
        const p = (w + i) % ports.length;
        const s = performance.now();
        const res = await post(agents[p]!, ports[p]!, `/api/${rut}/emitir`, headers, body);
        latencies.push(performance.now() - s);
        const json = JSON.parse(res.text) as { folio?: number; code?: string; error?: string };
        if (res.status !== 200 || !json.folio) {
          failures++;
          // A failed request is fast and would flatter the figures: say why, once per run.
          firstFailure ??= `${res.status} ${json.code}: ${json.error}`;
        } else folios.push(json.folio);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  for (const a of agents) a.destroy();
  latencies.sort((a, b) => a - b);
  return {
    docsPerSecond: docs / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
    firstFailure,
    duplicates: folios.length - new Set(folios).size,
  };
}

export function post(
  agent: Agent,
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolvePost, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePost({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function api(port: number, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Sandbox folios for the issuing runs: the range generated on first use holds 1000, fewer than
 * a run issues, and running out would turn every later request into a fast 422.
 */
export async function ensureFolios(port: number, key: string, rut: string, type: number, needed: number) {
  for (let got = 0; got < needed; got += FOLIO_REQUEST_MAX) {
    await api(port, key, 'POST', `/api/${rut}/folios_sii`, {
      tipo_dte: type,
      cantidad: Math.min(FOLIO_REQUEST_MAX, needed - got),
    });
  }
}

/** Drops a database the bench made on the embedded server (`adminUrl`: its maintenance database). */
export async function dropBenchDatabase(adminUrl: string, database: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin.end();
}
