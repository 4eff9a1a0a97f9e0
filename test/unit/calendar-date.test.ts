/**
 * Calendar dates (src/dte/calendar-date.ts) and the Santiago day of an instant
 * (src/dte/chile-time.ts). Chile's mainland clocks go back from 24:00 to 23:00 on the night to
 * the first Sunday of April (UTC-3 → UTC-4, 03:00 UTC) and forward from 24:00 to 01:00 on the
 * night to the first Sunday of September (UTC-4 → UTC-3, 04:00 UTC; the IANA tz database,
 * America/Santiago). At 23:30 in Santiago it is already the next day in UTC.
 */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  calendarDate,
  compareDates,
  daysBetween,
  firstOfMonth,
  firstOfNextMonth,
  fromDbDate,
  isRealDate,
  toDbDate,
} from '../../src/dte/calendar-date.ts';
import { dateOfInstantInSantiago, todayInSantiago } from '../../src/dte/chile-time.ts';

const d = calendarDate;

describe('the Santiago day of an instant', () => {
  it.each([
    // 2026: the first Sunday of April is the 5th. 23:59 UTC-3, then 23:00 again at UTC-4.
    ['2026-04-05T02:59:59Z', '2026-04-04'],
    ['2026-04-05T03:00:00Z', '2026-04-04'],
    ['2026-04-05T03:30:00Z', '2026-04-04'],
    ['2026-04-05T03:59:59Z', '2026-04-04'],
    ['2026-04-05T04:00:00Z', '2026-04-05'],
    // 2026: the first Sunday of September is the 6th. 23:59:59 UTC-4, then 01:00 UTC-3.
    ['2026-09-06T03:59:59Z', '2026-09-05'],
    ['2026-09-06T04:00:00Z', '2026-09-06'],
    ['2026-09-06T04:30:00Z', '2026-09-06'],
    // 2027: the 4th of April and the 5th of September.
    ['2027-04-04T03:30:00Z', '2027-04-03'],
    ['2027-04-04T04:00:00Z', '2027-04-04'],
    ['2027-09-05T03:30:00Z', '2027-09-04'],
    ['2027-09-05T04:00:00Z', '2027-09-05'],
  ])('%s is %s in Santiago (DST change)', (instant, day) => {
    expect(dateOfInstantInSantiago(new Date(instant))).toBe(day);
  });

  it.each([
    // 23:30 in Santiago is the next day in UTC: in summer (UTC-3) and in winter (UTC-4).
    ['2026-11-26T02:30:00Z', '2026-11-25'],
    ['2026-07-01T03:30:00Z', '2026-06-30'],
    // The last evening of a year and of a month.
    ['2027-01-01T02:30:00Z', '2026-12-31'],
    ['2026-03-01T02:30:00Z', '2026-02-28'],
    // 00:30 in Santiago: the same day in UTC.
    ['2026-11-25T03:30:00Z', '2026-11-25'],
  ])('%s, 23:30 or 00:30 in Santiago, is %s', (instant, day) => {
    expect(dateOfInstantInSantiago(new Date(instant))).toBe(day);
  });

  it('today is the Santiago day of the injected clock', () => {
    expect(todayInSantiago(() => new Date('2026-11-26T02:30:00Z'))).toBe('2026-11-25');
    expect(todayInSantiago(() => new Date('2026-09-06T04:00:00Z'))).toBe('2026-09-06');
  });
});

describe('calendar dates', () => {
  it('accepts only real dates written YYYY-MM-DD', () => {
    for (const s of ['2024-02-29', '2026-12-31', '2000-01-01']) expect(isRealDate(s), s).toBe(true);
    for (const s of ['2023-02-29', '2026-02-30', '2026-13-01', '2026-1-01', '2026-01-01T00:00', ' 2026-01-01', '']) {
      expect(isRealDate(s), s).toBe(false);
    }
    expect(() => calendarDate('2026-02-30')).toThrow(RangeError);
  });

  it('goes to a date column and back as the same day', () => {
    for (const s of ['2026-04-05', '2026-09-06', '2026-11-25', '2024-02-29']) {
      const day = d(s);
      expect(fromDbDate(toDbDate(day))).toBe(day);
      // The driver holds a date column as midnight UTC of its day.
      expect(toDbDate(day).getTime()).toBe(Date.parse(`${s}T00:00:00.000Z`));
    }
    expect(toDbDate(null)).toBeNull();
    expect(fromDbDate(null)).toBeNull();
  });

  it('adds days across months, years, leap days and Santiago DST changes', () => {
    expect(addDays(d('2026-04-04'), 1)).toBe('2026-04-05');
    expect(addDays(d('2026-09-05'), 1)).toBe('2026-09-06');
    expect(addDays(d('2026-09-06'), -1)).toBe('2026-09-05');
    expect(addDays(d('2026-12-31'), 1)).toBe('2027-01-01');
    expect(addDays(d('2024-02-28'), 1)).toBe('2024-02-29');
    expect(addDays(d('2025-02-28'), 1)).toBe('2025-03-01');
    expect(addDays(d('2003-09-04'), 180)).toBe('2004-03-02');
    expect(daysBetween(d('2026-04-04'), d('2026-04-05'))).toBe(1);
    expect(daysBetween(d('2026-09-05'), d('2026-09-07'))).toBe(2);
    expect(daysBetween(d('2026-01-01'), d('2027-01-01'))).toBe(365);
    expect(daysBetween(d('2026-11-25'), d('2026-11-20'))).toBe(-5);
  });

  it('finds the first day of a month and of the next one', () => {
    expect(firstOfMonth(d('2026-11-25'))).toBe('2026-11-01');
    expect(firstOfNextMonth(d('2026-11-25'))).toBe('2026-12-01');
    expect(firstOfNextMonth(d('2026-12-01'))).toBe('2027-01-01');
    expect(firstOfNextMonth(d('2026-01-31'))).toBe('2026-02-01');
  });

  it('orders dates as the calendar does', () => {
    const days = ['2026-11-25', '2026-04-05', '2027-01-01', '2026-04-04'].map(d);
    expect(days.sort(compareDates)).toEqual(['2026-04-04', '2026-04-05', '2026-11-25', '2027-01-01']);
    expect(compareDates(d('2026-11-25'), d('2026-11-25'))).toBe(0);
  });
});
