/**
 * The database a bench run issues into, and what to call it in BENCHMARKS.md. Without
 * DATABASE_URL: a fresh database on the embedded PostgreSQL (bench/run.ts). With it — e.g. the
 * environment `scripts/external-postgres.sh start DIR` writes (`set -a; . DIR/env; set +a`),
 * DATABASE_URL through PgBouncer in transaction mode and DATABASE_DIRECT_URL to PostgreSQL
 * itself — a fresh database is created on that server for the run (the issuer and keys the run
 * creates would clash with an earlier run's) and dropped after it; both URLs are pointed at it
 * (PgBouncer's `* =` entry serves any database name).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

export interface ExternalDatabase {
  /** DATABASE_URL for the run's database (through the pooler when there is one). */
  url: string;
  /** DATABASE_DIRECT_URL for it, when one was given. */
  directUrl: string | undefined;
  /** What BENCHMARKS.md says the rows ran on. */
  label: string;
  /** The PostgreSQL server's postmaster, when it runs on this machine (for its CPU from /proc). */
  postmasterPid: number | null;
  /** The pooler's process on this machine (PgBouncer), for its CPU; null without one. */
  poolerPid: number | null;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** The parent of a backend is its postmaster: read from /proc, when the server is local. */
function postmasterOf(backendPid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${backendPid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The local PgBouncer process listening on `port` (its configuration file names the port). */
function pgbouncerOn(port: number): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'pgbouncer') continue;
      const ini = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
        .split('\0')
        .find((a) => a.endsWith('.ini'));
      if (ini && new RegExp(`^listen_port\\s*=\\s*${port}\\s*$`, 'm').test(readFileSync(ini, 'utf8'))) {
        return Number(entry);
      }
    } catch {}
  }
  return null;
}

function pgbouncerVersion(): string {
  try {
    return execFileSync('pgbouncer', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  } catch {
    return 'a pooler';
  }
}

export async function externalBenchDatabase(
  url: string,
  directUrl: string | undefined,
  database: string,
): Promise<ExternalDatabase> {
  const adminUrl = directUrl ?? url;
  const admin = new pg.Client({
    connectionString: withDatabase(adminUrl, new URL(url).pathname.slice(1) || 'postgres'),
  });
  await admin.connect();
  let version: string;
  let postmasterPid: number | null;
  try {
    await admin.query(`CREATE DATABASE "${database}"`);
    version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v.split(
      ' ',
    )[0]!;
    postmasterPid = postmasterOf((await admin.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p);
  } finally {
    await admin.end();
  }
  const pooled = directUrl !== undefined && new URL(directUrl).port !== new URL(url).port;
  const poolerPid = pooled ? pgbouncerOn(Number(new URL(url).port)) : null;
  const pooler = poolerPid ? pgbouncerVersion() : 'a pooler';
  return {
    url: withDatabase(url, database),
    // DATABASE_DIRECT_URL without a database name follows DATABASE_URL's (src/db/database.ts).
    directUrl: directUrl && withDatabase(directUrl, database),
    label: pooled
      ? `PostgreSQL ${version} through ${pooler} in transaction pooling mode (DATABASE_URL; LISTEN and the migrations' lock on DATABASE_DIRECT_URL; statements unnamed, DB_NAMED_STATEMENTS off)`
      : `PostgreSQL ${version} at DATABASE_URL (direct connections)`,
    postmasterPid,
    poolerPid,
    async drop() {
      const c = new pg.Client({ connectionString: withDatabase(adminUrl, 'postgres') });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
