/** Calendar dates as the SII writes them (xs:date, `YYYY-MM-DD`, e.g. FchEmis, FchResol). */

/** A real calendar date written YYYY-MM-DD (2023-02-30 is refused). */
export function isRealDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}
