/**
 * `npm run bench`: issuing throughput and latency over HTTP against real server processes,
 * next to the pure signing rate measured in the same run on the same machine, plus PDF
 * rendering alone. Writes BENCHMARKS.md. Options (env): BENCH_DOCS (default 1500),
 * BENCH_CONCURRENCY (comma list, default "16,64"), BENCH_INSTANCES ("1,2").
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { parseCaf, generateCaf } from '../src/dte/caf.ts';
import { generateTestCertificate, parsePkcs12 } from '../src/dte/certificate.ts';
import { buildDteXml } from '../src/dte/dte-xml.ts';
import { issueRequestSchema } from '../src/dte/issue-request.ts';
import { renderPdf } from '../src/dte/pdf.ts';
import { buildTed } from '../src/dte/ted.ts';
import { computeDocument } from '../src/dte/totals.ts';
import { signDte } from '../src/dte/xmldsig.ts';
import { ensureEmbeddedPostgres } from '../src/db/embedded.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 1500);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '16,64').split(',').map(Number);
const INSTANCES = (process.env.BENCH_INSTANCES ?? '1,2').split(',').map(Number);

const ISSUER = {
  rut: '76086428-5',
  name: 'Comercial Demo Ñuñoa SpA',
  giro: 'Venta al por menor',
  acteco: ['475201'],
  address: 'Av. Irarrázaval 1234',
  comuna: 'Ñuñoa',
  city: 'Santiago',
  vatRate: 19,
  resolutionDate: '2014-08-22',
  resolutionNumber: 80,
};

function tenLineFactura() {
  return {
    type: 33,
    receiver: {
      rut: '76354771-K',
      name: 'Distribuidora Ñandú Ltda.',
      activity: 'Comercio',
      address: 'Av. Italia 123',
      comuna: 'Providencia',
      city: 'Santiago',
    },
    items: Array.from({ length: 10 }, (_, i) => ({
      name: `Artículo de ferretería Nº ${i + 1}`,
      qty: i + 1,
      price: 1350 + i * 10,
    })),
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One XMLDSig (2048-bit) + one TED signature (512-bit CAF key) per document, single thread. */
function signingRate(): { perSecond: number; msPerDoc: number } {
  const { p12, password } = generateTestCertificate({ holderRut: '13185095-6', name: 'BENCH' });
  const cert = parsePkcs12(p12, password);
  const signer = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const caf = parseCaf(
    generateCaf({
      rut: ISSUER.rut,
      name: 'DEMO',
      type: 33,
      from: 1,
      to: 100000,
      authorisedAt: '2026-01-01',
      signerKey: signer.privateKey,
      idk: 9,
    }),
  );
  const cafKey = createPrivateKey(caf.privateKeyPem);
  const req = issueRequestSchema.parse(tenLineFactura());
  const docs = Array.from({ length: 50 }, (_, i) =>
    computeDocument(req, { issuer: ISSUER, folio: i + 1, date: '2026-11-22' }),
  );
  const prepared = docs.map((doc) => {
    const ted = buildTed({ doc, caf, cafPrivateKey: cafKey, timestamp: '2026-11-22T10:00:00' });
    return { doc, ...buildDteXml(doc, { ted, timestamp: '2026-11-22T10:00:00' }) };
  });
  for (const p of prepared.slice(0, 10)) signDte(p.xml, p.documentId, cert); // warm-up
  const n = 400;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const p = prepared[i % prepared.length]!;
    buildTed({ doc: p.doc, caf, cafPrivateKey: cafKey, timestamp: '2026-11-22T10:00:00' });
    signDte(p.xml, p.documentId, cert);
  }
  const ms = performance.now() - t0;
  return { perSecond: (n / ms) * 1000, msPerDoc: ms / n };
}

async function pdfRender(): Promise<{ p50: number; p99: number; letterP50: number; rollP50: number }> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const caf = parseCaf(
    generateCaf({
      rut: ISSUER.rut,
      name: 'DEMO',
      type: 33,
      from: 1,
      to: 1000,
      authorisedAt: '2026-01-01',
      signerKey: privateKey,
      idk: 9,
    }),
  );
  const doc = computeDocument(issueRequestSchema.parse(tenLineFactura()), {
    issuer: ISSUER,
    folio: 42,
    date: '2026-11-22',
  });
  const ted = buildTed({
    doc,
    caf,
    cafPrivateKey: createPrivateKey(caf.privateKeyPem),
    timestamp: '2026-11-22T10:00:00',
  });
  for (let i = 0; i < 10; i++) await renderPdf(doc, ted, { format: 'letter', sandbox: true });
  const times = async (format: 'letter' | '80mm') => {
    const out: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now();
      await renderPdf(doc, ted, { format, sandbox: true });
      out.push(performance.now() - t0);
    }
    return out.sort((a, b) => a - b);
  };
  const letter = await times('letter');
  const roll = await times('80mm');
  return {
    p50: percentile(letter, 50),
    p99: percentile(letter, 99),
    letterP50: percentile(letter, 50),
    rollP50: percentile(roll, 50),
  };
}

