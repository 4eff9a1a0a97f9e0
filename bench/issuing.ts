/**
 * The issuing part of `npm run bench` (README "Performance and scale-out"): the signing bound measured in the same run,
 * where one document's CPU goes in-process, the HTTP rows with CPU per document read from
 * /proc, and the one-screen summary of every target the run measured.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { issueRequestSchema } from '../src/dte/issue-request.ts';
import type { IssuerInfo } from '../src/dte/model.ts';
import { computeDocument } from '../src/dte/totals.ts';
import type { ThreadSplit } from './cpu.ts';
import type { StageSplit } from './wrk.ts';

export interface IssuingRow {
  /** Which of the BENCH_RUNS runs measured it (1-based); a median row keeps the first. */
  run: number;
  instances: number;
  concurrency: number;
  docsPerSecond: number;
  p50: number;
  p99: number;
  peakRssMb: number;
  /** CPU ms per issued document: the Timbre process(es), PostgreSQL (all its processes). */
  cpu: { node: number; pg: number };
  /** The Timbre CPU per document by thread (summed over the instances), from /proc/PID/task. */
  threads: ThreadSplit;
  /** CPU ms per document of the load generator (wrk, or the bench process), on the same cores. */
  clientMs: number;
  /** Of `cpu.pg`: the client connections' backends (the rest: WAL writer, checkpointer, I/O workers…). */
  pgBackendsMs: number;
  /** CPU ms per document of the pooler (PgBouncer) when the run went through one, else null. */
  poolerMs: number | null;
  failures: number;
  duplicates: number;
  /** Where the answers' time went, from their Server-Timing (null: the load generator did not read it). */
  stages: StageSplit | null;
}

/**
 * CPU milliseconds per call of `f` (this thread's user + system time, not the wall clock), after
 * a warm-up: what one core spends on it, which a busy machine changes far less than the time
 * it takes.
 */
function msPerCall(n: number, f: () => unknown): number {
  for (let i = 0; i < Math.min(20, n); i++) f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / n;
}

/**
 * The signing bound: pairs of the two RSA signatures every document needs (a
 * 2048-bit RSA-SHA1 XMLDSig SignatureValue and a 512-bit RSA-SHA1 TED FRMT), one core,
 * node:crypto, nothing else. No implementation can issue faster than this per core.
 */
export function rsaPairBound(): { perSecond: number; msPerPair: number } {
  const cert = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const caf = generateKeyPairSync('rsa', { modulusLength: 512 }).privateKey;
  const signedInfo = Buffer.alloc(480, 'S');
  const dd = Buffer.alloc(420, 'D');
  const pair = () => {
    sign('sha1', signedInfo, cert);
    sign('sha1', dd, caf);
  };
  // The fastest of three rounds after a warm-up: the bound is what the core can do, and the
  // first second of RSA on this VM runs ~30 % slower (0.58–0.60 ms a pair, then 0.42–0.45).
  msPerCall(300, pair);
  const ms = Math.min(msPerCall(1000, pair), msPerCall(1000, pair), msPerCall(1000, pair));
  return { perSecond: 1000 / ms, msPerPair: ms };
}

/** CPU ms of totals and the document model for one request (the stage before signing). */
export function computeCost(issuer: IssuerInfo, body: unknown): number {
  const req = issueRequestSchema.parse(body);
  return msPerCall(1000, () => computeDocument(req, { issuer, folio: 7, date: '2026-11-22' }));
}

/** The signing stage's steps (bench/signing.ts), CPU ms per document on one core. */
export type StageSteps = { step: string; cpuMs: number }[];

