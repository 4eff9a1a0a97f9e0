/**
 * Opening the database: DATABASE_URL when configured, otherwise the embedded PostgreSQL;
 * migrations applied; one pg pool shared by Prisma. Prisma error codes are translated here
 * and nowhere else (docs/style.md §5).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Config } from '../config.ts';
import { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { EmbeddedPostgres } from './embedded.ts';
import { applyMigrations } from './migrate.ts';
import { createSecretBox, resolveMasterKey, type SecretBox } from './secrets.ts';

export { Prisma };

export interface Database {
  prisma: PrismaClient;
  pool: pg.Pool;
  url: string;
  /** The same database without a pooler in between: for LISTEN and session locks. */
  directUrl: string;
  /**
   * A hot statement for `pool.query`: named (parsed once per server connection) unless
   * DB_NAMED_STATEMENTS is off, as it must be behind a transaction pooler that cannot carry
   * them (PgBouncer before 1.21, or without max_prepared_statements). `call`, when given, is the
   * same statement as a call of a PL/pgSQL function (which keeps its plan per server session),
   * sent instead of the unnamed text.
   */
  statement(name: string, text: string, values: unknown[]): pg.QueryConfig;
  statement(name: string, text: string, call: string, values: unknown[]): pg.QueryConfig;
  secrets: SecretBox;
  embedded: EmbeddedPostgres | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Overrides the configured/embedded URL (tests use per-file databases). */
  url?: string;
  log?: (msg: string) => void;
  poolMax?: number;
  migrate?: boolean;
}

export async function openDatabase(config: Config, opts: OpenOptions = {}): Promise<Database> {
  const log = opts.log ?? (() => {});
  let embedded: EmbeddedPostgres | null = null;
  let url = opts.url ?? config.DATABASE_URL;
  if (!url) {
    // Loaded only when needed: the PostgreSQL binaries are an optional dependency that
    // production images, which always set DATABASE_URL, do not install (embedded.ts imports
    // them only when it starts a server).
    const { ensureEmbeddedPostgres } = await import('./embedded.ts');
    embedded = await ensureEmbeddedPostgres(config.dataDir, { log });
    url = embedded.url;
  }
  const directUrl = config.DATABASE_DIRECT_URL ? directUrlFor(config.DATABASE_DIRECT_URL, url) : url;
  if (opts.migrate !== false) {
    // Through a direct connection: the migrations hold a session-level advisory lock, which a
    // transaction-pooling PgBouncer would take on one server connection and release on another.
    const { applied } = await applyMigrations(directUrl);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
  }
  const pool = new pg.Pool({ connectionString: url, max: opts.poolMax ?? config.DB_POOL_MAX });
  pool.on('error', () => {}); // idle-client errors (server restarts) surface on the next query instead
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const { key } = resolveMasterKey(config.TIMBRE_MASTER_KEY, config.dataDir);
  const secrets = createSecretBox(key);
  try {
    await checkMasterKey(prisma, secrets);
  } catch (e) {
    await prisma.$disconnect();
    await pool.end();
    throw e;
  }
  return {
    prisma,
    pool,
    url,
    directUrl,
    statement: (name: string, text: string, ...rest: [unknown[]] | [string, unknown[]]) => {
      const [call, values] = rest.length === 2 ? rest : [text, rest[0]];
      return config.DB_NAMED_STATEMENTS ? { name, text, values } : { text: call, values };
    },
    secrets,
    embedded,
    async close() {
      await prisma.$disconnect();
      await pool.end();
      if (embedded) await embedded.release();
    },
  };
}

/** DATABASE_DIRECT_URL, with the database of `url` when it names none (`postgres://h:5432`). */
export function directUrlFor(direct: string, url: string): string {
  const d = new URL(direct);
  if (d.pathname === '' || d.pathname === '/') d.pathname = new URL(url).pathname;
  return d.toString();
}

/**
 * Refuses to start with a master key other than the one that encrypted the stored secrets:
 * a wrong key would otherwise only show up later as undecryptable certificates.
 */
async function checkMasterKey(prisma: PrismaClient, secrets: SecretBox): Promise<void> {
  const row = await prisma.setting.findUnique({ where: { key: 'master_key_check' } });
  if (!row) {
    await prisma.setting
      .create({ data: { key: 'master_key_check', value: new Uint8Array(secrets.seal('timbre')) } })
      .catch((e: unknown) => {
        if (!isUniqueViolation(e)) throw e;
      });
    return;
  }
  try {
    secrets.open(Buffer.from(row.value));
  } catch {
    throw new Error('The master key does not match the one this database was encrypted with (TIMBRE_MASTER_KEY).');
  }
}

export function isUniqueViolation(e: unknown): boolean {
  return e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002';
}
