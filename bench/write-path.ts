/**
 * `npm run bench:write-path`: what each index and trigger on `documents` costs per insert, in
 * PostgreSQL CPU, and the write path before and after the changes of the migrations named below.
 *
 * A real document is issued through the service in-process (a 10-line factura and a boleta,
 * sandbox), then each measured database is a fresh clone of that one, with PREFILL documents
 * already in it (copies of the issued rows: signed XML, TED, request and model included, over
 * RECEIVERS receivers and the last 90 days). Each measurement inserts INSERTS documents one by
 * one through plain SQL, each in its own transaction (autocommit, as issuing commits one document
 * per transaction), with a statement prepared once and every column sent as a parameter, like
 * the service's insert; 1 in 10 goes to a receiver the issuer never had. The backend's CPU time
 * (user + system, ns) is read from /proc/<pid>/schedstat before and after, so the figure is PostgreSQL's
 * own work for the inserts: parsing the values, the heap and TOAST writes, every index, every
 * trigger, WAL and commit (the other PostgreSQL processes — WAL writer, checkpointer,
 * autovacuum — are reported apart). Each variant is measured ROUNDS times, each time paired with
 * a measurement of the reference schema in random order, and reported as the median of the
 * paired differences, because the machine is shared and drifts.
 *
 * Variants: the schema as it was before this work ("before": the migrations up to BEFORE), the
 * same without each index or trigger in turn, and the schema of every migration ("after").
 * Options (env): WRITE_PATH_INSERTS (default 2000), WRITE_PATH_ROUNDS (3), WRITE_PATH_PREFILL
 * (10000), WRITE_PATH_ONLY (variant labels separated by |, to re-run a few), WRITE_PATH_REPORT
 * (1: rewrite the "Write path" section of BENCHMARKS.md).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { pino } from 'pino';
import { createApiKey } from '../src/admin/api-keys.ts';
import { createIssuer } from '../src/admin/issuers.ts';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { ensureEmbeddedPostgres } from '../src/db/embedded.ts';
import { applyMigrations, MIGRATIONS_DIR } from '../src/db/migrate.ts';
import { dateOfInstantInSantiago } from '../src/dte/chile-time.ts';
import { computeDv } from '../src/dte/rut.ts';
import { searchable } from '../src/events/document-view.ts';
import { BENCH_ISSUER, BENCH_RECEIVER } from './fixtures.ts';

const INSERTS = Number(process.env.WRITE_PATH_INSERTS ?? 2000);
const ROUNDS = Number(process.env.WRITE_PATH_ROUNDS ?? 3);
const PREFILL = Number(process.env.WRITE_PATH_PREFILL ?? 10_000);
const RECEIVERS = 2000;
const ONLY = process.env.WRITE_PATH_ONLY?.split('|').map((s) => s.trim());
/** The last migration of the schema measured as "before". */
const BEFORE = '20261123135429_events_webhooks_email';

interface Variant {
  label: string;
  base: 'before' | 'after';
  /** SQL applied to the clone before measuring. */
  sql?: string;
}

/** The insert trigger with only some of its three statements (document_counts, receiver_counts, receiver_search_texts). */
function insertTriggerWith(parts: Array<'document_counts' | 'receiver_counts' | 'receiver_search_texts'>): string {
  const stmts: Record<(typeof parts)[number], string> = {
    document_counts: `INSERT INTO "document_counts" AS c ("issuer_id", "grain", "period", "type", "estado_sii", "shard", "count")
      SELECT d."issuer_id", p.grain, p.period, d."type", d."estado_sii", "documents_count_shard"(), count(*)
      FROM new_documents d
      CROSS JOIN LATERAL (VALUES ('day'::"CountGrain", d."date"),
                                 ('month'::"CountGrain", date_trunc('month', d."date"::timestamp)::date)) AS p (grain, period)
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("issuer_id", "grain", "period", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";`,
    receiver_counts: `INSERT INTO "receiver_counts" AS c ("issuer_id", "search_text", "type", "estado_sii", "shard", "count")
      SELECT "issuer_id", "search_text", "type", "estado_sii", "documents_count_shard"(), count(*)
      FROM new_documents GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
      ON CONFLICT ("issuer_id", "search_text", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";`,
    receiver_search_texts: `INSERT INTO "receiver_search_texts" ("issuer_id", "search_text")
      SELECT DISTINCT "issuer_id", "search_text" FROM new_documents ORDER BY 1, 2 ON CONFLICT DO NOTHING;`,
  };
  return `CREATE OR REPLACE FUNCTION "documents_count_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${parts.map((p) => stmts[p]).join('\n')} RETURN NULL; END $$;`;
}

