/**
 * The list's counters are folded from deltas (migration …_write_path): a trigger appends one
 * delta per counted change in the writer's transaction, and fold_document_counts() moves them
 * into document_counts, receiver_counts and receiver_search_texts. `total` reads counters plus
 * pending deltas in one statement, so it must be exact at every moment, whatever runs at the
 * same time. These tests race writers (inserts, estado updates, voids, deletes, rollbacks) on
 * several connections against folds running in a loop and a checker comparing, in one snapshot,
 * counters + deltas with a recount of the documents; then fold and compare the counters alone.
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { foldCounts } from '../../src/issuing/list-documents.ts';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura, requestFor } from '../helpers/requests.ts';
import { seededRandom, testSeed } from '../helpers/seed.ts';

let t: TestApp;
let rut: string;
let issuerId: string;
let owner: KeyClient;
const random = seededRandom(testSeed(import.meta.url));

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  const tenant = await createTestTenant(t);
  rut = tenant.rut;
  owner = tenant.api;
  issuerId = tenant.issuer.id;
  // Real documents (a factura, a boleta) whose rows the writers below copy.
  for (const body of [factura(), requestFor(39)]) {
    const res = await owner.post(`/api/${rut}/emitir`, body);
    expect(res.statusCode, res.body).toBe(200);
  }
});

/**
 * Mismatches between counters + pending deltas and a recount of the issuer's documents, per
 * month, type and estado, and per receiver, type and estado: one statement, one snapshot.
 */
async function drift(c: pg.Client): Promise<unknown[]> {
  const { rows } = await c.query(
    `WITH counted AS (
       SELECT type, estado_sii, period, sum(count) AS n FROM document_counts
        WHERE issuer_id = $1 AND grain = 'month' GROUP BY 1, 2, 3
       UNION ALL
       SELECT type, estado_sii, date_trunc('month', date::timestamp)::date, sum(delta) FROM document_count_deltas
        WHERE issuer_id = $1 GROUP BY 1, 2, 3
     ), by_month AS (
       SELECT type, estado_sii, period, sum(n) AS n FROM counted GROUP BY 1, 2, 3 HAVING sum(n) <> 0
     ), recount AS (
       SELECT type, estado_sii, date_trunc('month', date::timestamp)::date AS period, count(*) AS n FROM documents
        WHERE issuer_id = $1 GROUP BY 1, 2, 3
     ), receivers AS (
       SELECT search_text, type, estado_sii, sum(n) AS n FROM (
         SELECT search_text, type, estado_sii, count AS n FROM receiver_counts WHERE issuer_id = $1
         UNION ALL
         SELECT search_text, type, estado_sii, delta FROM document_count_deltas WHERE issuer_id = $1
       ) x GROUP BY 1, 2, 3 HAVING sum(n) <> 0
     ), receiver_recount AS (
       SELECT search_text, type, estado_sii, count(*) AS n FROM documents WHERE issuer_id = $1 GROUP BY 1, 2, 3
     )
     (SELECT 'month' AS kind, type, estado_sii, period::text AS key, n FROM by_month
      EXCEPT SELECT 'month', type, estado_sii, period::text, n FROM recount)
     UNION ALL
     (SELECT 'month', type, estado_sii, period::text, n FROM recount
      EXCEPT SELECT 'month', type, estado_sii, period::text, n FROM by_month)
     UNION ALL
     (SELECT 'receiver', type, estado_sii, search_text, n FROM receivers
      EXCEPT SELECT 'receiver', type, estado_sii, search_text, n FROM receiver_recount)
     UNION ALL
     (SELECT 'receiver', type, estado_sii, search_text, n FROM receiver_recount
      EXCEPT SELECT 'receiver', type, estado_sii, search_text, n FROM receivers)`,
    [issuerId],
  );
  return rows;
}

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: t.db.url });
  await c.connect();
  return c;
}

const ESTADOS = ['local', 'pendiente', 'enviado', 'aceptado', 'rechazado', 'anulado'];
const DATES = ['2026-01-31', '2026-02-01', '2026-02-28', '2026-03-01'];

/**
 * One writer: `ops` random writes, each its own transaction (1 in 8 rolled back): a copy of an
 * issued document to a new or known receiver on a date around a month end, an estado change,
 * a void (estado anulado and voided_by_id), a date moved across a month, or a deletion.
 */
