/**
 * The list part of `npm run bench`: GET /api/{rut}/emisiones over HTTP against a real server
 * process, for one issuer holding BENCH_LIST_DOCS seeded documents (bench/seed-documents.ts)
 * besides the few it really issued. Requests are sent one at a time (latency, not throughput),
 * after a warm-up, and each case reports p50/p99 and the `total` it answered.
 */
import type pg from 'pg';
import { addDays, type CalendarDate } from '../src/dte/calendar-date.ts';
import { percentile } from './harness.ts';

export interface ListCase {
  label: string;
  query: string;
}

export interface ListMeasure extends ListCase {
  total: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

/** About three months a year ago, starting and ending inside a month (partial months at both ends). */
function yearAgo(today: CalendarDate): { from: CalendarDate; to: CalendarDate } {
  return { from: addDays(today, -400), to: addDays(today, -310) };
}

/** The fragments exist among the seeded receivers (bench/seed-documents.ts). */
export function listCases(today: CalendarDate, seededFolio: number): ListCase[] {
  const { from, to } = yearAgo(today);
  const range = `desde=${from}&hasta=${to}`;
  return [
    { label: 'page 1, no filter', query: '' },
    { label: 'filtered: type + estado + 3 months a year ago', query: `tipo_dte=33&estado_sii=aceptado&${range}` },
    { label: 'filtered: a rare type + estado pair', query: 'tipo_dte=52&estado_sii=rechazado' },
    { label: 'filtered: 3 months a year ago, page 20', query: `${range}&page=20` },
    { label: 'deep page (page 1000, offset 29 970)', query: 'page=1000' },
    { label: 'q: one company (accents, capitals)', query: `q=${encodeURIComponent('FERRETERÍA Villagrán')}` },
    { label: 'q: a surname', query: `q=${encodeURIComponent('villagrán')}` },
    {
      label: 'q: a surname + type + estado',
      query: `q=${encodeURIComponent('Núñez')}&tipo_dte=39&estado_sii=aceptado`,
    },
    { label: 'q: a surname + 3 months a year ago', query: `q=${encodeURIComponent('villagrán')}&${range}` },
    { label: 'q: a folio number', query: `q=${seededFolio}` },
    { label: 'q: unselective ("ltda", 1 in 4 documents)', query: 'q=ltda' },
    { label: 'q: unselective + 3 months a year ago', query: `q=ltda&${range}` },
  ];
}

/** Filters whose exact count(*) is timed in SQL, to show what the counters save. */
export function countCases(today: CalendarDate): Array<{ label: string; where: string }> {
  const { from, to } = yearAgo(today);
  return [
    { label: 'no filter', where: 'true' },
    { label: 'estado_sii=aceptado (9 documents in 10)', where: `estado_sii = 'aceptado'` },
    { label: 'tipo_dte=39', where: 'type = 39' },
    { label: '3 months a year ago', where: `date BETWEEN '${from}' AND '${to}'` },
    {
      label: 'tipo_dte=33 + estado_sii=aceptado + 3 months a year ago',
      where: `type = 33 AND estado_sii = 'aceptado' AND date BETWEEN '${from}' AND '${to}'`,
    },
  ];
}

export async function measureList(
  port: number,
  key: string,
  rut: string,
  c: ListCase,
  requests: number,
): Promise<ListMeasure> {
  const url = `http://127.0.0.1:${port}/api/${rut}/emisiones${c.query ? `?${c.query}` : ''}`;
  const headers = { authorization: `Bearer ${key}` };
  const get = async () => {
    const res = await fetch(url, { headers });
    const body = (await res.json()) as { total?: number; data?: unknown[] };
    if (res.status !== 200 || body.total === undefined) {
      throw new Error(`GET ${url}: ${res.status} ${JSON.stringify(body)}`);
    }
    return body.total;
  };
  let total = 0;
  for (let i = 0; i < 20; i++) total = await get(); // warm-up: plans, buffers, JIT
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t0 = performance.now();
    await get();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ...c, total, requests, p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1)! };
}

/** Median of a few runs of an exact count(*) with the case's filter, straight in SQL. */
export async function timeCountStar(db: pg.Client, issuerId: string, where: string): Promise<number> {
  const sql = `SELECT count(*) FROM documents WHERE issuer_id = $1 AND ${where}`;
  await db.query(sql, [issuerId]);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await db.query(sql, [issuerId]);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[2]!;
}