const SECONDARY_INDEXES = [
  'documents_public_token_key',
  'documents_issuer_id_receiver_rut_idx',
  'documents_issuer_id_date_created_at_id_idx',
  'documents_issuer_id_type_date_created_at_id_idx',
  'documents_issuer_id_estado_sii_date_created_at_id_idx',
  'documents_issuer_id_type_estado_sii_date_created_at_id_idx',
  'documents_issuer_id_search_text_idx',
];

/** An insert-only delta table (no index) for the counter variants. */
const DELTA_TABLE = `CREATE TABLE wp_deltas (issuer_id uuid NOT NULL, date date NOT NULL, type int NOT NULL,
  estado_sii text NOT NULL, search_text text NOT NULL, delta int NOT NULL);`;

const VARIANTS: Variant[] = [
  { label: 'before: every index and trigger', base: 'before' },
  ...SECONDARY_INDEXES.map((ix) => ({
    label: `before without ${ix}`,
    base: 'before' as const,
    sql: `DROP INDEX "${ix}"`,
  })),
  {
    label: 'before without the insert trigger (no counters)',
    base: 'before',
    sql: 'DROP TRIGGER "documents_count_insert" ON "documents"',
  },
  {
    label: 'before, trigger without document_counts',
    base: 'before',
    sql: insertTriggerWith(['receiver_counts', 'receiver_search_texts']),
  },
  {
    label: 'before, trigger without receiver_counts',
    base: 'before',
    sql: insertTriggerWith(['document_counts', 'receiver_search_texts']),
  },
  {
    label: 'before, trigger without receiver_search_texts',
    base: 'before',
    sql: insertTriggerWith(['document_counts', 'receiver_counts']),
  },
  {
    label: 'before, counters as deltas (row trigger, one insert)',
    base: 'before',
    sql: `${DELTA_TABLE}
      DROP TRIGGER "documents_count_insert" ON "documents";
      CREATE FUNCTION wp_delta() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO wp_deltas VALUES (NEW.issuer_id, NEW.date, NEW.type, NEW.estado_sii, NEW.search_text, 1);
        RETURN NULL; END $$;
      CREATE TRIGGER wp_delta AFTER INSERT ON documents FOR EACH ROW EXECUTE FUNCTION wp_delta();`,
  },
  {
    label: 'before, counters as deltas (statement trigger, one insert)',
    base: 'before',
    sql: `${DELTA_TABLE}
      CREATE OR REPLACE FUNCTION "documents_count_insert"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO wp_deltas SELECT issuer_id, date, type, estado_sii, search_text, 1 FROM new_documents;
        RETURN NULL; END $$;`,
  },
  {
    label: 'before without the two foreign keys',
    base: 'before',
    sql: 'ALTER TABLE "documents" DROP CONSTRAINT "documents_issuer_id_fkey", DROP CONSTRAINT "documents_caf_id_fkey"',
  },
  {
    // lz4 would be the other candidate, but the embedded PostgreSQL is built without it.
    label: 'before with signed_xml stored uncompressed (STORAGE EXTERNAL)',
    base: 'before',
    sql: 'ALTER TABLE "documents" ALTER COLUMN "signed_xml" SET STORAGE EXTERNAL',
  },
  {
    label: 'before with the default toast_tuple_target (2032 instead of 512)',
    base: 'before',
    sql: 'ALTER TABLE "documents" RESET (toast_tuple_target)',
  },
  {
    label: 'floor: primary key and folio key only (no trigger or foreign key)',
    base: 'before',
    sql: `${SECONDARY_INDEXES.map((ix) => `DROP INDEX "${ix}";`).join('\n')}
          DROP TRIGGER "documents_count_insert" ON "documents";
          ALTER TABLE "documents" DROP CONSTRAINT "documents_issuer_id_fkey", DROP CONSTRAINT "documents_caf_id_fkey";`,
  },
  { label: 'after: every migration', base: 'after' },
];

