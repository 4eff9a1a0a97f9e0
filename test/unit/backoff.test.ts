/** "Background jobs retry with backoff (SII_RETRY_BASE_MS, doubling to 30 min)" (README). */
import { expect, it } from 'vitest';
import { backoff } from '../../src/issuing/submissions.ts';

it('doubles from the base on every attempt and stops at 30 minutes', () => {
  expect([1, 2, 3, 4, 5].map((n) => backoff(15_000, n))).toEqual([15_000, 30_000, 60_000, 120_000, 240_000]);
  expect(backoff(15_000, 8)).toBe(1_800_000);
  expect(backoff(15_000, 50)).toBe(1_800_000);
  expect(backoff(15_000, 0)).toBe(15_000);
});
