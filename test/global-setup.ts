/**
 * One PostgreSQL for the whole run: the embedded server (data under .data-test/) or the
 * server of DATABASE_URL. A template database is migrated once; each test file clones it
 * (CREATE DATABASE … TEMPLATE, ~0.1 s) so files never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
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
  // Database names carry a random id of this run, so runs sharing one server (several
  // terminals, CI containers on one DATABASE_URL) never collide, and at the end this run drops
  // exactly the databases it created — never anybody else's.
  const runId = randomBytes(6).toString('hex');
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
  const leftovers = await admin.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'timbre\\_tpl\\_%' OR datname LIKE 'timbre\\_t\\_%'",
  );
  if (leftovers.rows[0]!.n > 0) {
    // Another run in progress, or one that was killed: not ours to judge, so only reported.
    console.log(
      `[global-setup] ${leftovers.rows[0]!.n} test database(s) of other or interrupted runs exist on this server (timbre_tpl_* / timbre_t_*); they are left alone.`,
    );
  }
  await admin.query(`CREATE DATABASE "${templateDb}"`);
  // The template is prepared through the direct server when a pooler is in between: the
  // migrations hold a session lock, and a pooled server connection left idle on the template
  // would make every clone fail ("source database … is being accessed by other users").
  const templateUrl = withDatabase(process.env.DATABASE_DIRECT_URL ?? adminUrl, templateDb);
  await applyMigrations(templateUrl);
  await admin.end();
  project.provide('adminUrl', adminUrl);
  project.provide('templateDb', templateDb);
  project.provide('runId', runId);

  return async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    // Only this run's: its template and the clones named after its id (test/helpers/db.ts).
    const dbs = await c.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $2)',
      [templateDb, `timbre_t_${runId}_`],
    );
    for (const { datname } of dbs.rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await c.end();
    await release?.();
  };
}