/** What the write_path migration changed, and why, from these measurements. */
const CHANGES_NOTE = `What the migration \`20261123155917_write_path\` changed ("after"), from these figures:

- **The counters' trigger was the largest single cost of an insert.** The statement-level trigger built a transition table and ran three upserts (day and month counters, receiver counter, receiver search row) for every document. It is replaced by a row trigger that appends one row to \`document_count_deltas\` (no index, no shared row to lock) and writes a receiver's search row only when the receiver is new (a primary-key probe otherwise), and \`fold_document_counts()\` moves the deltas into the counters in batches (the jobs' sweep, every list request). Every count reads counters plus pending deltas in one statement, so \`total\` stays exact (test/issuing/count-deltas.test.ts races writers against folds). The counters lost their 8 per-connection shards (rows summed into one per key): no writer contends on them any more, and the list sums up to 8 times fewer rows.
- **Indexes no query uses are gone**: \`documents_public_token_key\` (the token is random, and a download finds its document by issuer, type and folio before comparing it); the \`(issuer_id, receiver_rut)\` index became a partial index on credit notes (\`WHERE type = 61\`, the one query that uses it: how much of a document is already credited), and a partial index on \`voided_by_id\` (only voided documents have one; a debit note restoring what a credit note voided used to scan the table). Partial indexes cost the other documents' inserts nothing.
- **Kept**: the four ordered list indexes and \`(issuer_id, search_text, …)\`: each is a page or count of the 1 M-document list targets (BENCHMARKS "Listing"), and each costs a small share of the insert (its WAL is its write volume); the two foreign keys and \`toast_tuple_target\` (no difference beyond the noise). Storing \`signed_xml\` uncompressed (\`STORAGE EXTERNAL\`) saves about as much CPU as the counters' trigger did (pglz compressing ~10 KB of XML on every insert) but writes ~4.5 KB more WAL and heap per document; not done here: on a PostgreSQL built with lz4 (the embedded one is not), \`ALTER TABLE documents ALTER COLUMN signed_xml SET COMPRESSION lz4\` should get most of that CPU back at about the same size — the next step for whoever deploys on such a server. The rest of the issuing transaction (the event row, the reservation, what the insert sends) is the persist stage's, outside this measurement.`;

interface Template {
  issuerId: string;
  cafId: string;
  type: number;
  vatRate: number;
  request: string;
  model: string;
  signedXml: Buffer;
  ted: string;
}

interface Receiver {
  rut: string;
  name: string;
  searchText: string;
}

function receiverList(n: number, offset: number): Receiver[] {
  const kinds = ['Comercial', 'Ferretería', 'Distribuidora', 'Inversiones', 'Constructora', 'Panadería'];
  const names = ['Muñoz', 'Núñez', 'Peña', 'Ibáñez', 'Villagrán', 'Sepúlveda', 'Zúñiga', 'Cárdenas'];
  const suffixes = ['Ltda.', 'SpA', 'S.A.', 'E.I.R.L.'];
  return Array.from({ length: n }, (_, i) => {
    const body = 76_000_000 + offset + i * 37;
    const rut = `${body}-${computeDv(body)}`;
    const name = `${kinds[i % kinds.length]} ${names[(i >> 3) % names.length]} ${i + offset} ${suffixes[i % 4]}`;
    return { rut, name, searchText: searchable(`${rut} ${name}`) };
  });
}

