/**
 * "The counters are **per instance**, in memory … With N instances behind a balancer a key can
 * reach N × the limit" (README, "Idempotency and rate limits"). Two apps on one database, one
 * key: each instance allows the whole limit, and neither sees the other's requests.
 */
import { expect, it } from 'vitest';
import { buildTestApp, createTestTenant } from '../helpers/app.ts';
import { manualClock } from '../helpers/time.ts';

it('two instances on one database each allow RATE_LIMIT_PER_MINUTE requests of the same key', async () => {
  const clock = manualClock('2026-11-23T12:00:00Z');
  const env = { RATE_LIMIT_PER_MINUTE: '3' };
  const a = await buildTestApp({ env, clock });
  const b = await buildTestApp({ env, clock, shareDatabaseOf: a });
  const { rut, key } = await createTestTenant(a, { role: 'viewer' });
  const list = (on: typeof a) => on.as(key).get(`/api/${rut}/emisiones`);

  const remaining = async (on: typeof a) => {
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await list(on);
      expect(res.statusCode).toBe(200);
      seen.push(String(res.headers['ratelimit-remaining']));
    }
    return seen;
  };
  expect(await remaining(a)).toEqual(['2', '1', '0']);
  // Instance b has counted nothing of a's three requests.
  expect(await remaining(b)).toEqual(['2', '1', '0']);
  for (const on of [a, b]) {
    const over = await list(on);
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('RATE_LIMITED');
  }
});
