/**
 * `npx tsx bench/issuing-wrk.ts`: the issuing hot path loaded from outside by wrk (a C load
 * generator, ~0.05 ms of CPU per request instead of the bench's node:http client), for profiles
 * and CPU per document that the load generator disturbs least. One compiled server process on a
 * fresh database of the embedded PostgreSQL, 10-line facturas (the bench's body, with the Bearer
 * key) over BENCH_CONCURRENCY connections for BENCH_SECONDS, and where the CPU went, from /proc.
 * wrk must be installed (`apt-get install wrk`). Prints; writes nothing. Options (env):
 * BENCH_SECONDS per round (default 20), BENCH_ROUNDS (default 3), BENCH_CONCURRENCY (default 16),
 * BENCH_SERVER_ENV (extra server settings, `K=V,K=V`), BENCH_PG_OPTIONS (PostgreSQL settings of
 * the service's sessions, `-c name=value`), BENCH_SERVER_JS (another build to run, not
 * rebuilt: an A/B against a copy of an older `dist/`), BENCH_CPU_PROF (a directory: the server
 * writes V8 CPU profiles there when it stops). When the cluster preloads pg_stat_statements
 * (`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'` and a restart), each round
 * also prints the statements PostgreSQL ran per document, with their time. Its p50, p99 and max
 * are wrk's own histogram, which wrk corrects for coordinated omission (made-up samples for every
 * latency over twice the mean): higher than the requests' own, which `npm run bench` and
 * `npm run bench:issuing` time one by one (bench/wrk.ts); the CPU figures are not affected.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { ensureEmbeddedPostgres } from '../src/db/embedded.ts';
import { embeddedPostmasterPid, postgresCpuSplit, splitPerDoc, threadNames, threadSplit, threadTimes } from './cpu.ts';
import { BENCH_ISSUER } from './fixtures.ts';
import { cli, dropBenchDatabase, ensureFolios, load, startServer, tenLineFactura } from './harness.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SERVER_ENV = Object.fromEntries(
  (process.env.BENCH_SERVER_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

/** The wrk script: every request posts the factura; non-200 answers are counted apart by wrk. */
function luaScript(key: string, rut: string): string {
  const body = JSON.stringify(tenLineFactura()).replaceAll('\\', '\\\\').replaceAll('"', '\\"');
  return `wrk.method = "POST"
wrk.path = "/api/${rut}/emitir"
wrk.body = "${body}"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${key}"
done = function(summary, latency, requests)
  io.write(string.format("WRK %d %d %d %d %d %d\\n", summary.requests, summary.duration,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;
}

async function commits(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.n);
}

/** WAL flushes (fsyncs of every process) and WAL bytes so far, cluster-wide (PostgreSQL 16+). */
async function walCounters(db: pg.Client): Promise<{ syncs: number; bytes: number }> {
  const { rows } = await db.query<{ syncs: string; bytes: string }>(
    `SELECT (SELECT coalesce(sum(fsyncs), 0) FROM pg_stat_io WHERE object = 'wal') AS syncs,
            (SELECT wal_bytes FROM pg_stat_wal) AS bytes`,
  );
  return { syncs: Number(rows[0]!.syncs), bytes: Number(rows[0]!.bytes) };
}

async function documentsOf(db: pg.Client): Promise<number> {
  return Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM documents')).rows[0]!.n);
}

/** pg_stat_statements of this database, if the cluster preloads it (null otherwise). */
async function statementStats(db: pg.Client): Promise<Map<string, { calls: number; ms: number }> | null> {
  try {
    const { rows } = await db.query<{ query: string; calls: string; ms: number }>(
      `SELECT query, calls, total_exec_time + total_plan_time AS ms FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return new Map(rows.map((r) => [r.query.replace(/\s+/g, ' ').slice(0, 90), { calls: Number(r.calls), ms: r.ms }]));
  } catch {
    return null;
  }
}

function statementsPerDoc(
  before: Map<string, { calls: number; ms: number }>,
  after: Map<string, { calls: number; ms: number }>,
  docs: number,
): string {
  return [...after]
    .map(([q, a]) => ({
      q,
      calls: (a.calls - (before.get(q)?.calls ?? 0)) / docs,
      ms: (a.ms - (before.get(q)?.ms ?? 0)) / docs,
    }))
    .filter((x) => x.calls > 0.001)
    .sort((a, b) => b.ms - a.ms)
    .map((x) => `  ${x.calls.toFixed(3)} calls ${x.ms.toFixed(3)} ms/doc  ${x.q}`)
    .join('\n');
}