/** Applies the migrations up to `last` (all when undefined) to `url`. */
async function migrate(url: string, last?: string): Promise<void> {
  if (!last) {
    await applyMigrations(url);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'timbre-migrations-'));
  try {
    for (const name of readdirSync(MIGRATIONS_DIR)) {
      if (name <= last || name === 'migration_lock.toml')
        cpSync(join(MIGRATIONS_DIR, name), join(dir, name), { recursive: true });
    }
    await applyMigrations(url, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One issuer, a 10-line factura and a boleta really issued through the service (sandbox). */
async function issueTemplates(url: string, dataDir: string): Promise<Template[]> {
  const config = parseConfig({ TIMBRE_DATA_DIR: dataDir, DATABASE_URL: url, JOBS_ENABLED: 'false', LOG_LEVEL: 'warn' });
  const db = await openDatabase(config, { url, migrate: false, poolMax: 4 });
  const app = await buildApp({ config, db, logger: pino({ level: 'warn' }) });
  await app.ready();
  try {
    const { vatRate: _vatRate, ...fields } = BENCH_ISSUER;
    const issuer = await createIssuer(app.ctx, fields);
    const { key } = await createApiKey(app.ctx, { rut: issuer.rut, role: 'owner' });
    const receiver = BENCH_RECEIVER;
    const bodies = [
      {
        type: 33,
        receiver,
        items: Array.from({ length: 10 }, (_, i) => ({
          name: `Artículo de ferretería Nº ${i + 1}`,
          qty: i + 1,
          price: 1350 + i * 10,
        })),
      },
      { type: 39, items: [{ name: 'Café orgánico ½ kg', qty: 2, price: 6990 }] },
    ];
    for (const payload of bodies) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: { authorization: `Bearer ${key}` },
        payload,
      });
      if (res.statusCode !== 200) throw new Error(`issuing a template: ${res.statusCode} ${res.body}`);
    }
  } finally {
    await app.close();
    await db.close();
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(
      `SELECT issuer_id, caf_id, type, vat_rate, request::text, model::text, signed_xml, ted FROM documents ORDER BY type`,
    );
    return rows.map((r) => ({
      issuerId: r.issuer_id,
      cafId: r.caf_id,
      type: r.type,
      vatRate: r.vat_rate,
      request: r.request,
      model: r.model,
      signedXml: r.signed_xml,
      ted: r.ted,
    }));
  } finally {
    await c.end();
  }
}

/** PREFILL copies of the issued documents over RECEIVERS receivers and 90 days, through the triggers. */
async function prefill(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const rs = receiverList(RECEIVERS, 0);
    await c.query('CREATE TEMP TABLE r (i int, rut text, name text, search_text text)');
    await c.query('INSERT INTO r SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[])', [
      rs.map((_, i) => i),
      rs.map((x) => x.rut),
      rs.map((x) => x.name),
      rs.map((x) => x.searchText),
    ]);
    await c.query(
      `INSERT INTO documents (id, issuer_id, environment, type, folio, caf_id, date, receiver_rut, receiver_name,
         search_text, net, exempt, vat, vat_rate, total, request, model, signed_xml, ted, public_token, estado_sii,
         created_at, updated_at)
       SELECT gen_random_uuid(), t.issuer_id, t.environment, t.type, 1000000 + g, t.caf_id,
              current_date - (90 - g * 90 / $1), r.rut, r.name, r.search_text, 10000, 0, 1900, 19, 11900,
              t.request, t.model, t.signed_xml, t.ted, encode(uuid_send(gen_random_uuid()), 'base64'),
              (ARRAY['aceptado', 'aceptado', 'aceptado', 'local', 'rechazado'])[1 + g % 5],
              now() - make_interval(days => 90 - g * 90 / $1), now()
       FROM generate_series(1, $1) g
       JOIN (SELECT *, row_number() OVER (ORDER BY type) - 1 AS k FROM documents) t ON t.k = g % 2
       JOIN r ON r.i = (g * 7919) % ${RECEIVERS}`,
      [PREFILL],
    );
    await c.query('VACUUM (ANALYZE)');
    await c.query('CHECKPOINT').catch(() => {});
  } finally {
    await c.end();
  }
}

