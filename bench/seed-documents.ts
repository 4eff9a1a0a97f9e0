/**
 * Seeds many documents for one issuer straight in SQL (INSERT … SELECT generate_series), so
 * that the list benchmark runs against a table of realistic size in minutes: 1 000 000 rows
 * take a few minutes, where issuing them through the API would take hours.
 *
 * Each seeded row copies every heavy column (signed XML bytes, TED, request, model, CAF) from
 * a document of the same type really issued through the API just before, so rows have the
 * size and TOAST layout of real ones; only what the list shows or filters on varies: date and
 * created_at (spread over `days` days, inserted in chronological order as a real table grows),
 * type, folio, receiver, totals, estado_sii and track id. The receivers' `search_text` is
 * computed by the service's own `searchable()`, exactly as issuing computes it.
 *
 * The rows go through the normal INSERT path, so the trigger on documents counts them like
 * any issued document (no counter is filled in behind the service's back).
 */
import type pg from 'pg';
import { computeDv, GENERIC_BOLETA_RUT } from '../src/dte/rut.ts';
import { searchable } from '../src/events/document-view.ts';

export interface SeedOptions {
  issuerId: string;
  count: number;
  /** The seeded dates cover the `days` days before `today` (YYYY-MM-DD, excluded). */
  days: number;
  today: string;
  batch?: number;
  log?: (msg: string) => void;
}

export interface SeedResult {
  seconds: number;
  receivers: number;
  tableBytes: number;
  heapBytes: number;
}

/**
 * Type mix per 100 consecutive rows: boletas and facturas dominate, as for a retailer that
 * also sells to companies. The slot also gives each type its own dense folio sequence.
 */
const TYPE_SLOTS: Array<[type: number, slots: number]> = [
  [39, 38],
  [33, 30],
  [41, 8],
  [52, 8],
  [61, 7],
  [34, 6],
  [56, 3],
];

const COMPANY_PREFIXES = [
  'Comercial',
  'Inversiones',
  'Distribuidora',
  'Constructora',
  'Transportes',
  'Ferretería',
  'Panadería',
  'Agrícola',
  'Servicios',
  'Importadora',
  'Sociedad',
  'Farmacia',
  'Librería',
  'Ópticas',
  'Minera',
  'Pesquera',
  'Viña',
  'Clínica',
];
const SURNAMES = [
  'Muñoz',
  'González',
  'Rodríguez',
  'Núñez',
  'Peña',
  'Ibáñez',
  'Álvarez',
  'Pérez',
  'Sepúlveda',
  'Martínez',
  'Fernández',
  'López',
  'Díaz',
  'Soto',
  'Contreras',
  'Silva',
  'Rojas',
  'Morales',
  'Gutiérrez',
  'Valdés',
  'Castillo',
  'Araya',
  'Espinoza',
  'Tapia',
  'Reyes',
  'Fuentes',
  'Carrasco',
  'Bravo',
  'Cortés',
  'Herrera',
  'Vásquez',
  'Jiménez',
  'Zúñiga',
  'Ñancupil',
  'Villagrán',
  'Riquelme',
  'Cárdenas',
  'Olivares',
  'Quiroz',
  'Guzmán',
];
const PLACES = [
  'del Sur',
  'Los Andes',
  'Ñuble',
  'Biobío',
  'Maipú',
  'Chiloé',
  'Atacama',
  'Aysén',
  'Curicó',
  'Valparaíso',
];
const SUFFIXES = ['Ltda.', 'SpA', 'S.A.', 'E.I.R.L.', 'y Cía. Ltda.', 'Hermanos Ltda.'];
const FIRST_NAMES = [
  'María José',
  'José Luis',
  'Ángela',
  'Sebastián',
  'Begoña',
  'Martín',
  'Inés',
  'Tomás',
  'Sofía',
  'Joaquín',
  'Valentina',
  'Cristóbal',
  'Ignacio',
  'Benjamín',
  'Josefa',
  'Matías',
  'Andrés',
  'Camila',
  'Agustín',
  'Belén',
];

/** Deterministic PRNG (mulberry32), so every run seeds the same receivers. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Receiver {
  rut: string;
  name: string;
}

/**
 * Receiver 0 is the SII's generic boleta customer (no name, as issuing stores it); then
 * `persons` people (boletas with a named customer) and `companies` companies.
 */
