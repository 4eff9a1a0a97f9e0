/**
 * SII dates and timestamps are Chilean local time without a zone (FchEmis, TSTED, TmstFirma,
 * TmstFirmaEnv: "AAAA-MM-DDTHH:MM:SS"); docs/design.md §5: the default issue date is today in
 * America/Santiago.
 */
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
 * The fields of the last second asked for: every request asks for its date and timestamp two or
 * three times within the same second, and `formatToParts` is the slow part of issuing's
 * bookkeeping (ICU). A UTC second maps to exactly one Santiago second, so this is exact.
 */
let last: { second: number; fields: Record<string, string> } | null = null;

function fields(d: Date): Record<string, string> {
  const second = Math.floor(d.getTime() / 1000);
  if (last?.second === second) return last.fields;
  const f = Object.fromEntries(parts.formatToParts(d).map((p) => [p.type, p.value]));
  last = { second, fields: f };
  return f;
}

/** YYYY-MM-DD in Santiago. */
export function santiagoDate(d: Date): string {
  const f = fields(d);
  return `${f.year}-${f.month}-${f.day}`;
}

/** YYYY-MM-DDTHH:MM:SS in Santiago. */
export function santiagoTimestamp(d: Date): string {
  const f = fields(d);
  return `${f.year}-${f.month}-${f.day}T${f.hour}:${f.minute}:${f.second}`;
}
