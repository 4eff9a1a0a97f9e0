/**
 * Calendar dates: a day of the calendar, with no time and no time zone, written `YYYY-MM-DD`
 * (xs:date) as the SII writes them (FchEmis, FchRef, FchResol, the CAF's FA) and as Postgres
 * stores `date` columns (documents.date, issuers.resolution_date, cafs.authorised_at and
 * expires_at, the counters' periods). An instant (a moment in time, a `Date`) becomes a
 * calendar date only through a time zone: `dateOfInstantInSantiago` in `chile-time.ts`.
 *
 * This module is the only place that turns a calendar date into a `Date` or back: it does so at
 * UTC midnight, which is how the driver reads and writes a `date` column, and which is an
 * implementation detail here, never a moment anyone meant. `test/unit/date-conversions.test.ts`
 * fails when that conversion is written anywhere else.
 */
const DAY_MS = 86_400_000;
/** Midnight UTC of the day: the `Date` a Postgres `date` column holds for it. */
function utcMidnight(d) {
    return new Date(`${d}T00:00:00Z`);
}
/** The day (in UTC) of a `Date` at any time of that day; only for the `Date`s made here. */
function utcDay(d) {
    return d.toISOString().slice(0, 10);
}
/** A real calendar date written YYYY-MM-DD (2023-02-30 is refused). */
export function isRealDate(s) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
    if (!m)
        return false;
    const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    return !Number.isNaN(d.getTime()) && utcDay(d) === s;
}
/**
 * A string already validated as a date (by a zod schema at the edge, or read from a signed
 * document) as a CalendarDate; anything else is a programming error (RangeError).
 */
export function calendarDate(s) {
    if (!isRealDate(s))
        throw new RangeError(`not a calendar date written YYYY-MM-DD: ${JSON.stringify(s)}`);
    return s;
}
export function fromDbDate(d) {
    return d === null ? null : utcDay(d);
}
export function toDbDate(d) {
    return d === null ? null : utcMidnight(d);
}
/** The date `n` days after `d` (before it when `n` is negative). */
export function addDays(d, n) {
    return utcDay(new Date(utcMidnight(d).getTime() + n * DAY_MS));
}
/** The first day of the month of `d`. */
export function firstOfMonth(d) {
    return `${d.slice(0, 7)}-01`;
}
/** The first day of the month after the month of `d`. */
export function firstOfNextMonth(d) {
    const m = utcMidnight(firstOfMonth(d));
    m.setUTCMonth(m.getUTCMonth() + 1);
    return utcDay(m);
}
/** Negative when `a` is before `b`, 0 on the same day, positive after (a sort comparator). */
export function compareDates(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
}
/** Whole days from `from` to `to` (negative when `to` is before `from`). */
export function daysBetween(from, to) {
    return Math.round((utcMidnight(to).getTime() - utcMidnight(from).getTime()) / DAY_MS);
}
