/**
 * "An invalid value stops the process listing every bad key" (README, Configuration): the
 * parser names each bad key, and the real server exits (78, EX_CONFIG) printing all of them
 * before it touches a database. The defaults and every key the service reads are as documented.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configSchema, parseConfig } from '../../src/config.ts';
import { directUrlFor } from '../../src/db/database.ts';
import { resolveMasterKey } from '../../src/db/secrets.ts';

const BAD = {
  PORT: '70000',
  LOG_LEVEL: 'loud',
  RATE_LIMIT_PER_MINUTE: '0',
  PUBLIC_BASE_URL: 'not a url',
  JOBS_POLL_SECONDS: 'soon',
};

describe('invalid configuration', () => {
  it('parseConfig names every bad key, not only the first', () => {
    let error: unknown;
    try {
      parseConfig({ ...BAD, TIMBRE_MASTER_KEY: 'x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues.map((i) => i.split(':')[0]).sort()).toEqual(Object.keys(BAD).sort());
    for (const key of Object.keys(BAD)) expect((error as ConfigError).message).toContain(`${key}:`);
  });

  it('the server refuses to start, exit 78, listing every bad key on stderr', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, ...BAD, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(78);
    expect(run.stderr).toMatch(/^Invalid configuration:/);
    for (const key of Object.keys(BAD)) expect(run.stderr).toContain(`${key}:`);
    expect(run.stdout).toBe('');
  });
});

describe('documented configuration', () => {
  it('with nothing set the service listens on port 3000 and links files under http://localhost:3000', () => {
    const config = parseConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
  });

  it('a valid configuration passes', () => {
    expect(parseConfig({ PORT: '3114', LOG_LEVEL: 'warn' })).toMatchObject({ PORT: 3114, LOG_LEVEL: 'warn' });
  });

  it('behind a pooler (DATABASE_DIRECT_URL set) statements are not named unless asked; the direct URL follows the database of DATABASE_URL', () => {
    expect(parseConfig({}).DB_NAMED_STATEMENTS).toBe(true);
    const pooled = parseConfig({ DATABASE_DIRECT_URL: 'postgresql://u:p@db:5432' });
    expect(pooled.DB_NAMED_STATEMENTS).toBe(false);
    expect(
      parseConfig({ DATABASE_DIRECT_URL: 'postgresql://db', DB_NAMED_STATEMENTS: 'true' }).DB_NAMED_STATEMENTS,
    ).toBe(true);
    expect(directUrlFor('postgresql://u:p@db:5432', 'postgresql://u:p@bouncer:6432/timbre_t_1')).toBe(
      'postgresql://u:p@db:5432/timbre_t_1',
    );
    expect(directUrlFor('postgresql://u:p@db:5432/main', 'postgresql://u:p@bouncer:6432/other')).toBe(
      'postgresql://u:p@db:5432/main',
    );
  });

  it('.env.example documents every key the service reads', () => {
    const example = readFileSync('.env.example', 'utf8');
    const documented = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const missing = Object.keys(configSchema.shape).filter((k) => !documented.has(k));
    expect(missing).toEqual([]);
  });

  it('without TIMBRE_MASTER_KEY a key is generated once under the data directory (0600) and then reused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'timbre-master-'));
    try {
      const first = resolveMasterKey(undefined, dir);
      expect(first.source).toBe(join(dir, 'master.key'));
      expect(first.key).toHaveLength(32);
      expect(statSync(join(dir, 'master.key')).mode & 0o777).toBe(0o600);
      expect(resolveMasterKey(undefined, dir).key.equals(first.key)).toBe(true);
      // A configured key wins over the file.
      const configured = Buffer.alloc(32, 9);
      expect(resolveMasterKey(configured.toString('base64'), dir).key.equals(configured)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
