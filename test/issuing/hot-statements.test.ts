/**
 * The two statements of every issue (the folio reservation, src/issuing/folios.ts, and the
 * write, src/issuing/document-insert.ts) run as they are with named statements, and as calls of
 * the PL/pgSQL functions that hold the same text where statements cannot be named (behind a
 * transaction pooler: DB_NAMED_STATEMENTS off), so they are planned once per server connection
 * either way. The functions' text must stay the statements' text, and an issue through them
 * must store its document in the same two round trips.
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { INSERT_SQL } from '../../src/issuing/document-insert.ts';
import { RESERVE_SQL } from '../../src/issuing/folios.ts';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

const MIGRATION = 'prisma/migrations/20261127100000_hot_statements_as_functions/migration.sql';
const RESERVE_MIGRATION = 'prisma/migrations/20261127160000_reserve_folios_no_key_lock/migration.sql';

/** The statement a function returns (`RETURN QUERY …;`), whitespace collapsed. */
function functionBody(sql: string, name: string): string {
  const from = sql.search(new RegExp(`CREATE (OR REPLACE )?FUNCTION ${name}\\(`));
  const start = sql.indexOf('RETURN QUERY', from) + 'RETURN QUERY'.length;
  const end = sql.indexOf(';\nEND', start);
  expect(from, name).toBeGreaterThanOrEqual(0);
  return squash(sql.slice(start, end));
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

describe('the hot statements and their PL/pgSQL functions', () => {
  it('hold the same text', () => {
    const sql = readFileSync(MIGRATION, 'utf8');
    expect(functionBody(readFileSync(RESERVE_MIGRATION, 'utf8'), 'timbre_reserve_folios')).toBe(squash(RESERVE_SQL));
    expect(functionBody(sql, 'timbre_insert_document')).toBe(squash(INSERT_SQL));
  });
});

describe('an issue without named statements (as behind PgBouncer)', () => {
  let t: TestApp;
  const sent: string[] = [];

  beforeAll(async () => {
    t = await buildTestApp({ env: { DB_NAMED_STATEMENTS: 'false' } });
    const wrapped = new WeakSet<pg.PoolClient>();
    t.ctx.db.pool.on('acquire', (client) => {
      if (wrapped.has(client)) return;
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { text?: string; name?: string };
        sent.push(typeof first === 'string' ? first : `${first.name ? 'named ' : ''}${first.text}`);
        return query(...args);
      };
    });
  });

  it('calls the two functions, unnamed, and stores the document', async () => {
    const { rut, api } = await createTestTenant(t);
    let folio = 0;
    for (let issue = 1; issue <= 5; issue++) {
      sent.length = 0;
      const res = await api.post(`/api/${rut}/emitir`, factura());
      expect(res.statusCode, res.body).toBe(200);
      folio = res.json().folio;
      if (issue > 1 && sent.length <= 2) break;
    }
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe('SELECT * FROM timbre_reserve_folios($1, $2, $3, $4, $5, $6, $7, $8)');
    expect(sent[1]).toMatch(/^SELECT id FROM timbre_insert_document\(\$1, .*\$35\)$/);
    const stored = await t.ctx.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM documents d JOIN issuers i ON i.id = d.issuer_id WHERE i.rut = $1 AND d.folio = $2',
      [rut, folio],
    );
    expect(stored.rows[0]!.n).toBe(1);
    expect(await t.ctx.db.pool.query('SELECT count(*)::int AS n FROM folio_reservations')).toMatchObject({
      rows: [{ n: 0 }],
    });
  });
});
