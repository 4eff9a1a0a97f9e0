/**
 * The README's "Tests" promise about shared servers: a run names its databases after a random
 * run id, reports the databases of other (or interrupted) runs at start without touching them,
 * and at the end drops exactly the ones it made. Checked by running the suite's own global
 * setup a second time, against this run's server, next to a database of "another run".
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { afterAll, expect, inject, it, vi } from 'vitest';
import setup from '../global-setup.ts';

const admin = () => new pg.Client({ connectionString: inject('adminUrl') });

async function databases(): Promise<string[]> {
  const c = admin();
  await c.connect();
  try {
    const r = await c.query<{ datname: string }>('SELECT datname FROM pg_database');
    return r.rows.map((row) => row.datname);
  } finally {
    await c.end();
  }
}

const others = `timbre_t_${randomBytes(6).toString('hex')}_left`;

afterAll(async () => {
  const c = admin();
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${others}"`);
  await c.end();
});

it('a second run on the same server reports the other run’s databases, keeps them, and drops only its own', async () => {
  const c = admin();
  await c.connect();
  await c.query(`CREATE DATABASE "${others}"`);
  await c.end();

  const provided = new Map<string, unknown>();
  const project = { provide: (k: string, v: unknown) => provided.set(k, v) } as unknown as TestProject;
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.stubEnv('DATABASE_URL', inject('adminUrl'));
  let teardown: (() => Promise<void>) | undefined;
  try {
    teardown = (await setup(project)) as () => Promise<void>;
    const reported = log.mock.calls.map((args) => args.join(' ')).join('\n');
    expect(reported).toMatch(/test database\(s\) of other or interrupted runs exist on this server.*left alone/);
  } finally {
    log.mockRestore();
    vi.unstubAllEnvs();
    await teardown?.();
  }
  const runId = provided.get('runId') as string;
  const template = provided.get('templateDb') as string;
  expect(runId).toMatch(/^[0-9a-f]{12}$/);
  expect(runId).not.toBe(inject('runId'));
  expect(template).toBe(`timbre_tpl_${runId}`);

  const after = await databases();
  // Its own template is gone; the other run's database and this (outer) run's template stay.
  expect(after).not.toContain(template);
  expect(after).toContain(others);
  expect(after).toContain(inject('templateDb'));
});
