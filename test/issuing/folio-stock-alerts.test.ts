/**
 * The folio stock check of src/issuing/folio-alerts.ts under the alert threshold: it runs in a
 * transaction of the issue's own (no shared commit), so it runs only when it can have something
 * new to record (`folios.low` once per crossing, `folios.exhausted` at 0), not on every issue of a
 * run-down range. No jobs in this app: every transaction counted is an issue's.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { RECEIVER } from '../helpers/requests.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

describe('the folio stock check under the threshold', () => {
  it('under the threshold, only the issue that crosses it, the one that empties the stock and one after a new range check the stock in a transaction of their own', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const key = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut, 'owner')}` };
    const range = (cantidad: number) =>
      t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/folios_sii`,
        headers: key,
        payload: { tipo_dte: 34, cantidad },
      });
    const issue = async (type: 33 | 34) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: key,
        payload: { type, receiver: RECEIVER, items: [{ name: 'Asesoría', qty: 1, price: 1000 }] },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    const issue34 = () => issue(34);
    expect((await range(6)).statusCode).toBe(200);
    // The issuer's first issue sets it up (its sandbox certificate, type 33's range): done before counting.
    await issue(33);
    const transactions = vi.spyOn(t.ctx.db.prisma, '$transaction');
    try {
      // Threshold 20: every issue of this range is under it. The first records folios.low; the
      // next four find nothing new (5 → 1 left); the sixth empties the range (folios.exhausted).
      const perIssue: number[] = [];
      for (let i = 0; i < 6; i++) {
        const before = transactions.mock.calls.length;
        await issue34();
        perIssue.push(transactions.mock.calls.length - before);
      }
      // (The first also runs the first use of the range's key material.)
      expect(perIssue[0]).toBeGreaterThanOrEqual(1);
      expect(perIssue.slice(1)).toEqual([0, 0, 0, 0, 1]);
      // A new range that still leaves the stock under the threshold is a new crossing: checked
      // again (its second folios.low below), besides the first use of the new range's key.
      expect((await range(3)).statusCode).toBe(200);
      const before = transactions.mock.calls.length;
      await issue34();
      expect(transactions.mock.calls.length - before).toBeGreaterThanOrEqual(1);
      const again = transactions.mock.calls.length;
      await issue34();
      expect(transactions.mock.calls.length - again).toBe(0);
    } finally {
      transactions.mockRestore();
    }
    const events = await t.ctx.db.prisma.event.findMany({
      where: { issuerId: issuer.id, type: { startsWith: 'folios.' } },
    });
    expect(events.map((e) => e.type).sort()).toEqual(['folios.exhausted', 'folios.low', 'folios.low']);
  });
});