interface Server {
  proc: ChildProcess;
  port: number;
  peakRss: number;
  stop(): Promise<void>;
}

async function startServer(port: number, env: Record<string, string>): Promise<Server> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
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
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.ok) break;
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

async function cli(env: Record<string, string>, ...args: string[]): Promise<any> {
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

async function load(ports: number[], key: string, rut: string, docs: number, concurrency: number) {
  const body = JSON.stringify(tenLineFactura());
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const folios: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (;;) {
        const i = next++;
        if (i >= docs) return;
        const port = ports[(w + i) % ports.length];
        const s = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/api/${rut}/emitir`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        const json = (await res.json()) as { folio?: number };
        latencies.push(performance.now() - s);
        if (res.status !== 200 || !json.folio) failures++;
        else folios.push(json.folio);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    docsPerSecond: docs / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
    duplicates: folios.length - new Set(folios).size,
  };
}

async function main() {
  const started = new Date();
  console.log('signing rate…');
  const sign = signingRate();
  console.log(sign);
  console.log('pdf rendering…');
  const pdf = await pdfRender();
  console.log(pdf);

  const dataDir = resolve('.data-bench');
  const pgHandle = process.env.DATABASE_URL
    ? null
    : await ensureEmbeddedPostgres(dataDir, { database: `bench_${Date.now()}` });
  const env: Record<string, string> = {
    DATABASE_URL: process.env.DATABASE_URL ?? pgHandle!.url,
    TIMBRE_DATA_DIR: dataDir,
    DB_POOL_MAX: '20',
    JOBS_ENABLED: 'false',
  };
  const issuer = await cli(
    env,
    'issuer',
    'create',
    '--rut',
    '76354771-K',
    '--name',
    'Bench SpA',
    '--giro',
    'Comercio',
    '--acteco',
    '475201',
    '--address',
    'Calle 1',
    '--comuna',
    'Santiago',
  );
  const key = (await cli(env, 'key', 'create', '--rut', issuer.rut, '--role', 'owner')).key as string;

  const rows: string[] = [];
  const results: Array<Record<string, unknown>> = [];
  for (const instances of INSTANCES) {
    const servers = await Promise.all(Array.from({ length: instances }, (_, i) => startServer(4100 + i, env)));
    try {
      await load(
        servers.map((s) => s.port),
        key,
        issuer.rut,
        100,
        8,
      ); // warm-up (sandbox CAF, caches, JIT)
      for (const c of CONCURRENCY) {
        for (const s of servers) s.peakRss = 0;
        const r = await load(
          servers.map((s) => s.port),
          key,
          issuer.rut,
          DOCS,
          c,
        );
        const rss = Math.max(...servers.map((s) => s.peakRss));
        results.push({ instances, concurrency: c, ...r, rss });
        console.log({ instances, concurrency: c, ...r, rssMB: rss / 2 ** 20 });
        rows.push(
          `| ${instances} | ${c} | ${r.docsPerSecond.toFixed(0)} | ${((r.docsPerSecond / sign.perSecond) * 100).toFixed(0)} % | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(rss / 2 ** 20).toFixed(0)} | ${r.failures} | ${r.duplicates} |`,
        );
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }
  await pgHandle?.release();

  const cpu = cpus()[0]?.model ?? 'unknown';
  const md = `# Benchmarks

Run with \`npm run bench\` on ${started.toISOString().slice(0, 10)}, machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, embedded PostgreSQL 18 on the same machine.

## Pure signing rate (same run, one core)

One 2048-bit XMLDSig of a 10-line factura (C14N + SHA-1 + RSA) plus one TED signature with the 512-bit CAF key: **${sign.perSecond.toFixed(0)} docs/s** (${sign.msPerDoc.toFixed(2)} ms per document).

## Issuing over HTTP (sandbox, 10-line type-33 facturas, ${DOCS} documents per row)

Every request validates, computes totals, takes a folio under a row lock, builds the XML, stamps the TED, signs, validates against the XSD and commits. Load generator in a separate process on the same 2 cores.

| instances | concurrency | docs/s | vs signing rate | p50 ms | p99 ms | peak RSS MB (per instance) | failures | duplicate folios |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

## PDF rendering alone (10-line factura, PDF417 included)

Letter p50 **${pdf.letterP50.toFixed(1)} ms** (p99 ${pdf.p99.toFixed(1)} ms); 80 mm roll p50 **${pdf.rollP50.toFixed(1)} ms**.
`;
  writeFileSync('BENCHMARKS.md', md);
  console.log(md);
  void results;
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
