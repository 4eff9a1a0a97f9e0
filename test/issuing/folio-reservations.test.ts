/**
 * Folio reservations (src/issuing/folios.ts): a folio taken for a document that is never
 * stored comes back — at once when the request fails, after its lease when the request's
 * process died — and a request that outlived its lease cannot store a document under a folio
 * somebody else now holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { confirmReservation, ensureSandboxCaf, releaseReservation, reserveFolio } from '../../src/issuing/folios.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

const LEASE_MS = 300;
let t: TestApp;
let issuer: Issuer;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await buildTestApp({ env: { FOLIO_LEASE_MS: String(LEASE_MS) } });
  issuer = await createTestIssuer(t.ctx);
  auth = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut)}` };
  await ensureSandboxCaf(t.ctx, issuer, 33);
});

afterAll(async () => {
  await t.close();
});

const input = () => ({ issuerId: issuer.id, environment: 'sandbox' as const, type: 33 as const, today: '2026-11-22' });

async function issueFolio(): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${issuer.rut}/emitir`,
    headers: auth,
    payload: factura(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().folio;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('folio reservations', () => {
  it('a released folio is the next one handed out', async () => {
    const first = await issueFolio();
    const r = await reserveFolio(t.ctx, input());
    expect(r.folio).toBe(first + 1);
    await releaseReservation(t.ctx, r);
    expect(await issueFolio()).toBe(first + 1);
    expect(await issueFolio()).toBe(first + 2);
  });

  it('a reservation abandoned by a dead request is reused once its lease expires, not before', async () => {
    const abandoned = await reserveFolio(t.ctx, input());
    // Within the lease the folio stays with its owner: the next document takes the next one.
    const during = await issueFolio();
    expect(during).toBe(abandoned.folio + 1);
    await sleep(LEASE_MS + 100);
    expect(await issueFolio()).toBe(abandoned.folio);
    expect(await t.ctx.db.prisma.folioReservation.count({ where: { issuerId: issuer.id } })).toBe(0);
  });

  it('a request that outlived its lease cannot confirm a folio another request took over', async () => {
    const slow = await reserveFolio(t.ctx, input());
    await sleep(LEASE_MS + 100);
    const taker = await reserveFolio(t.ctx, input());
    expect(taker.folio).toBe(slow.folio);
    const confirmedBySlow = await t.ctx.db.prisma.$transaction((tx) => confirmReservation(tx, slow));
    expect(confirmedBySlow).toBe(false);
    // The taker's request fails in turn: the folio goes back and the next document gets it.
    await releaseReservation(t.ctx, taker);
    expect(await issueFolio()).toBe(slow.folio);
  });

  it('folios stay one contiguous block through all of it, and nothing stays reserved', async () => {
    const docs = await t.ctx.db.prisma.document.findMany({ where: { issuerId: issuer.id }, orderBy: { folio: 'asc' } });
    const caf = await t.ctx.db.prisma.caf.findFirstOrThrow({ where: { issuerId: issuer.id, type: 33 } });
    expect(docs.map((d) => d.folio)).toEqual(Array.from({ length: caf.nextFolio - 1 }, (_, i) => i + 1));
    expect(await t.ctx.db.prisma.folioReservation.count({ where: { issuerId: issuer.id } })).toBe(0);
  });
});
