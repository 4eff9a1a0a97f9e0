/**
 * The round trips an issue makes to PostgreSQL (README "Performance and scale-out"): once the
 * instance knows the key, the issuer, its certificate and CAF, a sandbox issue sends two
 * statements — the folio reservation and the one-statement write — however the issuer signs.
 * Every statement any part of the app sends through the pool (Prisma included) is counted.
 */
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
const sent: string[] = [];

/** Records the text of every statement a pool client sends from now on. */
function countStatements(pool: pg.Pool): void {
  const wrapped = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
      return query(...args);
    };
  });
}

beforeAll(async () => {
  t = await buildTestApp();
  countStatements(t.ctx.db.pool);
});

describe('round trips of an issue', () => {
  it('a sandbox issue signed with the generated certificate sends two statements: reservation and write', async () => {
    const { rut, api } = await createTestTenant(t);
    // The first issues meet the key, the issuer, its certificate and its CAF; the change feed
    // delivers the notices of the tenant's creation meanwhile (each drops what it guards), so
    // the steady state may take an issue or two to reach.
    for (let issue = 1; issue <= 5; issue++) {
      sent.length = 0;
      const res = await api.post(`/api/${rut}/emitir`, factura());
      expect(res.statusCode, res.body).toBe(200);
      if (issue > 1 && sent.length <= 2) break;
    }
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/INSERT INTO folio_reservations/);
    expect(sent[1]).toMatch(/INSERT INTO documents/);
  });
});
