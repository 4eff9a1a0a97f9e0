/**
 * `npm run bench:issuing`: the issuing hot path alone, for A/B work on it (README "Performance and scale-out"). One
 * compiled server process on a fresh database of the embedded PostgreSQL, 10-line facturas over
 * HTTP at concurrency 16, a few rounds, and where the CPU of each document went: the server's
 * main thread (user / kernel), its other threads (signing workers, GC), PostgreSQL and the load
 * generator. CPU per document is what to compare between two versions of the code: unlike a
 * rate, a busy machine changes it little. Prints; writes nothing (`npm run bench` writes
 * BENCHMARKS.md). Options (env): BENCH_DOCS per round (default 3000), BENCH_ROUNDS (default 3),
 * BENCH_CONCURRENCY (default 16), BENCH_SERVER_ENV (extra server settings, `K=V,K=V`), BENCH_LOAD
 * (the load generator, as in `npm run bench`: wrk when installed, or "node"; bench/wrk.ts).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { ensureEmbeddedPostgres } from '../src/db/embedded.ts';
import { embeddedPostmasterPid, postgresCpuSplit, splitPerDoc, threadNames, threadSplit, threadTimes } from './cpu.ts';
import { BENCH_ISSUER } from './fixtures.ts';
import { cli, dropBenchDatabase, ensureFolios, startServer } from './harness.ts';
import { loadGenerator } from './wrk.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SERVER_ENV = Object.fromEntries(
  (process.env.BENCH_SERVER_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

interface Round {
  docsPerSecond: number;
  p50: number;
  p99: number;
  mainUser: number;
  mainSystem: number;
  others: number;
  postgres: number;
  pgBackends: number;
  pgBackground: number;
  client: number;
  failures: number;
  duplicates: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main() {
  execFileSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const dataDir = resolve('.data-bench');
  const database = `quick_${Date.now()}`;
  const pgHandle = await ensureEmbeddedPostgres(dataDir, { database });
  const env = {
    DATABASE_URL: process.env.BENCH_PG_OPTIONS
      ? `${pgHandle.url}?options=${encodeURIComponent(process.env.BENCH_PG_OPTIONS)}`
      : pgHandle.url,
    TIMBRE_DATA_DIR: dataDir,
    DB_POOL_MAX: '20',
    JOBS_ENABLED: 'false',
    ...SERVER_ENV,
  };
  try {
    const i = BENCH_ISSUER;
    const issuer = await cli(
      env,
      ...['issuer', 'create', '--rut', i.rut, '--name', i.name, '--giro', i.giro, '--acteco', i.acteco[0]!],
      ...['--address', i.address, '--comuna', i.comuna],
    );
    const key = (await cli(env, 'key', 'create', '--rut', issuer.rut, '--role', 'owner')).key as string;
    const generator = loadGenerator();
    console.log(`load generator: ${generator.name}`);
    const server = await startServer(env);
    try {
      await ensureFolios(server.port, key, issuer.rut, 33, (ROUNDS + 1) * DOCS + 1000);
      await generator.run([server.port], key, issuer.rut, 3000, CONCURRENCY); // warm-up (caches, JIT: bench/run.ts WARM_UP)
      const postmaster = embeddedPostmasterPid(dataDir)!;
      const rounds: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const t0 = threadSplit(server.proc.pid!);
        const tids0 = threadTimes(server.proc.pid!);
        const pg0 = postgresCpuSplit(postmaster);
        const result = await generator.run([server.port], key, issuer.rut, DOCS, CONCURRENCY);
        const split = splitPerDoc(t0, threadSplit(server.proc.pid!), DOCS);
        if (process.env.BENCH_THREADS) {
          // Every thread that worked, busiest first: the main thread, the signing worker (the
          // busiest other), then V8's GC and compiler helpers and libuv's pool.
          const busy = [...threadTimes(server.proc.pid!)]
            .map(([tid, ms]) => ({ tid, perDoc: (ms - (tids0.get(tid) ?? 0)) / DOCS }))
            .filter((t) => t.perDoc > 0)
            .sort((a, b) => b.perDoc - a.perDoc);
          const names = threadNames(server.proc.pid!);
          const name = (tid: number) => (tid === server.proc.pid ? 'main' : `${names.get(tid) ?? '?'} ${tid}`);
          console.log(
            `threads (CPU ms per document): ${busy.map((t) => `${name(t.tid)} ${t.perDoc.toFixed(3)}`).join(', ')}`,
          );
        }
        const pg1 = postgresCpuSplit(postmaster);
        const pgPerDoc = {
          backends: (pg1.backends - pg0.backends) / DOCS,
          background: (pg1.background - pg0.background) / DOCS,
        };
        const row: Round = {
          docsPerSecond: result.docsPerSecond,
          p50: result.p50,
          p99: result.p99,
          mainUser: split.main.user,
          mainSystem: split.main.system,
          others: split.others.user + split.others.system,
          postgres: pgPerDoc.backends + pgPerDoc.background,
          pgBackends: pgPerDoc.backends,
          pgBackground: pgPerDoc.background,
          client: result.clientMsPerDoc,
          failures: result.failures,
          duplicates: result.duplicates,
        };
        if (result.firstFailure) console.log(`first failure: ${result.firstFailure}`);
        console.log(JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, +v.toFixed(3)]))));
        rounds.push(row);
      }
      const m = (k: keyof Round) => median(rounds.map((r) => r[k])).toFixed(2);
      const total = median(rounds.map((r) => r.mainUser + r.mainSystem + r.others + r.postgres)).toFixed(2);
      console.log(`
${ROUNDS} rounds of ${DOCS} documents at concurrency ${CONCURRENCY}, medians; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')}
  docs/s ${m('docsPerSecond')}   p50 ${m('p50')} ms   p99 ${m('p99')} ms   peak RSS ${(server.peakRss / 2 ** 20).toFixed(0)} MB
  CPU ms per document: main thread ${m('mainUser')} user + ${m('mainSystem')} kernel, other threads ${m('others')}, PostgreSQL ${m('postgres')} (backends ${m('pgBackends')}, background ${m('pgBackground')})  (Timbre + PostgreSQL ${total});  load generator ${m('client')}`);
    } finally {
      await server.stop();
    }
  } finally {
    await dropBenchDatabase(pgHandle.adminUrl, database);
    await pgHandle.release();
  }
}

await main();