async function writer(c: pg.Client, w: number, ops: number): Promise<void> {
  for (let i = 0; i < ops; i++) {
    const rollback = random() < 1 / 8;
    await c.query('BEGIN');
    const r = random();
    if (r < 0.5) {
      const receiver =
        random() < 0.3 ? `7${w}${i}000-1 receptor nuevo ${w}-${i}` : `7000000${i % 5}-k cliente ${i % 5}`;
      await c.query(
        `INSERT INTO documents (id, issuer_id, environment, type, folio, caf_id, date, receiver_rut, receiver_name,
           search_text, net, exempt, vat, vat_rate, total, request, model, signed_xml, ted, public_token, estado_sii,
           updated_at)
         SELECT gen_random_uuid(), issuer_id, environment, type, $2, caf_id, $3::date, receiver_rut, receiver_name,
                $4, net, exempt, vat, vat_rate, total, request, model, signed_xml, ted, gen_random_uuid()::text, $5, now()
         FROM documents WHERE issuer_id = $1 AND folio < 1000 ORDER BY type LIMIT 1 OFFSET $6`,
        [
          issuerId,
          100_000 + w * 10_000 + i,
          DATES[Math.floor(random() * DATES.length)],
          receiver,
          ESTADOS[Math.floor(random() * ESTADOS.length)],
          Math.floor(random() * 2),
        ],
      );
    } else {
      // One document per transaction (no two writers lock rows in opposite orders).
      const { rows } = await c.query<{ id: string }>(
        `SELECT id FROM documents WHERE issuer_id = $1 AND folio >= 100000 ORDER BY md5(id::text || $2) LIMIT 1`,
        [issuerId, String(random())],
      );
      const id = rows[0]?.id ?? '00000000-0000-0000-0000-000000000000';
      if (r < 0.7) {
        await c.query('UPDATE documents SET estado_sii = $2 WHERE id = $1', [
          id,
          ESTADOS[Math.floor(random() * ESTADOS.length)],
        ]);
      } else if (r < 0.8) {
        await c.query(`UPDATE documents SET estado_sii = 'anulado', voided_by_id = $2 WHERE id = $1`, [id, id]);
      } else if (r < 0.9) {
        await c.query('UPDATE documents SET date = date + 31 WHERE id = $1', [id]);
      } else {
        await c.query('DELETE FROM documents WHERE id = $1', [id]);
      }
      // A write that changes no counted column appends no delta.
      await c.query(`UPDATE documents SET sii_glosa = 'DTE Recibido' WHERE id = $1`, [id]);
    }
    await c.query(rollback ? 'ROLLBACK' : 'COMMIT');
  }
}

describe('counters folded from deltas', () => {
  it('stay exact at every moment while writers and folds race, and after the last fold', async () => {
    const writers = await Promise.all([1, 2, 3, 4].map(() => connect()));
    const folder = await connect();
    const checker = await connect();
    try {
      let writing = true;
      let folds = 0;
      let checks = 0;
      const mismatches: unknown[] = [];
      const done = Promise.all(writers.map((c, w) => writer(c, w, 60))).finally(() => {
        writing = false;
      });
      const folding = (async () => {
        while (writing) {
          await folder.query('SELECT fold_document_counts()');
          folds++;
        }
      })();
      const checking = (async () => {
        while (writing) {
          mismatches.push(...(await drift(checker)));
          checks++;
        }
      })();
      await Promise.all([done, folding, checking]);
      expect(mismatches).toEqual([]);
      expect(folds).toBeGreaterThan(0);
      expect(checks).toBeGreaterThan(0);

      // Nothing folded yet since the last writes, perhaps: still exact; then fold everything.
      expect(await drift(checker)).toEqual([]);
      await foldCounts(t.ctx);
      const { rows } = await checker.query('SELECT count(*)::int AS n FROM document_count_deltas');
      expect(rows[0].n).toBe(0);
      expect(await drift(checker)).toEqual([]);
      // Every receiver of a document is searchable once folded.
      const unsearchable = await checker.query(
        `SELECT DISTINCT search_text FROM documents WHERE issuer_id = $1
         EXCEPT SELECT search_text FROM receiver_search_texts WHERE issuer_id = $1`,
        [issuerId],
      );
      expect(unsearchable.rows).toEqual([]);
      // And the API agrees with a plain count.
      const total = (await owner.get(`/api/${rut}/emisiones?limit=1`)).json().total;
      const count = await t.ctx.db.prisma.document.count({ where: { issuerId } });
      expect(total).toBe(count);
    } finally {
      await Promise.all([...writers, folder, checker].map((c) => c.end()));
    }
  });

  it('a receiver new since the last fold is found by q and its document counted, before and after folding', async () => {
    const blocker = await connect();
    try {
      // Folds held off: the new receiver's document is counted only by a pending delta.
      await blocker.query('SELECT pg_advisory_lock(727466101)');
      const res = await owner.post(
        `/api/${rut}/emitir`,
        factura({ receiver: { ...factura().receiver, rut: '96790240-3', name: 'Óptica Zúñiga Hermanos SpA' } }),
      );
      expect(res.statusCode, res.body).toBe(200);
      const pending = await blocker.query(
        'SELECT count(*)::int AS n FROM document_count_deltas WHERE search_text LIKE $1',
        ['%optica zuniga%'],
      );
      expect(pending.rows[0].n).toBe(1);
      for (const query of ['q=zúñiga', 'q=OPTICA%20zuniga&tipo_dte=33', 'q=96790240']) {
        const body = (await owner.get(`/api/${rut}/emisiones?${query}`)).json();
        expect(body.total, query).toBe(1);
        expect(
          body.data.map((d: { folio: number }) => d.folio),
          query,
        ).toEqual([res.json().folio]);
      }
      await blocker.query('SELECT pg_advisory_unlock(727466101)');
      expect(await foldCounts(t.ctx)).toBeGreaterThan(0);
      const body = (await owner.get(`/api/${rut}/emisiones?q=z%C3%BA%C3%B1iga`)).json();
      expect(body.total).toBe(1);
      expect(body.data[0].folio).toBe(res.json().folio);
    } finally {
      await blocker.end();
    }
  });
});
