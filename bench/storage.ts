/**
 * What an issued document costs to keep (README "What a document costs to keep"): N 10-line
 * facturas issued over HTTP through the real write path (one compiled server process, a fresh
 * database of the embedded PostgreSQL), the list's counter deltas folded as the jobs' sweep
 * would, VACUUM ANALYZE, then every table's growth — heap, TOAST and indexes apart — divided by
 * N. `npm run bench:storage` prints it; `npm run bench` writes it to BENCHMARKS.md (section
 * "Storage per document"). Options (env): BENCH_STORAGE_DOCS (default 10000), BENCH_CONCURRENCY
 * (default 4: the point is the bytes, not the rate).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { dateOfInstantInSantiago } from '../src/dte/chile-time.ts';
import { ensureEmbeddedPostgres } from '../src/db/embedded.ts';
import { BENCH_ISSUER } from './fixtures.ts';
import { cli, dropBenchDatabase, ensureFolios, load, startServer } from './harness.ts';

interface TableSize {
  table: string;
  heap: number;
  toast: number;
  indexes: number;
}

export interface StorageReport {
  docs: number;
  /** Bytes per document, per table (growth over the run divided by the documents). */
  tables: Array<TableSize & { total: number }>;
  totalPerDoc: number;
  /** The largest columns of `documents`: average stored size (pg_column_size, compressed if it is). */
  columns: Array<{ column: string; bytes: number }>;
  /** Average length of the XML download (the signed bytes), for scale. */
  xmlBytes: number;
  docsPerSecond: number;
  concurrency: number;
  load: { before: number[]; after: number[] };
}

async function sizes(db: pg.Client): Promise<Map<string, TableSize>> {
  const { rows } = await db.query<{ table: string; heap: string; toast: string; indexes: string }>(`
    SELECT c.relname AS table,
           pg_relation_size(c.oid) + pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm') AS heap,
           COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) AS toast,
           pg_indexes_size(c.oid) AS indexes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r'`);
  return new Map(
    rows.map((r) => [
      r.table,
      { table: r.table, heap: Number(r.heap), toast: Number(r.toast), indexes: Number(r.indexes) },
    ]),
  );
}

/** Issues `docs` facturas on the database of `env` and measures what they added. */
export async function storageBenchmark(
  env: Record<string, string>,
  docs: number,
  concurrency = 4,
): Promise<StorageReport> {
  const i = BENCH_ISSUER;
  const issuer = await cli(
    env,
    ...['issuer', 'create', '--rut', i.rut, '--name', i.name, '--giro', i.giro, '--acteco', i.acteco[0]!],
    ...['--address', i.address, '--comuna', i.comuna],
  );
  const key = (await cli(env, 'key', 'create', '--rut', issuer.rut, '--role', 'owner')).key as string;
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  const server = await startServer(env);
  try {
    await ensureFolios(server.port, key, issuer.rut, 33, docs + 200);
    // One document first: what any issuer has once (its certificate, the parts kept per issuer).
    await load([server.port], key, issuer.rut, 1, 1);
    const settle = async () => {
      await db.query('SELECT fold_document_counts()');
      await db.query('VACUUM ANALYZE');
    };
    await settle();
    const before = await sizes(db);
    const loadBefore = loadavg();
    const result = await load([server.port], key, issuer.rut, docs, concurrency);
    if (result.failures > 0) throw new Error(`${result.failures} issues failed: ${result.firstFailure}`);
    const loadAfter = loadavg();
    await settle();
    const after = await sizes(db);
    const tables = [...after.values()]
      .map((a) => {
        const b = before.get(a.table) ?? { heap: 0, toast: 0, indexes: 0 };
        const heap = (a.heap - b.heap) / docs;
        const toast = (a.toast - b.toast) / docs;
        const indexes = (a.indexes - b.indexes) / docs;
        return { table: a.table, heap, toast, indexes, total: heap + toast + indexes };
      })
      .filter((t) => t.total !== 0)
      .sort((x, y) => y.total - x.total);
    const columns = await columnSizes(db, 'documents');
    const xml = await downloadedXmlLength(server.port, key, issuer.rut);
    return {
      docs,
      tables,
      columns,
      totalPerDoc: tables.reduce((s, t) => s + t.total, 0),
      xmlBytes: xml,
      docsPerSecond: result.docsPerSecond,
      concurrency,
      load: { before: loadBefore, after: loadAfter },
    };
  } finally {
    await server.stop();
    await db.end();
  }
}