export interface Target {
  name: string;
  target: string;
  measured: string;
  /** null: not measured in this run. */
  met: boolean | null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * One row per instance count and concurrency over the runs: each figure the median of the runs
 * (each figure on its own), failures and duplicates summed, the worst peak RSS.
 */
export function medianRows(rows: IssuingRow[]): IssuingRow[] {
  const groups = new Map<string, IssuingRow[]>();
  for (const r of rows) {
    const k = `${r.instances}:${r.concurrency}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.values()].map((g) => {
    const m = (f: (r: IssuingRow) => number) => median(g.map(f));
    const first = g[0]!;
    return {
      run: first.run,
      instances: first.instances,
      concurrency: first.concurrency,
      docsPerSecond: m((r) => r.docsPerSecond),
      p50: m((r) => r.p50),
      p99: m((r) => r.p99),
      peakRssMb: Math.max(...g.map((r) => r.peakRssMb)),
      cpu: { node: m((r) => r.cpu.node), pg: m((r) => r.cpu.pg) },
      threads: {
        main: { user: m((r) => r.threads.main.user), system: m((r) => r.threads.main.system) },
        others: { user: m((r) => r.threads.others.user), system: m((r) => r.threads.others.system) },
      },
      clientMs: m((r) => r.clientMs),
      pgBackendsMs: m((r) => r.pgBackendsMs),
      poolerMs: first.poolerMs === null ? null : m((r) => r.poolerMs ?? 0),
      failures: g.reduce((n, r) => n + r.failures, 0),
      duplicates: g.reduce((n, r) => n + r.duplicates, 0),
      // Stage splits are not merged: the stage table shows each run's own.
      stages: null,
    };
  });
}

/** The targets of the issuing rows (README "Performance and scale-out"); `suffix` names a variant's. */
export function issuingTargets(rows: IssuingRow[], bound: { perSecond: number }, suffix = ''): Target[] {
  const one = rows.find((r) => r.instances === 1 && r.concurrency === 16);
  const two = rows.find((r) => r.instances === 2 && r.concurrency === 16);
  const worstRss = rows.length ? Math.max(...rows.map((r) => r.peakRssMb)) : Number.NaN;
  const dup = rows.reduce((n, r) => n + r.duplicates, 0);
  const cpu = one ? one.cpu.node + one.cpu.pg : Number.NaN;
  return [
    {
      name: `${'issue rate, 1 instance, concurrency 16'}${suffix}`,
      target: `≥ 0.25 × signing bound (${(bound.perSecond * 0.25).toFixed(0)} docs/s)`,
      measured: one
        ? `${one.docsPerSecond.toFixed(0)} docs/s = ${(one.docsPerSecond / bound.perSecond).toFixed(3)} × bound`
        : '—',
      met: one ? one.docsPerSecond >= bound.perSecond * 0.25 : null,
    },
    {
      name: `${'p99 latency, 1 instance, concurrency 16'}${suffix}`,
      target: '≤ 50 ms',
      measured: one ? `${one.p99.toFixed(1)} ms` : '—',
      met: one ? one.p99 <= 50 : null,
    },
    {
      name: `${'CPU per document (Timbre + PostgreSQL)'}${suffix}`,
      target: '≤ 2.5 ms',
      measured: one ? `${cpu.toFixed(2)} ms (${one.cpu.node.toFixed(2)} + ${one.cpu.pg.toFixed(2)})` : '—',
      met: one && Number.isFinite(cpu) ? cpu <= 2.5 : null,
    },
    {
      name: `${'peak RSS per instance'}${suffix}`,
      target: '≤ 300 MB',
      measured: rows.length ? `${worstRss.toFixed(0)} MB` : '—',
      met: rows.length ? worstRss <= 300 : null,
    },
    {
      name: `${'two instances vs one (concurrency 16)'}${suffix}`,
      target: '≥ 0.9 ×, 0 duplicate folios',
      measured: one && two ? `${(two.docsPerSecond / one.docsPerSecond).toFixed(2)} ×, ${dup} duplicate folios` : '—',
      met: one && two ? two.docsPerSecond >= 0.9 * one.docsPerSecond && dup === 0 : null,
    },
  ];
}

/** The one-screen summary printed at the end of a run (and kept at the top of BENCHMARKS.md). */
export function summaryTable(targets: Target[]): string {
  const lines = targets.map(
    (t) =>
      `| ${t.name} | ${t.target} | ${t.measured} | ${t.met === null ? 'not measured in this run' : t.met ? 'met' : '**not met**'} |`,
  );
  return `| target | wanted | measured | |\n|---|---|---|---|\n${lines.join('\n')}\n`;
}

export interface IssuingSectionInput {
  day: string;
  load: string;
  docs: number;
  /** BENCH_RUNS: how many times each row was measured. */
  runs: number;
  /** What the rows ran on (bench/database.ts). */
  database: string;
  /** Through PgBouncer: the section "Issuing through PgBouncer". */
  pooled: boolean;
  /** The median of the runs, one per instance count and concurrency (`medianRows`). */
  rows: IssuingRow[];
  /** Every run's rows. */
  eachRun: IssuingRow[];
  failureNotes: string[];
  /** What drove the load (bench/wrk.ts). */
  loadGenerator: { name: string; description: string };
  bound: { perSecond: number; msPerPair: number };
  signing: { perSecond: number; msPerDoc: number };
  computeMs: number;
  steps: StageSteps | null;
  listDocuments: number | null;
}

/** Where one document's CPU goes, from the 1-instance, concurrency-16 row and the stage costs. */
function breakdown(
  row: IssuingRow | undefined,
  computeMs: number,
  steps: StageSteps | null,
  bound: { msPerPair: number },
  generator: string,
): string {
  if (!row) return '';
  const stage = (steps ?? []).filter((s) => !s.step.startsWith('whole stage'));
  const stageMs = stage.reduce((n, p) => n + p.cpuMs, 0);
  const { main, others } = row.threads;
  const othersMs = others.user + others.system;
  const total = row.cpu.node + row.cpu.pg;
  const pct = (ms: number) => `${((ms / total) * 100).toFixed(0)} %`;
  const line = (part: string, ms: number) => `| ${part} | ${ms.toFixed(2)} | ${pct(ms)} |`;
  return `Where one document's CPU goes (1 instance, concurrency 16). Timbre's share is read per thread from /proc/<pid>/task: the main thread (the event loop) and the other threads (the signing worker, V8's garbage-collector and compiler helpers, libuv). The signing stage's steps are timed alone in the same run (bench/signing.ts, CPU time of one core) and shown as a part of the other threads; totals and model as a part of the main thread.

| part | ms per document | share |
|---|---|---|
${line('main thread, user: HTTP, JSON, zod, auth, totals, pg driver, hand-off to the worker, its GC', main.user)}
${line(`↳ of which totals and model (timed alone)`, computeMs)}
${line('main thread, kernel: sockets (HTTP, PostgreSQL), the worker messages', main.system)}
${line('other threads: the signing worker, GC and compiler helpers', othersMs)}
${stage.map((p) => line(`↳ of which ${p.step} (timed alone)`, p.cpuMs)).join('\n')}
${line('↳ the rest: messages in and out of the worker, GC helper threads', othersMs - stageMs)}
${line('PostgreSQL backends: the reservation and the one-statement write (indexes, triggers, WAL, commit)', row.pgBackendsMs)}
${line('PostgreSQL background: WAL writer, checkpointer, background writer, I/O workers, autovacuum', row.cpu.pg - row.pgBackendsMs)}
| **total** | **${total.toFixed(2)}** | |

The two RSA signatures alone (the bound) are ${bound.msPerPair.toFixed(3)} ms of it. The load generator (${generator === 'wrk' ? 'wrk' : 'node:http, keep-alive'}) spent ${row.clientMs.toFixed(2)} ms of CPU per document on the same 2 cores.
`;
}

/** `median (min–max)` of one figure over the runs of a row (just the median with one run). */
function spread(all: IssuingRow[], row: IssuingRow, f: (r: IssuingRow) => number, digits: number): string {
  const xs = all.filter((r) => r.instances === row.instances && r.concurrency === row.concurrency).map(f);
  const m = f(row).toFixed(digits);
  return xs.length > 1 ? `${m} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})` : m;
}

function rowsTable(x: IssuingSectionInput): string {
  const pooler = x.pooled ? ' CPU ms/doc PgBouncer |' : '';
  const lines = x.rows.map((r) => {
    const cell = (f: (r: IssuingRow) => number, digits: number) => spread(x.eachRun, r, f, digits);
    return `| ${r.instances} | ${r.concurrency} | ${cell((q) => q.docsPerSecond, 0)} | ${(r.docsPerSecond / x.bound.perSecond).toFixed(3)} | ${cell((q) => q.p50, 1)} | ${cell((q) => q.p99, 1)} | ${r.peakRssMb.toFixed(0)} | ${cell((q) => q.cpu.node, 2)} | ${cell((q) => q.cpu.pg, 2)} |${x.pooled ? ` ${cell((q) => q.poolerMs ?? 0, 2)} |` : ''} ${r.failures} | ${r.duplicates} |`;
  });
  return `| instances | concurrency | docs/s | × bound | p50 ms | p99 ms | peak RSS MB (per instance) | CPU ms/doc Timbre | CPU ms/doc PostgreSQL |${pooler} failures | duplicate folios |
|---|---|---|---|---|---|---|---|---|${x.pooled ? '---|' : ''}---|---|
${lines.join('\n')}`;
}

function eachRunTable(x: IssuingSectionInput): string {
  if (x.runs < 2) return '';
  const lines = x.eachRun.map(
    (r) =>
      `| ${r.run} | ${r.instances} | ${r.concurrency} | ${r.docsPerSecond.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.cpu.node.toFixed(2)} | ${r.cpu.pg.toFixed(2)} |`,
  );
  return `
Each run (new server processes, warm-up, then the timed rows), in the order measured:

| run | instances | concurrency | docs/s | p50 ms | p99 ms | CPU ms/doc Timbre | CPU ms/doc PostgreSQL |
|---|---|---|---|---|---|---|---|
${lines.join('\n')}
`;
}

/**
 * Each run's answers split by stage, from the Server-Timing of every answer: the median answer,
 * and the slowest 1 % (what p99 is made of).
 */
function stagesTable(x: IssuingSectionInput): string {
  const rows = x.eachRun.filter((r) => r.stages);
  if (rows.length === 0) return '';
  const ms = (v: number) => v.toFixed(1);
  const lines = rows.map((r) => {
    const { p50, slowest } = r.stages!;
    return `| ${r.run} | ${r.instances} | ${r.concurrency} | ${ms(p50.folio)} | ${ms(p50.sign)} | ${ms(p50.store)} | ${ms(p50.rest)} | ${ms(slowest.latency)} | ${ms(slowest.folio)} | ${ms(slowest.sign)} | ${ms(slowest.store)} | ${ms(slowest.rest)} |`;
  });
  return `
Where each answer's time went, from its \`Server-Timing\` (src/http/server-timing.ts: wall time per stage, waits included): \`folio\` reserving the folio (waiting for the reservation statement before it), \`sign\` TED, XML, XMLDSig and the last check (waiting for the signing worker), \`store\` packing and the write (waiting for the commit it shares); "rest" is what the stages do not cover (HTTP, authentication, validation, totals, the event loop's queue, the network). The median of each stage over all answers, and the slowest 1 % of the answers (the p99 tail): their mean latency and its mean split.

| run | instances | concurrency | median folio ms | median sign ms | median store ms | median rest ms | slowest 1 %: latency ms | folio | sign | store | rest |
|---|---|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}
`;
}

export function issuingSection(x: IssuingSectionInput, history: string): string {
  const one = x.rows.find((r) => r.instances === 1 && r.concurrency === 16);
  const runs =
    x.runs > 1
      ? ` Each row was measured ${x.runs} times (each run with new server processes and its own warm-up): every figure is the median of the runs, with their spread (min–max) in parentheses.`
      : '';
  return `## ${x.pooled ? 'Issuing through PgBouncer' : 'Issuing over HTTP'} (sandbox, 10-line type-33 facturas, ${x.docs} documents per row)