/**
 * CPU time of a process in ms: /proc/<pid>/schedstat's first field (ns on the CPU, user and
 * system), finer than the 10 ms ticks of /proc/<pid>/stat.
 */
function procCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

function procParent(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** CPU ms of every child of the postmaster except `exclude` (WAL writer, checkpointer, autovacuum…). */
function otherPostgresCpuMs(postmaster: number, exclude: number): number {
  let sum = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === exclude) continue;
    try {
      if (procParent(Number(p)) === postmaster) sum += procCpuMs(Number(p));
    } catch {}
  }
  return sum;
}

interface Measure {
  backendMs: number;
  othersMs: number;
  wallMs: number;
  /** WAL written per insert (the whole cluster's, but nothing else writes during a run). */
  walBytes: number;
  /** CPU per document of folding the run's counter deltas afterwards (null: no deltas table). */
  foldMs: number | null;
}

/** INSERTS single-document transactions into a fresh clone; CPU per insert. */
async function measure(url: string, templates: Template[], round: number): Promise<Measure> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SET synchronous_commit = off');
    const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const postmaster = procParent(pid);
    const known = receiverList(RECEIVERS, 0);
    const fresh = receiverList(INSERTS + 50, 10_000_000 + round * 100_000);
    const env = (await c.query<{ environment: string }>('SELECT environment FROM documents LIMIT 1')).rows[0]!
      .environment;
    const sql = `INSERT INTO documents (id, issuer_id, environment, type, folio, caf_id, date, receiver_rut,
        receiver_name, search_text, net, exempt, vat, vat_rate, total, request, model, signed_xml, ted,
        public_token, estado_sii, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $22)`;
    const today = dateOfInstantInSantiago(new Date());
    const insert = (i: number) => {
      const t = templates[i % templates.length]!;
      const r = i % 10 === 9 ? fresh[i]! : known[(i * 7919) % RECEIVERS]!;
      return c.query({
        name: 'insert_document',
        text: sql,
        values: [
          randomUUID(),
          t.issuerId,
          env,
          t.type,
          2_000_000 + i,
          t.cafId,
          today,
          r.rut,
          r.name,
          r.searchText,
          10_000 + i,
          0,
          1900,
          t.vatRate,
          11_900 + i,
          t.request,
          t.model,
          t.signedXml,
          t.ted,
          randomBytes(24).toString('base64url'),
          'local',
          new Date(),
        ],
      });
    };
    for (let i = 0; i < 50; i++) await insert(INSERTS + i); // warm-up: plan, caches
    const lsn = async () =>
      (await c.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn;
    const w0 = await lsn();
    const b0 = procCpuMs(pid);
    const o0 = otherPostgresCpuMs(postmaster, pid);
    const t0 = performance.now();
    for (let i = 0; i < INSERTS; i++) await insert(i);
    const wallMs = performance.now() - t0;
    const b1 = procCpuMs(pid);
    const o1 = otherPostgresCpuMs(postmaster, pid);
    const w1 = await lsn();
    const walBytes = Number(
      (await c.query<{ n: string }>('SELECT pg_wal_lsn_diff($1, $2)::bigint AS n', [w1, w0])).rows[0]!.n,
    );
    // With counter deltas, the work left for later: folding this run's deltas, per document.
    let foldMs: number | null = null;
    if ((await c.query(`SELECT to_regproc('fold_document_counts') IS NOT NULL AS yes`)).rows[0].yes) {
      await c.query('SELECT fold_document_counts()');
      foldMs = (procCpuMs(pid) - b1) / INSERTS;
    }
    return {
      backendMs: (b1 - b0) / INSERTS,
      othersMs: (o1 - o0) / INSERTS,
      wallMs: wallMs / INSERTS,
      walBytes: walBytes / INSERTS,
      foldMs,
    };
  } finally {
    await c.end();
  }
}