/** Average stored size of each column of `table` over 1000 rows, largest first. */
async function columnSizes(db: pg.Client, table: string): Promise<Array<{ column: string; bytes: number }>> {
  const { rows: cols } = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
    [table],
  );
  const select = cols.map((c, i) => `avg(pg_column_size(t."${c.column_name}")) AS c${i}`).join(', ');
  const { rows } = await db.query(`SELECT ${select} FROM (SELECT * FROM "${table}" LIMIT 1000) t`);
  return cols
    .map((c, i) => ({ column: c.column_name, bytes: Number(rows[0][`c${i}`] ?? 0) }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** The length of one document's XML download (the last one issued). */
async function downloadedXmlLength(port: number, key: string, rut: string): Promise<number> {
  const headers = { authorization: `Bearer ${key}` };
  const list = (await (await fetch(`http://127.0.0.1:${port}/api/${rut}/emisiones`, { headers })).json()) as {
    data: Array<{ xml_url: string }>;
  };
  const url = new URL(list.data[0]!.xml_url);
  const res = await fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { headers });
  if (!res.ok) throw new Error(`XML download: ${res.status}`);
  return (await res.arrayBuffer()).byteLength;
}

export function storageSection(r: StorageReport, day: string): string {
  const b = (x: number) => x.toLocaleString('en', { maximumFractionDigits: 0 });
  const fmt = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const rows = r.tables.map((t) => `| ${t.table} | ${b(t.heap)} | ${b(t.toast)} | ${b(t.indexes)} | ${b(t.total)} |`);
  return `## Storage per document

Measured on ${day} with \`npm run bench:storage\` (bench/storage.ts): ${r.docs.toLocaleString('en')} 10-line facturas issued over HTTP through the real write path (${r.docsPerSecond.toFixed(0)} docs/s at concurrency ${r.concurrency}, load average ${fmt(r.load.before)} before, ${fmt(r.load.after)} after; the machine was shared), the list's counter deltas folded, \`VACUUM ANALYZE\`, then each table's growth (heap with its free-space and visibility maps, TOAST with its index, the table's indexes) divided by the documents. Target: ≤ 2,500 bytes per document, every table and index included. The XML download of one of them is ${b(r.xmlBytes)} bytes.

| table | heap B/doc | TOAST B/doc | indexes B/doc | total B/doc |
|---|---|---|---|---|
${rows.join('\n')}
| **all tables** | | | | **${b(r.totalPerDoc)}** |

Where a \`documents\` row's bytes go (average stored size per column, after PostgreSQL's own compression; columns under 10 bytes left out): ${r.columns
    .filter((c) => c.bytes >= 10)
    .map((c) => `${c.column} ${b(c.bytes)}`)
    .join(', ')}.
`;
}

/** The measure on a database of its own on the embedded server (dropped afterwards); the server must be built. */
export async function storageOnFreshDatabase(docs: number, concurrency = 4): Promise<StorageReport> {
  const dataDir = resolve('.data-bench');
  const database = `storage_${Date.now()}`;
  const pgHandle = await ensureEmbeddedPostgres(dataDir, { database });
  try {
    return await storageBenchmark(
      { DATABASE_URL: pgHandle.url, TIMBRE_DATA_DIR: dataDir, DB_POOL_MAX: '8', JOBS_ENABLED: 'false' },
      docs,
      concurrency,
    );
  } finally {
    await dropBenchDatabase(pgHandle.adminUrl, database);
    await pgHandle.release();
  }
}

async function main() {
  execFileSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const report = await storageOnFreshDatabase(
    Number(process.env.BENCH_STORAGE_DOCS ?? 10_000),
    Number(process.env.BENCH_CONCURRENCY ?? 4),
  );
  console.log(storageSection(report, dateOfInstantInSantiago(new Date())));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
