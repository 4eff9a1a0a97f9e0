/**
 * One PostgreSQL for the whole run: the embedded server (data under .data-test/) or the
 * server of DATABASE_URL. A template database is migrated once; each test file clones it
 * (CREATE DATABASE … TEMPLATE, ~0.1 s) so files never see each other's rows.
 */
import { resolve } from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { TestProject } from 'vitest/node';
import { ensureEmbeddedPostgres } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string;
    templateDb: string;
    runId: string;
  }
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  // Database names carry the run's pid, so concurrent runs (several terminals, helpers) on one
  // server leave each other alone and only leftovers of dead runs are dropped.
  const runId = String(process.pid);
  const templateDb = `timbre_tpl_${runId}`;
  let adminUrl: string;
  let release: (() => Promise<void>) | undefined;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    const embedded = await ensureEmbeddedPostgres(resolve('.data-test'), { database: 'postgres' });
    adminUrl = embedded.adminUrl;
    release = embedded.release;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // Leftovers of interrupted earlier runs (their process is gone).
  const stale = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'timbre_tpl_%' OR datname LIKE 'timbre_t_%'",
  );
  for (const { datname } of stale.rows) {
    const pid = Number(/^timbre_(?:tpl|t)_(\d+)/.exec(datname)?.[1]);
    if (pid && isAlive(pid)) continue;
    await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
  await admin.query(`CREATE DATABASE "${templateDb}"`);
  await applyMigrations(withDatabase(adminUrl, templateDb));
  // pg-boss installs its own schema on first start; doing it once in the template saves every
  // test file that starts an app from doing it again.
  const boss = new PgBoss({
    connectionString: withDatabase(adminUrl, templateDb),
    schema: 'pgboss',
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await boss.stop({ graceful: false, wait: true });
  await admin.end();
  project.provide('adminUrl', adminUrl);
  project.provide('templateDb', templateDb);
  project.provide('runId', runId);

  return async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    const dbs = await c.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2',
      [templateDb, `timbre_t_${runId}_%`],
    );
    for (const { datname } of dbs.rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await c.end();
    await release?.();
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