/** Deterministic PRNG (mulberry32): the same shuffles every run. */
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

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

async function main() {
  const started = new Date();
  const dataDir = resolve('.data-bench');
  const stamp = Date.now();
  const pgHandle = await ensureEmbeddedPostgres(dataDir, { database: `wp_${stamp}_before` });
  const admin = new pg.Client({ connectionString: pgHandle.adminUrl });
  await admin.connect();
  const urlOf = (name: string) => {
    const u = new URL(pgHandle.adminUrl);
    u.pathname = `/${name}`;
    return u.toString();
  };
  // Databases an interrupted earlier run left behind (they hold the prefilled documents).
  const { rows: stale } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE 'wp\\_%' AND datname NOT LIKE $1`,
    [`wp_${stamp}_%`],
  );
  for (const { datname } of stale) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  const created: string[] = [`wp_${stamp}_before`];
  try {
    await admin.query(`CREATE DATABASE "wp_${stamp}_after"`);
    created.push(`wp_${stamp}_after`);
    const templates: Record<'before' | 'after', Template[]> = { before: [], after: [] };
    for (const base of ['before', 'after'] as const) {
      const url = urlOf(`wp_${stamp}_${base}`);
      console.log(`${base}: migrating, issuing the templates, prefilling ${PREFILL} documents…`);
      await migrate(url, base === 'before' ? BEFORE : undefined);
      templates[base] = await issueTemplates(url, dataDir);
      await prefill(url);
    }
    const reference = VARIANTS[0]!;
    const variants = VARIANTS.slice(1).filter((v) => !ONLY || ONLY.includes(v.label));
    const run = async (v: Variant, round: number): Promise<Measure> => {
      const name = `wp_${stamp}_m`;
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "wp_${stamp}_${v.base}" STRATEGY FILE_COPY`);
      try {
        const url = urlOf(name);
        if (v.sql) {
          const c = new pg.Client({ connectionString: url });
          c.on('error', () => {});
          await c.connect();
          try {
            await c.query(v.sql);
          } finally {
            await c.end();
          }
        }
        const m = await measure(url, templates[v.base], round);
        console.log(
          `round ${round + 1} ${v.label}: backend ${m.backendMs.toFixed(3)} ms, others ${m.othersMs.toFixed(3)} ms, wall ${m.wallMs.toFixed(3)} ms${m.foldMs === null ? '' : `, fold ${m.foldMs.toFixed(3)} ms`}`,
        );
        return m;
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }
    };
    // Paired: each measurement of a variant next to one of the reference, in random order, so
    // the machine's drift (other people's test suites) falls on both; the figure per variant is
    // the median of its paired differences.
    const rnd = prng(20261123);
    const results = new Map<string, Array<{ m: Measure; ref: Measure }>>();
    const refs: Measure[] = [];
    const loadBefore = loadavg();
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...variants].sort(() => rnd() - 0.5);
      for (const v of order) {
        const first = rnd() < 0.5;
        const a = await run(first ? reference : v, round);
        const b = await run(first ? v : reference, round);
        const [ref, m] = first ? [a, b] : [b, a];
        refs.push(ref);
        results.set(v.label, [...(results.get(v.label) ?? []), { m, ref }]);
      }
    }
    const loadAfter = loadavg();
    const fmtDelta = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
    const rows = [
      `| ${reference.label} | ${median(refs.map((m) => m.backendMs)).toFixed(3)} | — | ${median(refs.map((m) => m.walBytes)).toFixed(0)} | — | ${median(refs.map((m) => m.othersMs)).toFixed(3)} | ${median(refs.map((m) => m.wallMs)).toFixed(2)} | ${refs.length} runs |`,
      ...variants.map((v) => {
        const pairs = results.get(v.label)!;
        const deltas = pairs.map((p) => p.m.backendMs - p.ref.backendMs);
        const wal = median(pairs.map((p) => p.m.walBytes));
        const walRef = median(pairs.map((p) => p.ref.walBytes));
        return `| ${v.label} | ${median(pairs.map((p) => p.m.backendMs)).toFixed(3)} | **${fmtDelta(median(deltas))}** | ${wal.toFixed(0)} | ${wal - walRef >= 0 ? '+' : ''}${(wal - walRef).toFixed(0)} | ${median(pairs.map((p) => p.m.othersMs)).toFixed(3)} | ${median(pairs.map((p) => p.m.wallMs)).toFixed(2)} | ${deltas.map(fmtDelta).join(' / ')} |`;
      }),
    ];
    const folds = [...results.values()]
      .flatMap((ps) => ps.map((p) => p.m.foldMs))
      .filter((x): x is number => x !== null);
    const foldNote = folds.length
      ? `\nFolding the counter deltas afterwards (\`fold_document_counts()\`, one statement for a run's ${INSERTS} deltas, on the "after" schema): **${median(folds).toFixed(3)} ms** of PostgreSQL CPU per document (median of ${folds.length}), paid once per batch by the jobs' sweep or a list request, off the issuing path.\n`
      : '';
    const fmt = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
    const section = `## Write path: what each index and trigger costs

Measured on ${dateOfInstantInSantiago(started)} with \`npm run bench:write-path\` (bench/write-path.ts); load average (1 / 5 / 15 min) ${fmt(loadBefore)} before, ${fmt(loadAfter)} after. ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, embedded PostgreSQL 18 (default settings). Each figure: ${INSERTS} documents inserted one per transaction through plain SQL (one prepared INSERT, every column a parameter, as issuing sends them) into a fresh database already holding ${PREFILL.toLocaleString('en')} documents over ${RECEIVERS.toLocaleString('en')} receivers; the rows are copies of a 10-line factura and a boleta really issued through the service in the same run (signed XML, TED, request, model), dated today, 1 in 10 to a receiver the issuer never had. **CPU per insert** is the PostgreSQL backend's time on the CPU from \`/proc/<pid>/schedstat\` (ns), divided by the inserts: everything PostgreSQL does for them, parse, heap and TOAST, indexes, triggers, WAL, commit. The other PostgreSQL processes (WAL writer, checkpointer, autovacuum) are in their own column. Each variant was measured ${ROUNDS} times, each time next to a measurement of the "before" schema (in random order, variants shuffled per round): "vs before" is the median of those paired differences (each pair's in the last column), which cancels most of the shared machine's drift; the absolute figures are medians too. The WAL written per insert (\`pg_current_wal_insert_lsn()\` before and after) does not depend on the machine's load: it shows each index's and trigger's write volume even where the CPU differences drown in the noise. Sessions commit with \`synchronous_commit = off\`, so a run is not paced by the disk's fsync (the WAL writer then flushes: its CPU is in "other PG processes").

| variant | CPU per insert ms | vs before (paired) ms | WAL per insert bytes | WAL vs before | other PG processes ms | wall per insert ms | paired differences (CPU ms) |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
${foldNote}
${CHANGES_NOTE}
`;
    console.log(section);
    if (process.env.WRITE_PATH_REPORT === '1') writeSection(section);
  } finally {
    for (const name of created) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
    await admin.end();
    await pgHandle.release();
  }
}

/** Replaces (or appends) this section in BENCHMARKS.md, keeping every other section as it is. */
function writeSection(section: string): void {
  const path = 'BENCHMARKS.md';
  const md = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const title = '## Write path: what each index and trigger costs';
  const chunks = md.split(/\n(?=## )/);
  const i = chunks.findIndex((c) => c.startsWith(title));
  if (i >= 0) chunks[i] = section.trimEnd();
  else chunks.push(section.trimEnd());
  writeFileSync(path, `${chunks.join('\n')}\n`);
  execFileSync('npx', ['biome', 'format', '--write', path], { stdio: 'ignore' });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