async function main() {
  if (!process.env.BENCH_SERVER_JS) {
    execFileSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      stdio: 'inherit',
    });
  }
  const dataDir = resolve('.data-bench');
  const database = `wrk_${Date.now()}`;
  const pgHandle = await ensureEmbeddedPostgres(dataDir, { database });
  const env = {
    // BENCH_PG_OPTIONS: server settings for the service's sessions (e.g. `-c synchronous_commit=off`
    // to see what the WAL flush of each commit adds to the latency; a diagnosis, not a setting).
    DATABASE_URL: process.env.BENCH_PG_OPTIONS
      ? `${pgHandle.url}?options=${encodeURIComponent(process.env.BENCH_PG_OPTIONS)}`
      : pgHandle.url,
    TIMBRE_DATA_DIR: dataDir,
    DB_POOL_MAX: '20',
    JOBS_ENABLED: 'false',
    ...SERVER_ENV,
  };
  const db = new pg.Client({ connectionString: pgHandle.url });
  await db.connect();
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => {});
  let scriptDir: string | undefined;
  try {
    const i = BENCH_ISSUER;
    const issuer = await cli(
      env,
      ...['issuer', 'create', '--rut', i.rut, '--name', i.name, '--giro', i.giro, '--acteco', i.acteco[0]!],
      ...['--address', i.address, '--comuna', i.comuna],
    );
    const key = (await cli(env, 'key', 'create', '--rut', issuer.rut, '--role', 'owner')).key as string;
    // The script holds the key: its directory goes when the run ends.
    scriptDir = mkdtempSync(join(tmpdir(), 'timbre-wrk-'));
    const script = join(scriptDir, 'issue.lua');
    writeFileSync(script, luaScript(key, issuer.rut));
    const server = await startServer(env);
    try {
      // Enough folios for the fastest round we can imagine (1500 docs/s).
      await ensureFolios(server.port, key, issuer.rut, 33, (ROUNDS + 1) * SECONDS * 1500 + 1000);
      await load([server.port], key, issuer.rut, 3000, CONCURRENCY); // warm-up (caches, JIT: bench/run.ts WARM_UP)
      const postmaster = embeddedPostmasterPid(dataDir)!;
      for (let r = 0; r < ROUNDS; r++) {
        const docs0 = await documentsOf(db);
        const stats0 = await statementStats(db);
        const xact0 = await commits(db);
        const wal0 = await walCounters(db);
        const t0 = threadSplit(server.proc.pid!);
        const tt0 = threadTimes(server.proc.pid!);
        const pg0 = postgresCpuSplit(postmaster);
        const out = execFileSync(
          'wrk',
          ['-t1', `-c${CONCURRENCY}`, `-d${SECONDS}s`, '--latency', '-s', script, `http://127.0.0.1:${server.port}`],
          { encoding: 'utf8' },
        );
        const pg1 = postgresCpuSplit(postmaster);
        const docs = (await documentsOf(db)) - docs0;
        const xacts = (await commits(db)) - xact0;
        const wal1 = await walCounters(db);
        const stats1 = await statementStats(db);
        const split = splitPerDoc(t0, threadSplit(server.proc.pid!), docs);
        const [requests, micros, errors, p50, p99, max] = /WRK (.*)/.exec(out)![1]!.split(' ').map(Number) as number[];
        const pgPerDoc = (pg1.backends + pg1.background - pg0.backends - pg0.background) / docs;
        const node = split.main.user + split.main.system + split.others.user + split.others.system;
        console.log(
          JSON.stringify({
            docs,
            requests,
            errors,
            docsPerSecond: +(docs / (micros! / 1e6)).toFixed(1),
            p50: +(p50! / 1000).toFixed(1),
            p99: +(p99! / 1000).toFixed(1),
            max: +(max! / 1000).toFixed(1),
            mainUser: +split.main.user.toFixed(3),
            mainSystem: +split.main.system.toFixed(3),
            others: +(split.others.user + split.others.system).toFixed(3),
            node: +node.toFixed(3),
            postgres: +pgPerDoc.toFixed(3),
            total: +(node + pgPerDoc).toFixed(3),
            commitsPerDoc: +(xacts / docs).toFixed(2),
            walFlushesPerDoc: +((wal1.syncs - wal0.syncs) / docs).toFixed(3),
            walBytesPerDoc: Math.round((wal1.bytes - wal0.bytes) / docs),
          }),
        );
        const byName = new Map<string, number>();
        const names = threadNames(server.proc.pid!);
        for (const [tid, ms] of threadTimes(server.proc.pid!)) {
          const name = tid === server.proc.pid ? 'main' : `${names.get(tid) ?? '?'}#${tid}`;
          byName.set(name, (byName.get(name) ?? 0) + (ms - (tt0.get(tid) ?? 0)) / docs);
        }
        console.log(`  threads ms/doc: ${[...byName].map(([n, ms]) => `${n} ${ms.toFixed(3)}`).join(', ')}`);
        if (stats0 && stats1) console.log(statementsPerDoc(stats0, stats1, docs));
      }
      console.log(
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' / ')}, peak RSS ${(server.peakRss / 2 ** 20).toFixed(0)} MB`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    if (scriptDir) rmSync(scriptDir, { recursive: true, force: true });
    await db.end();
    await dropBenchDatabase(pgHandle.adminUrl, database);
    await pgHandle.release();
  }
}

await main();
