/**
 * Test wiring: a real app on a fresh database clone, with logs captured in memory so tests
 * can assert what reaches them.
 *
 * Every app built here is closed after its file's tests by this module's own `afterAll`
 * (in reverse order of building, so a second instance closes before the database it shares),
 * even when a test fails half-way: test files do not close apps by hand. `close()` stays for
 * a test that must close one earlier; closing twice is harmless.
 *
 * Requests with a key: `t.as(key).post(url, body)` / `.get(url)` / `.inject({...})` add the
 * `Authorization: Bearer` header; `bearer(key)` gives the header for `fetch`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { afterAll } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.ts';
import { createIssuer, type CreateIssuerInput } from '../../src/admin/issuers.ts';
import { buildApp } from '../../src/app.ts';
import { type Config, parseConfig } from '../../src/config.ts';
import type { AppContext, Clock } from '../../src/context.ts';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { loggerOptions } from '../../src/logger.ts';
import { createTestDatabase } from './db.ts';

export const TEST_MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

export function testConfig(env: Record<string, string> = {}): Config {
  return parseConfig({
    NODE_ENV: 'test',
    TIMBRE_DATA_DIR: mkdtempSync(join(tmpdir(), 'timbre-test-')),
    TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
    PUBLIC_BASE_URL: 'http://timbre.test',
    LOG_LEVEL: 'info',
    JOBS_ENABLED: 'false',
    // Documents are signed in a worker thread, as in production; one per app keeps the cost of
    // starting workers (through tsx) small. Tests of the pool itself choose their own.
    SIGN_WORKERS: '1',
    // A run against a pooler (scripts/external-postgres.sh) gives the direct server without a
    // database name: each test file's database is taken from its own URL.
    ...(process.env.DATABASE_DIRECT_URL ? { DATABASE_DIRECT_URL: process.env.DATABASE_DIRECT_URL } : {}),
    ...env,
  });
}

/** HTTP requests through the app's `inject`, authenticated with one API key. */
export interface KeyClient {
  key: string;
  /** `{ authorization: 'Bearer …' }` */
  headers: Record<string, string>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  post(url: string, payload: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  db: Database;
  config: Config;
  logs: string[];
  /** Requests authenticated with `key`. */
  as(key: string): KeyClient;
  /** Closes the app now (otherwise done after the file's tests); idempotent. */
  close(): Promise<void>;
}

/** The Authorization header for an API key. */
export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** Requests through `app.inject` carrying `key`; headers given per call are added to it. */
function keyClient(app: FastifyInstance, key: string): KeyClient {
  const headers = bearer(key);
  const inject = (opts: InjectOptions) =>
    app.inject({ ...opts, headers: { ...headers, ...(opts.headers as Record<string, string> | undefined) } });
  return {
    key,
    headers,
    inject,
    get: (url, extra = {}) => inject({ method: 'GET', url, headers: extra }),
    post: (url, payload, extra = {}) =>
      inject({ method: 'POST', url, headers: extra, payload: payload as InjectOptions['payload'] }),
  };
}

const open: TestApp[] = [];
const afterApps: Array<() => Promise<void>> = [];

/**
 * Closes `close` after the file's apps are closed (a simulator the apps talk to: it must
 * outlive their background jobs).
 */
export function closeAfterApps(close: () => Promise<void>): void {
  afterApps.push(close);
}

afterAll(async () => {
  // Reverse order: an instance sharing another's database closes before that database drops.
  for (const t of open.splice(0).reverse()) await t.close();
  for (const close of afterApps.splice(0).reverse()) await close();
});

export async function buildTestApp(
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    /** Another app's database (a second instance): not dropped when this app closes. */
    shareDatabaseOf?: TestApp;
  } = {},
): Promise<TestApp> {
  const database = opts.shareDatabaseOf
    ? { url: opts.shareDatabaseOf.db.url, drop: async () => {} }
    : await createTestDatabase();
  const config = testConfig(opts.env);
  const db = await openDatabase(config, { url: database.url, migrate: false, poolMax: 20 });
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = pino(loggerOptions('info'), stream);
  const app = await buildApp({ config, db, logger, ...(opts.clock && { clock: opts.clock }) });
  await app.ready();
  let closing: Promise<void> | undefined;
  const t: TestApp = {
    app,
    ctx: app.ctx,
    db,
    config,
    logs,
    as: (key) => keyClient(app, key),
    close() {
      closing ??= (async () => {
        await app.close();
        await db.close();
        await database.drop();
      })();
      return closing;
    },
  };
  open.push(t);
  return t;
}

let rutCounter = 0;
/** A valid, unique RUT for test issuers. */
export function nextRut(): string {
  rutCounter += 1;
  const body = String(76_000_000 + ((process.pid * 1000 + rutCounter) % 9_000_000));
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const r = 11 - (sum % 11);
  return `${body}-${r === 11 ? '0' : r === 10 ? 'K' : String(r)}`;
}

export async function createTestIssuer(ctx: AppContext, overrides: Partial<CreateIssuerInput> = {}) {
  return createIssuer(ctx, {
    rut: nextRut(),
    name: 'Ferretería Ñandú & Cía. Ltda.',
    giro: 'Venta de artículos de ferretería',
    acteco: ['475201'],
    address: 'Av. Providencia 1234, of. 5°',
    comuna: 'Providencia',
    city: 'Santiago',
    resolutionDate: '2014-08-22',
    resolutionNumber: 80,
    ...overrides,
  });
}

export async function createTestKey(ctx: AppContext, rut: string, role: 'owner' | 'editor' | 'viewer' = 'owner') {
  return (await createApiKey(ctx, { rut, role })).key;
}

/** A new sandbox issuer with a key of `role`, and a client making requests with that key. */
export async function createTestTenant(
  t: TestApp,
  opts: { role?: 'owner' | 'editor' | 'viewer'; issuer?: Partial<CreateIssuerInput> } = {},
) {
  const issuer = await createTestIssuer(t.ctx, opts.issuer);
  const key = await createTestKey(t.ctx, issuer.rut, opts.role ?? 'owner');
  return { issuer, rut: issuer.rut, key, api: t.as(key) };
}