Measured on ${x.day}; load average (1 / 5 / 15 min) ${x.load}. Database: ${x.database}. Every request authenticates its key, validates, computes totals, reserves a folio (one statement), builds the XML, stamps the TED, signs, re-reads and verifies the final bytes, and stores the document with its event in one statement. The load generator is ${x.loadGenerator.description}, on the same 2 cores (its CPU is below). CPU per document is read from /proc for the Timbre process(es) and for every PostgreSQL process, over the timed run.${x.listDocuments ? ` The documents table already holds the ${x.listDocuments.toLocaleString('en')} rows of the list part.` : ''}${runs}

The signing bound, measured in the same run in CPU time of one core: **${x.bound.perSecond.toFixed(0)} pairs/s** of the two RSA signatures a document needs (2048-bit RSA-SHA1 XMLDSig + 512-bit RSA-SHA1 TED, node:crypto alone; ${x.bound.msPerPair.toFixed(3)} ms a pair). With C14N and the XML around them, signing one document in-process: ${x.signing.perSecond.toFixed(0)} docs/s (wall clock).

${rowsTable(x)}
${eachRunTable(x)}${stagesTable(x)}${x.failureNotes.length ? `\nFailed requests (the first of each row) — their rows measure errors, not issuing:\n\n${x.failureNotes.map((n) => `- ${n}`).join('\n')}\n` : ''}
${summaryTable(issuingTargets(x.rows, x.bound, x.pooled ? ' (through PgBouncer)' : ''))}
${breakdown(one, x.computeMs, x.steps, x.bound, x.loadGenerator.name)}
${history}

The instances run the way \`npm start\` and the Dockerfile run them: compiled by \`tsc\` and run by plain node with a 192 MB old-generation heap (\`--max-old-space-size=192\`).
`;
}
