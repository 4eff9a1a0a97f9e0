/**
 * As root, a data directory the `postgres` user cannot reach keeps its cluster under the system
 * directory (/var/lib/timbre-pg/data-<hash>). That cluster must not outlive the data directory:
 * deleting the data directory and starting again is a fresh start (it used to reuse the old
 * cluster with a new password: "password authentication failed for user postgres"), and the
 * clusters of deleted data directories are removed (stopped ones at the next start, running
 * ones on demand), never left to pile up.
 *
 * A fresh system directory per test stands in for /var/lib/timbre-pg.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, ensureEmbeddedPostgres, pruneEmbeddedClusters } from '../../src/db/embedded.ts';

const isRoot = userInfo().uid === 0;
if (!isRoot) console.warn('embedded-orphans.test.ts: skipped, it needs root');

const cleanup: string[] = [];
const running: EmbeddedPostgres[] = [];
afterAll(async () => {
  for (const e of running) await e.release().catch(() => {});
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function systemDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'timbre-pg-system-'));
  chmodSync(dir, 0o755);
  cleanup.push(dir);
  return dir;
}

/** A data directory inside a 0700 directory: the postgres user cannot reach it. */
function closedDataDir(): string {
  const closed = mkdtempSync(join(tmpdir(), 'timbre-0700-'));
  chmodSync(closed, 0o700);
  cleanup.push(closed);
  return join(closed, '.data');
}

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

const homes = (system: string) => readdirSync(system).filter((n) => n.startsWith('data-'));

describe.skipIf(!isRoot)('embedded PostgreSQL clusters outside the data directory, as root', () => {
  it('deleting the data directory and starting again gives a fresh, working database', async () => {
    const system = systemDir();
    const dataDir = closedDataDir();
    const first = await ensureEmbeddedPostgres(dataDir, { systemDir: system });
    await query(first.url, 'CREATE TABLE kept_from_before (x int)');
    await first.release();
    expect(homes(system)).toHaveLength(1);

    rmSync(dataDir, { recursive: true, force: true });
    const logs: string[] = [];
    const second = await ensureEmbeddedPostgres(dataDir, { systemDir: system, log: (m) => logs.push(m) });
    running.push(second);
    const { rows } = await query(second.url, "SELECT to_regclass('kept_from_before') AS t");
    expect(rows[0]).toEqual({ t: null });
    expect(homes(system)).toHaveLength(1);
    expect(logs.join('\n')).toMatch(/removed the cluster of a deleted data directory/);
    await second.release();
  }, 120_000);

  it('removes the stopped cluster of a deleted data directory at the next start, and a running one on demand', async () => {
    const system = systemDir();
    const gone = closedDataDir();
    const stillServing = closedDataDir();
    const a = await ensureEmbeddedPostgres(gone, { systemDir: system });
    await a.release(); // stopped
    const b = await ensureEmbeddedPostgres(stillServing, { systemDir: system });
    running.push(b);
    expect(homes(system)).toHaveLength(2);
    rmSync(gone, { recursive: true, force: true });
    rmSync(stillServing, { recursive: true, force: true });
    // Made by a version that did not record owners: kept unless asked.
    mkdirSync(join(system, 'data-0123456789abcdef', 'pg'), { recursive: true });

    const logs: string[] = [];
    const c = await ensureEmbeddedPostgres(closedDataDir(), { systemDir: system, log: (m) => logs.push(m) });
    running.push(c);
    const text = logs.join('\n');
    expect(text).toContain(`its data directory ${gone} is gone`);
    expect(text).toContain(`still running although its data directory ${stillServing} is gone`);
    expect(homes(system)).toHaveLength(3); // b's (running), the unmarked one, c's

    // The running orphan still answers until pruned on demand.
    await expect(query(b.url, 'SELECT 1')).resolves.toBeDefined();
    const pruned = await pruneEmbeddedClusters({ systemDir: system, stopRunning: true });
    expect(pruned.map((p) => [p.dataDir, p.running, p.removed])).toEqual(
      expect.arrayContaining([
        [stillServing, true, true],
        [null, false, false],
      ]),
    );
    await expect(query(b.url, 'SELECT 1')).rejects.toThrow();
    const unmarked = await pruneEmbeddedClusters({ systemDir: system, unmarked: true });
    expect(unmarked).toEqual([
      { home: join(system, 'data-0123456789abcdef'), dataDir: null, running: false, removed: true },
    ]);
    expect(homes(system)).toHaveLength(1);
    // The live data directory's cluster was never touched.
    await expect(query(c.url, 'SELECT 1')).resolves.toBeDefined();
    expect(existsSync(join(system, homes(system)[0]!, 'owner.json'))).toBe(true);
    await c.release();
  }, 180_000);
});
