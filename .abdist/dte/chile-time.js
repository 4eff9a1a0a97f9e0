const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Santiago',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
});
/**
 * The fields of the last seconds asked for: every request asks for its date and timestamp two or
 * three times within the same second, and `formatToParts` is the slow part of issuing's
 * bookkeeping (ICU). A UTC second maps to exactly one Santiago second, so this is exact. A few
 * seconds are kept, not one: a request also asks for the day of an older instant (a sandbox
 * issuer's creation, its "Res. 0" date), and with a single entry the two evicted each other on
 * every request (2 % of the event loop's time under load).
 */
const RECENT_SECONDS = 4;
const recent = new Map();
function fields(d) {
    const second = Math.floor(d.getTime() / 1000);
    const cached = recent.get(second);
    if (cached)
        return cached;
    const f = Object.fromEntries(parts.formatToParts(d).map((p) => [p.type, p.value]));
    if (recent.size >= RECENT_SECONDS)
        recent.delete(recent.keys().next().value);
    recent.set(second, f);
    return f;
}
/**
 * The calendar date an instant falls on in Santiago (America/Santiago, with its DST): at 23:30
 * in Santiago it is already the next day in UTC, and this is still the Santiago day.
 */
export function dateOfInstantInSantiago(d) {
    const f = fields(d);
    return `${f.year}-${f.month}-${f.day}`;
}
/** Today in Santiago, by the injected clock (never `new Date()`: tests and the simulator move it). */
export function todayInSantiago(clock) {
    return dateOfInstantInSantiago(clock());
}
/** YYYY-MM-DDTHH:MM:SS in Santiago. */
export function santiagoTimestamp(d) {
    const f = fields(d);
    return `${f.year}-${f.month}-${f.day}T${f.hour}:${f.minute}:${f.second}`;
}
/**
 * The instant a Santiago wall-clock time names ("YYYY-MM-DDTHH:MM:SS", no zone), or null when
 * the text is not one. Santiago's offset (-04:00 or -03:00) is found by formatting a first guess
 * back. A wall-clock time that a DST change skips or repeats (an hour a year each) maps to an
 * instant within an hour of it: the SII's answers carry no zone to tell them apart.
 */
export function instantOfSantiagoTimestamp(local) {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(local);
    if (!m)
        return null;
    const asUtc = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    if (Number.isNaN(asUtc) || new Date(asUtc).toISOString().slice(0, 19) !== local)
        return null;
    const offsetAt = (t) => Date.parse(`${santiagoTimestamp(new Date(t))}Z`) - t;
    // Two rounds settle it: the offset at the first guess may differ from the offset at the answer.
    let t = asUtc - offsetAt(asUtc);
    t = asUtc - offsetAt(t);
    return new Date(t);
}
