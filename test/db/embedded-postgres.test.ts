/**
 * The embedded PostgreSQL as the README describes it: whichever process needs it first starts
 * it, the others reuse it (same server, found through `postgres.json` and its postmaster.pid),
 * and a process that shuts down stops it only when no one else is connected. Uses a data
 * directory of its own, never the one the suite runs on.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { type EmbeddedPostgres, ensureEmbeddedPostgres } from '../../src/db/embedded.ts';

const dir = mkdtempSync(join(tmpdir(), 'timbre-embedded-'));
const logs: string[] = [];
const log = (msg: string) => {
  logs.push(msg);
};

let started: EmbeddedPostgres | undefined;

afterAll(async () => {
  // Whatever happened above: stop the server this file started, then remove its files. As root,
  // `dir` (mkdtemp: 0700) is out of the postgres user's reach, so the cluster lives in
  // /var/lib/timbre-pg/data-<hash>/pg (src/db/embedded.ts): remove that home too.
  const cluster = existsSync(join(dir, 'postgres.json'))
    ? (JSON.parse(readFileSync(join(dir, 'postgres.json'), 'utf8')) as { clusterDir?: string }).clusterDir
    : undefined;
  if (started && (await reachable(started.adminUrl))) await started.release();
  if (cluster && !cluster.startsWith(`${dir}/`)) rmSync(dirname(cluster), { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

it('is started once, reused by the next process, and stopped only by the last one out', async () => {
  const service = await ensureEmbeddedPostgres(dir, { log });
  started = service;
  expect(logs.some((l) => /embedded PostgreSQL started on 127\.0\.0\.1:\d+/.test(l))).toBe(true);
  const port = new URL(service.url).port;
  const recorded = JSON.parse(readFileSync(join(dir, 'postgres.json'), 'utf8')) as { port: number };
  expect(String(recorded.port)).toBe(port);

  // A second process (the CLI, say) finds the running server and reuses it.
  logs.length = 0;
  const cli = await ensureEmbeddedPostgres(dir, { log });
  expect(new URL(cli.url).port).toBe(port);
  expect(logs.some((l) => l.startsWith('reusing embedded PostgreSQL'))).toBe(true);
  expect(logs.some((l) => l.includes('started'))).toBe(false);

  // The service holds a connection; the CLI finishes: the server stays up for the service.
  const serviceConnection = new pg.Client({ connectionString: service.url });
  await serviceConnection.connect();
  logs.length = 0;
  await cli.release();
  expect(logs).toContain('embedded PostgreSQL left running: 1 other connection(s)');
  expect((await serviceConnection.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

  // The service shuts down last: the server stops.
  await serviceConnection.end();
  logs.length = 0;
  await service.release();
  expect(logs).toContain('embedded PostgreSQL stopped');
  expect(await reachable(service.adminUrl)).toBe(false);
});