function receivers(persons: number, companies: number): { list: Receiver[]; persons: number; companies: number } {
  const rnd = prng(20261122);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const used = new Set<number>();
  const rut = (min: number, span: number) => {
    for (;;) {
      const body = min + Math.floor(rnd() * span);
      if (used.has(body)) continue;
      used.add(body);
      return `${body}-${computeDv(body)}`;
    }
  };
  const list: Receiver[] = [{ rut: GENERIC_BOLETA_RUT, name: '' }];
  for (let i = 0; i < persons; i++) {
    list.push({ rut: rut(5_000_000, 20_000_000), name: `${pick(FIRST_NAMES)} ${pick(SURNAMES)} ${pick(SURNAMES)}` });
  }
  for (let i = 0; i < companies; i++) {
    const name =
      rnd() < 0.5
        ? `${pick(COMPANY_PREFIXES)} ${pick(SURNAMES)} ${pick(SUFFIXES)}`
        : `${pick(COMPANY_PREFIXES)} ${pick(PLACES)} ${pick(SUFFIXES)}`;
    list.push({ rut: rut(76_000_000, 2_000_000), name });
  }
  return { list, persons, companies };
}

export async function seedDocuments(db: pg.Client, o: SeedOptions): Promise<SeedResult> {
  const log = o.log ?? (() => {});
  const batch = o.batch ?? 100_000;
  const t0 = performance.now();
  const r = receivers(20_000, 30_000);

  await db.query(
    `CREATE TEMP TABLE seed_receivers (i int PRIMARY KEY, rut text NOT NULL, name text NOT NULL, search_text text NOT NULL)`,
  );
  await db.query(`INSERT INTO seed_receivers SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[])`, [
    r.list.map((_, i) => i),
    r.list.map((x) => x.rut),
    r.list.map((x) => x.name),
    // Exactly what issuing stores (src/issuing/issue-document.ts).
    r.list.map((x) => searchable(`${x.rut} ${x.name}`)),
  ]);
  // One template per type: the newest document of that type this issuer really issued.
  await db.query(
    `CREATE TEMP TABLE seed_templates AS
       SELECT DISTINCT ON (type) type, caf_id, vat_rate, request, model, signed_xml, ted
       FROM documents WHERE issuer_id = $1 ORDER BY type, created_at DESC`,
    [o.issuerId],
  );
  const templates = await db.query<{ type: number }>('SELECT type FROM seed_templates');
  const have = new Set(templates.rows.map((t) => t.type));
  const missing = TYPE_SLOTS.map(([t]) => t).filter((t) => !have.has(t));
  if (missing.length) throw new Error(`seed: no issued template document of type ${missing.join(', ')}`);
  // Folios above every real one, so seeded rows never collide with issued documents.
  const { rows: base } = await db.query<{ folio: number }>(
    'SELECT coalesce(max(folio), 0) + 1000 AS folio FROM documents WHERE issuer_id = $1',
    [o.issuerId],
  );
  const folioBase = base[0]!.folio;

  const slots: string[] = [];
  let start = 0;
  for (const [type, n] of TYPE_SLOTS) {
    slots.push(`(${type}, ${start}, ${n})`);
    start += n;
  }
  await db.query(`CREATE TEMP TABLE seed_slots (type int, first int, width int)`);
  await db.query(`INSERT INTO seed_slots VALUES ${slots.join(', ')}`);
  await db.query('SELECT setseed(0.42)');

  const firstPerson = 1;
  const firstCompany = 1 + r.persons;
  for (let lo = 0; lo < o.count; lo += batch) {
    const hi = Math.min(o.count, lo + batch) - 1;
    // Row g is issued on day floor(g·days/count) of the period, between 08:00 and 22:00 in
    // Santiago, so created_at grows with g (the heap is in issuing order, as in production).
    await db.query(
      `WITH rows AS (
         SELECT g,
                s.type,
                $2::int + (g / 100) * s.width + (g % 100 - s.first) AS folio,
                (($3::date - $4::int) + (g::bigint * $4 / $5)::int) AS day,
                ((g::bigint * $4) % $5)::float8 / $5 AS day_fraction,
                random() AS r_receiver, random() AS r_kind, random() AS r_amount,
                random() AS r_estado, random() AS r_backdate
         FROM generate_series($6::int, $7::int) g
         JOIN seed_slots s ON g % 100 >= s.first AND g % 100 < s.first + s.width
       ), shaped AS (
         SELECT rows.*,
                ((day + make_interval(secs => 28800 + day_fraction * 50400))::timestamp
                   AT TIME ZONE 'America/Santiago') AS created,
                -- A few documents carry an earlier date than the day they were issued.
                CASE WHEN r_backdate < 0.03 THEN day - 1 - (r_backdate * 100)::int % 3 ELSE day END AS doc_date,
                CASE
                  WHEN type IN (39, 41) AND r_kind < 0.65 THEN 0
                  WHEN type IN (39, 41) THEN $8::int + floor(r_receiver * $9)::int
                  -- Companies: a few big customers receive most documents.
                  ELSE $10::int + floor(power(r_receiver, 3) * $11)::int
                END AS receiver,
                CASE WHEN type IN (34, 41) THEN 0
                     ELSE 1000 + floor(power(r_amount, 2) * 2000000)::bigint END AS taxable,
                CASE WHEN type IN (34, 41) THEN 500 + floor(power(r_amount, 2) * 500000)::bigint
                     WHEN r_amount < 0.1 THEN 5000 ELSE 0 END AS exempt_amount,
                CASE
                  WHEN day >= $3::date - 2 AND r_estado < 0.15 THEN 'pendiente'
                  WHEN day >= $3::date - 2 AND r_estado < 0.45 THEN 'enviado'
                  WHEN r_estado < 0.90 THEN 'aceptado'
                  WHEN r_estado < 0.95 THEN 'aceptado_con_reparos'
                  WHEN r_estado < 0.97 OR type IN (56, 61) THEN 'rechazado'
                  ELSE 'anulado'
                END AS estado
         FROM rows
       )
       INSERT INTO documents (
         id, issuer_id, environment, type, folio, caf_id, date, receiver_rut, receiver_name,
         search_text, net, exempt, vat, vat_rate, total, request, model, signed_xml, ted,
         public_token, estado_sii, sii_estado, track_id, sii_checked_at, submitted_at,
         submit_attempts, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'live', s.type, s.folio, t.caf_id, s.doc_date, r.rut, r.name,
              r.search_text,
              CASE WHEN s.type = 39 THEN round(s.taxable / 1.19) ELSE s.taxable END,
              s.exempt_amount,
              CASE WHEN s.type = 39 THEN s.taxable - round(s.taxable / 1.19) ELSE round(s.taxable * 0.19) END,
              t.vat_rate,
              CASE WHEN s.type = 39 THEN s.taxable ELSE s.taxable + round(s.taxable * 0.19) END + s.exempt_amount,
              t.request, t.model, t.signed_xml, t.ted,
              encode(uuid_send(gen_random_uuid()), 'base64'),
              s.estado,
              CASE s.estado WHEN 'aceptado' THEN 'DOK' WHEN 'aceptado_con_reparos' THEN 'RLV'
                            WHEN 'rechazado' THEN 'RCH' WHEN 'anulado' THEN 'DOK' END,
              CASE WHEN s.estado <> 'pendiente' THEN (2000000000 + s.g)::text END,
              CASE WHEN s.estado <> 'pendiente' THEN s.created + interval '30 seconds' END,
              CASE WHEN s.estado <> 'pendiente' THEN s.created + interval '1 second' END,
              CASE WHEN s.estado <> 'pendiente' THEN 1 ELSE 0 END,
              s.created, s.created
       FROM shaped s
       JOIN seed_templates t ON t.type = s.type
       JOIN seed_receivers r ON r.i = s.receiver
       ORDER BY s.g`,
      [o.issuerId, folioBase, o.today, o.days, o.count, lo, hi, firstPerson, r.persons, firstCompany, r.companies],
    );
    log(`seeded ${hi + 1} / ${o.count} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  // The trigger left one counter delta per seeded row; a running installation's jobs and list
  // requests fold them as they come, so fold them now (one statement).
  await db.query('SELECT fold_document_counts()');
  // An old table has been vacuumed and analysed by autovacuum long ago; do it now, so the
  // planner has statistics and index-only scans can skip the heap, as in production.
  await db.query(
    'VACUUM (ANALYZE) documents, document_counts, receiver_counts, receiver_search_texts, document_count_deltas',
  );
  // Flush the gigabytes just written now, not in the middle of the measurements that follow.
  await db.query('CHECKPOINT').catch(() => {}); // needs superuser or pg_checkpoint: best effort
  const { rows: size } = await db.query<{ total: string; heap: string }>(
    `SELECT pg_total_relation_size('documents') AS total, pg_relation_size('documents') AS heap`,
  );
  await db.query('DROP TABLE seed_receivers, seed_templates, seed_slots');
  return {
    seconds: (performance.now() - t0) / 1000,
    receivers: r.list.length,
    tableBytes: Number(size[0]!.total),
    heapBytes: Number(size[0]!.heap),
  };
}
