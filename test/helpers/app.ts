/**
 * Test wiring: a real app on a fresh database clone, with logs captured in memory so tests
 * can assert what reaches them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
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
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  db: Database;
  config: Config;
  logs: string[];
  close(): Promise<void>;
}

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
  return {
    app,
    ctx: app.ctx,
    db,
    config,
    logs,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
    },
  };
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
