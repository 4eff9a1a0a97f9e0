/**
 * Santiago dates and timestamps (src/dte/chile-time.ts), which keep the fields of the last few
 * seconds asked for: every answer is the one of its own instant, across DST changes, between
 * calls in the same second and when calls alternate between seconds (an issue asks for the day
 * of its issuer's creation between two questions about now).
 */
import { describe, expect, it } from 'vitest';
import { dateOfInstantInSantiago, santiagoTimestamp } from '../../src/dte/chile-time.ts';

describe('Santiago time', () => {
  it('gives each instant its own local date and time, whatever was asked just before', () => {
    const cases: Array<[string, string]> = [
      // Summer time (UTC-3), 23:59:59 local: UTC has moved to the next day already.
      ['2026-01-16T02:59:59.999Z', '2026-01-15T23:59:59'],
      ['2026-01-16T03:00:00.000Z', '2026-01-16T00:00:00'],
      // Winter time (UTC-4).
      ['2026-07-01T03:59:59.000Z', '2026-06-30T23:59:59'],
      ['2026-07-01T04:00:00.000Z', '2026-07-01T00:00:00'],
      // The same second again, then a millisecond later in it: the same answer.
      ['2026-07-01T04:00:00.999Z', '2026-07-01T00:00:00'],
      ['2026-01-16T02:59:59.000Z', '2026-01-15T23:59:59'],
    ];
    for (const [utc, local] of cases) {
      expect(santiagoTimestamp(new Date(utc)), utc).toBe(local);
      expect(dateOfInstantInSantiago(new Date(utc)), utc).toBe(local.slice(0, 10));
    }
  });

  it('answers right when calls alternate between more seconds than it keeps', () => {
    const instants = Array.from({ length: 9 }, (_, i) => new Date(Date.UTC(2026, 0, 16, 2, 59, 50 + i)));
    const expected = instants.map((_, i) => `2026-01-15T23:59:${50 + i}`);
    for (let round = 0; round < 3; round++) {
      // Now and then the issuer's creation day (a fixed older instant), as issuing asks.
      for (const [i, d] of instants.entries()) {
        expect(santiagoTimestamp(d)).toBe(expected[i]);
        expect(dateOfInstantInSantiago(new Date('2025-03-01T12:00:00Z'))).toBe('2025-03-01');
        expect(santiagoTimestamp(instants[(i * 5) % instants.length]!)).toBe(expected[(i * 5) % instants.length]);
      }
    }
  });

  it('still refuses an invalid date', () => {
    expect(() => dateOfInstantInSantiago(new Date(Number.NaN))).toThrow(RangeError);
  });
});
