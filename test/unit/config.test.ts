/**
 * "An invalid value stops the process listing every bad key" (README, Configuration): the
 * parser names each bad key, and the real server exits (78, EX_CONFIG) printing all of them
 * before it touches a database.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.ts';

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

  it('a valid configuration passes', () => {
    expect(parseConfig({ PORT: '3114', LOG_LEVEL: 'warn' })).toMatchObject({ PORT: 3114, LOG_LEVEL: 'warn' });
  });
});
