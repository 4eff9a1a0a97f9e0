/**
 * The list's `total` comes from counters (document_counts without `q`, receiver_counts and
 * receiver_search_texts with it; prisma/schema.prisma) plus the deltas a trigger on documents
 * appends and folds move into them. These tests compare it, for every filter combination, with
 * a plain count over documents, after each kind of write the service or an operator makes:
 * issuing (also concurrently), voiding, estado changes written directly on the table as the SII
 * jobs write them, a date moved across a month boundary, a deletion, a rollback; each check runs
 * twice, first with folds held off (so the totals come partly from pending deltas), then folded.
 * Any drift fails them. test/issuing/count-deltas.test.ts races writers against folds.
 */
import fc from 'fast-check';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, calendarDate, toDbDate } from '../../src/dte/calendar-date.ts';
import type { EstadoSii, Prisma } from '../../src/generated/prisma/client.ts';
import { countingPeriods, foldCounts } from '../../src/issuing/list-documents.ts';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';

let t: TestApp;
/** The issuer of the running test: each test starts from its own (freshIssuer). */
let rut: string;
let issuerId: string;
let owner: KeyClient;

interface Issued {
  type: number;
  folio: number;
  date: string;
  totals: { total: number };
}

async function issue(body: Record<string, unknown>): Promise<Issued> {
  const res = await owner.post(`/api/${rut}/emitir`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function list(query: string) {
  const res = await owner.get(`/api/${rut}/emisiones?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

// Dates on both sides of month ends (January 31, February 28, March 31) and inside months.
const DATES = [
  '2026-01-15',
  '2026-01-31',
  '2026-02-01',
  '2026-02-14',
  '2026-02-28',
  '2026-03-01',
  '2026-03-31',
  '2026-04-01',
];
const RANGES: Array<[string | undefined, string | undefined]> = [
  [undefined, undefined],
  ['2026-02-01', undefined],
  ['2026-02-02', undefined],
  [undefined, '2026-02-28'],
  [undefined, '2026-02-27'],
  ['2026-02-01', '2026-02-28'], // exactly one whole month
  ['2026-01-31', '2026-03-01'], // one whole month and a day either side
  ['2026-01-16', '2026-03-31'], // a partial month, then two whole ones
  ['2026-01-15', '2026-01-15'], // one day
  ['2026-02-14', '2026-02-20'], // inside one month
  ['2026-01-01', '2026-12-31'],
  ['2025-01-01', '2025-12-31'], // nothing
];
const TYPES = [undefined, 33, 39, 61];
const ESTADOS = [undefined, 'local', 'anulado', 'aceptado'];
// Receivers with accents and case to fold; the generic boleta receiver; a RUT fragment.
const RECEIVERS = [
  RECEIVER,
  { ...RECEIVER, rut: '60910000-1', name: 'UNIVERSIDAD DE CHILE' },
  { ...RECEIVER, rut: '96670340-7', name: 'Compañía Ñuble Ltda.' },
];
const SEARCHES = ['ñandú', 'NUBLE', 'ltda', 'universidad de chile', '60.910.000', '66666666', 'zzz'];

interface Case {
  type?: number;
  estado?: string;
  range: [string | undefined, string | undefined];
  q?: string;
}

function* cases(): Generator<Case> {
  for (const type of TYPES) {
    for (const estado of ESTADOS) {
      for (const range of RANGES) yield { type, estado, range };
    }
  }
  // With q: every fragment (and an exact folio, added by the caller) under fewer filters.
  for (const q of SEARCHES) {
    for (const type of [undefined, 33]) {
      for (const estado of [undefined, 'anulado']) {
        for (const range of [RANGES[0]!, RANGES[6]!, RANGES[9]!]) yield { type, estado, range, q };
      }
    }
  }
}

/** The advisory lock fold_document_counts() takes (migration …_write_path). */
const FOLD_LOCK = 727_466_101;

/**
 * `run` while another session holds the folds' lock: list requests cannot fold, so their totals
 * add the deltas still pending to the counters.
 */
async function withFoldsHeldOff<T>(run: () => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: t.db.url });
  await c.connect();
  try {
    await c.query('SELECT pg_advisory_lock($1)', [FOLD_LOCK]);
    return await run();
  } finally {
    await c.end(); // releases the lock
  }
}

/** Every case, with folds held off and then folded: the API's total against a plain count. */
async function expectTotalsExact() {
  await withFoldsHeldOff(expectTotalsMatchCounts);
  await expectTotalsMatchCounts();
}

/** Every case: the API's total against a plain count of the documents (Prisma, no counters). */
async function expectTotalsMatchCounts() {
  const mismatches: string[] = [];
  // Folios 1 and 3 exist for every type issued here, and both digits occur in RUTs too: a
  // document found both ways must be counted once.
  const folioSearches = ['1', '3'].flatMap((q) => RANGES.map((range) => ({ range, q })));
  const all = [...cases(), ...folioSearches];
  for (const c of all as Case[]) {
    const params = new URLSearchParams({ limit: '1' });
    const where: Prisma.DocumentWhereInput = { issuerId };
    if (c.type !== undefined) {
      params.set('tipo_dte', String(c.type));
      where.type = c.type;
    }
    if (c.estado !== undefined) {
      params.set('estado_sii', c.estado);
      where.estadoSii = c.estado as EstadoSii;
    }
    const [from, to] = c.range;
    if (from) params.set('desde', from);
    if (to) params.set('hasta', to);
    if (from || to) {
      where.date = {
        ...(from && { gte: toDbDate(calendarDate(from)) }),
        ...(to && { lte: toDbDate(calendarDate(to)) }),
      };
    }
    if (c.q !== undefined) params.set('q', c.q);
    const candidates = await t.ctx.db.prisma.document.findMany({
      where,
      select: { folio: true, receiverRut: true, receiverName: true },
    });
    const expected = c.q === undefined ? candidates.length : candidates.filter((d) => matchesQ(d, c.q!)).length;
    const body = await list(params.toString());
    if (body.total !== expected) mismatches.push(`${params}: total ${body.total}, documents ${expected}`);
    if (body.data.length !== Math.min(1, expected)) mismatches.push(`${params}: ${body.data.length} entries`);
  }
  expect(mismatches).toEqual([]);
}

/**
 * The README's rule for `q`, written here independently of the product's code: a fragment of
 * the receiver's RUT or name, ignoring case, accents and a RUT's dots, or an exact folio.
 */
function matchesQ(d: { folio: number; receiverRut: string; receiverName: string }, q: string): boolean {
  const fold = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLocaleLowerCase('es')
      .split('.')
      .join('')
      .split(/\s+/)
      .filter(Boolean)
      .join(' ');
  return fold(`${d.receiverRut} ${d.receiverName}`).includes(fold(q)) || (/^\d+$/.test(q) && d.folio === Number(q));
}

/** The counter tables as a whole against a recount (catches drift in rows no query above reads). */
async function expectCountersMatchDocuments() {
  // Folded, no delta is left (nothing writes meanwhile) and the counters alone are exact.
  await foldCounts(t.ctx);
  const [{ pending }] = await t.ctx.db.prisma.$queryRaw<[{ pending: bigint }]>`
    SELECT count(*) AS pending FROM document_count_deltas`;
  expect(pending).toBe(0n);
  const drift = await t.ctx.db.prisma.$queryRaw<unknown[]>`
    WITH recount AS (
      SELECT issuer_id, g.grain::text AS grain, g.period, type, estado_sii, count(*) AS n
      FROM documents
      CROSS JOIN LATERAL (VALUES ('day', date), ('month', date_trunc('month', date::timestamp)::date)) g (grain, period)
      GROUP BY 1, 2, 3, 4, 5
    ), counters AS (
      SELECT issuer_id, grain::text AS grain, period, type, estado_sii, sum(count) AS n FROM document_counts
      GROUP BY 1, 2, 3, 4, 5 HAVING sum(count) <> 0
    )
    (SELECT * FROM recount EXCEPT SELECT * FROM counters)
    UNION ALL
    (SELECT * FROM counters EXCEPT SELECT * FROM recount)`;
  expect(drift).toEqual([]);
  const receiverDrift = await t.ctx.db.prisma.$queryRaw<unknown[]>`
    WITH recount AS (
      SELECT issuer_id, search_text, type, estado_sii, count(*) AS n FROM documents GROUP BY 1, 2, 3, 4
    ), counters AS (
      SELECT issuer_id, search_text, type, estado_sii, sum(count) AS n FROM receiver_counts
      GROUP BY 1, 2, 3, 4 HAVING sum(count) <> 0
    )
    (SELECT * FROM recount EXCEPT SELECT * FROM counters)
    UNION ALL
    (SELECT * FROM counters EXCEPT SELECT * FROM recount)`;
  expect(receiverDrift).toEqual([]);
  // Every receiver of a document can be found (extra receivers left by deletions are harmless).
  const unsearchable = await t.ctx.db.prisma.$queryRaw<unknown[]>`
    SELECT DISTINCT issuer_id, search_text FROM documents
    EXCEPT SELECT issuer_id, search_text FROM receiver_search_texts`;
  expect(unsearchable).toEqual([]);
}

beforeAll(async () => {
  // Each check below makes ~400 list requests.
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
});

/**
 * A new issuer for the running test, with documents of several types on dates around month
 * ends and several receivers: what every test below starts from (none relies on another).
 */
async function freshIssuer(): Promise<Issued[]> {
  const tenant = await createTestTenant(t);
  rut = tenant.rut;
  issuerId = tenant.issuer.id;
  owner = tenant.api;
  const issued: Issued[] = [];
  for (const [i, date] of DATES.entries()) {
    issued.push(await issue(factura({ date, receiver: RECEIVERS[i % RECEIVERS.length] })));
    if (i % 2 === 0) issued.push(await issue({ ...requestFor(39), date }));
    if (i % 3 === 0) issued.push(await issue({ ...requestFor(34), date }));
  }
  return issued;
}

describe('countingPeriods', () => {
  // Days -40 to 839 from 2025-01-01, computed once (the property below reads them ~250,000 times).
  const days = Array.from({ length: 880 }, (_, i) => addDays(calendarDate('2025-01-01'), i - 40));
  const day = (n: number) => days[n + 40]!;

  it('covers every day of any range exactly once, with whole months only inside it', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 800 })), fc.option(fc.integer({ min: 0, max: 800 })), (a, b) => {
        const from = a === null ? undefined : day(a);
        const to = b === null ? undefined : day(b);
        if (from && to && from > to) return;
        const { months, days } = countingPeriods(from, to);
        // Count how often each day of a wide window is covered.
        for (let n = -40; n < 840; n++) {
          const d = day(n);
          const inRange = (!from || d >= from) && (!to || d <= to);
          const month = `${d.slice(0, 7)}-01`;
          let covered = 0;
          if (months && (!months.from || month >= months.from) && (!months.before || month < months.before)) {
            covered++;
            // A month counted whole must lie entirely inside the range.
            expect(!from || month >= from).toBe(true);
          }
          covered += days.filter((p) => (!p.from || d >= p.from) && (!p.to || d <= p.to)).length;
          expect(covered, `${d} in [${from}, ${to}]`).toBe(inRange ? 1 : 0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads a long range mostly from month rows', () => {
    expect(countingPeriods(calendarDate('2024-01-10'), calendarDate('2026-11-22'))).toEqual({
      months: { from: '2024-02-01', before: '2026-11-01' },
      days: [
        { from: '2024-01-10', to: '2024-01-31' },
        { from: '2026-11-01', to: '2026-11-22' },
      ],
    });
    expect(countingPeriods()).toEqual({ months: {}, days: [] });
  });
});

describe('total stays exact', () => {
  it('after issuing documents of several types on dates around month ends', async () => {
    const issued = await freshIssuer();
    await expectTotalsExact();
    await expectCountersMatchDocuments();
    expect((await list('')).total).toBe(issued.length);
  });

  it('after issuing concurrently (no increment is lost)', async () => {
    const issued = await freshIssuer();
    const bodies = Array.from({ length: 16 }, (_, i) =>
      i % 2
        ? factura({ date: DATES[i % DATES.length], receiver: RECEIVERS[i % RECEIVERS.length] })
        : { ...requestFor(39), date: DATES[i % DATES.length] },
    );
    issued.push(...(await Promise.all(bodies.map(issue))));
    await expectTotalsExact();
    await expectCountersMatchDocuments();
    expect((await list('')).total).toBe(issued.length);
  });

  it('after a credit note voids a factura (the original becomes anulado)', async () => {
    const issued = await freshIssuer();
    const original = issued.find((d) => d.type === 33 && d.date === '2026-02-28')!;
    const body = factura();
    // A note names the receiver of the document it voids (SII format rule 3).
    const row = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId, type: 33, folio: original.folio },
    });
    await issue({
      type: 61,
      date: '2026-03-01',
      receiver: { rut: row.receiverRut, name: RECEIVER.name },
      items: body.items,
      refs: [{ type: 33, folio: original.folio, date: original.date, code: 1, reason: 'Anula factura' }],
    });
    const voided = await list(`tipo_dte=33&estado_sii=anulado&desde=2026-02-28&hasta=2026-02-28`);
    expect(voided.total).toBe(1);
    expect(voided.data[0].folio).toBe(original.folio);
    await expectTotalsExact();
    await expectCountersMatchDocuments();
  });

  it('after estado_sii changes written directly, as the SII jobs write them', async () => {
    await freshIssuer();
    const docs = await t.ctx.db.prisma.document.findMany({ where: { issuerId }, orderBy: { folio: 'asc' } });
    // One row (as a job's step does), several in one statement, and plain SQL.
    await t.ctx.db.prisma.document.update({ where: { id: docs[0]!.id }, data: { estadoSii: 'aceptado' } });
    await t.ctx.db.prisma.document.updateMany({
      where: { issuerId, type: 39 },
      data: { estadoSii: 'aceptado' },
    });
    await t.ctx.db.prisma.$executeRaw`UPDATE documents SET estado_sii = 'rechazado' WHERE id = ${docs[1]!.id}::uuid`;
    // Updates that touch no counted column change nothing.
    await t.ctx.db.prisma.document.updateMany({ where: { issuerId }, data: { siiGlosa: 'DTE Recibido' } });
    await expectTotalsExact();
    await expectCountersMatchDocuments();
    expect((await list('estado_sii=aceptado')).total).toBeGreaterThan(1);
  });

  it('after a date is moved across a month boundary and a row is deleted (operator SQL)', async () => {
    await freshIssuer();
    const doc = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId, date: new Date('2026-01-31T00:00:00Z') },
    });
    await t.ctx.db.prisma.$executeRaw`UPDATE documents SET date = '2026-02-01' WHERE id = ${doc.id}::uuid`;
    const gone = await t.ctx.db.prisma.document.findFirstOrThrow({ where: { issuerId, type: 34, voidedById: null } });
    await t.ctx.db.prisma.$executeRaw`DELETE FROM documents WHERE id = ${gone.id}::uuid`;
    await expectTotalsExact();
    await expectCountersMatchDocuments();
  });

  it('a failed write leaves the counters untouched (they commit or roll back with the documents)', async () => {
    await freshIssuer();
    const before = (await list('')).total;
    await expect(
      t.ctx.db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`UPDATE documents SET estado_sii = 'anulado' WHERE issuer_id = ${issuerId}::uuid`;
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await list('')).total).toBe(before);
    await expectTotalsExact();
    await expectCountersMatchDocuments();
  });
});

describe('order and pages', () => {
  it('newest document date first, then newest issued; pages neither overlap nor skip', async () => {
    await freshIssuer();
    const all = await list('limit=100');
    const keys = all.data.map((d: { date: string; created_at: string }) => `${d.date} ${d.created_at}`);
    expect(keys).toEqual([...keys].sort().reverse());
    const paged: unknown[] = [];
    for (let page = 1; paged.length < all.total; page++) {
      const p = await list(`limit=7&page=${page}`);
      expect(p.total).toBe(all.total);
      paged.push(...p.data);
    }
    expect(paged).toEqual(all.data);
  });

  it('q treats LIKE wildcards literally and still finds exact folios', async () => {
    await freshIssuer();
    expect((await list('q=%25')).total).toBe(0);
    expect((await list('q=_')).total).toBe(0);
    const [first] = (await list('tipo_dte=34&limit=1')).data;
    const byFolio = await list(`q=${first.folio}&tipo_dte=34`);
    expect(byFolio.data.map((d: { folio: number }) => d.folio)).toContain(first.folio);
  });
});
