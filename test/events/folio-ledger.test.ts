/**
 * The folio ledger of GET /api/{rut}/folios (used, reserved, available, expiry, status, folios
 * to annul) and the per-type low-stock threshold set with `issuer update --folio-alert`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.ts';
import { reserveFolio } from '../../src/issuing/folios.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { RECEIVER } from '../helpers/requests.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

afterAll(async () => {
  await t?.close();
});

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--json'], {
    env: {
      DATABASE_URL: t.db.url,
      TIMBRE_MASTER_KEY: t.config.TIMBRE_MASTER_KEY,
      TIMBRE_DATA_DIR: t.config.dataDir,
      LOG_LEVEL: 'silent',
    },
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
  });
  return { code, stdout, stderr };
}

describe('folio ledger', () => {
  it('shows used, reserved, available, status and the unused folios of expired ranges to annul', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const auth = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut, 'owner')}` };
    const range = (cantidad: number) =>
      t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/folios_sii`,
        headers: auth,
        payload: { tipo_dte: 34, cantidad },
      });
    expect((await range(5)).statusCode).toBe(200); // 1..5
    expect((await range(10)).statusCode).toBe(200); // 6..15
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: auth,
        payload: { type: 34, receiver: RECEIVER, items: [{ name: 'Asesoría', qty: 1, price: 1000 }] },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    // A request building its document holds folio 4.
    await reserveFolio(t.ctx, { issuerId: issuer.id, environment: 'sandbox', type: 34, today: '2026-01-01' });
    // The first range expired (as a live 33/46/56/61 range does 180 days after FA).
    await t.ctx.db.prisma.caf.updateMany({
      where: { issuerId: issuer.id, type: 34, rangeFrom: 1 },
      data: { expiresAt: new Date('2020-01-01T00:00:00Z') },
    });
    const res = await t.app.inject({ method: 'GET', url: `/api/${issuer.rut}/folios`, headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    const type34 = res.json().data.find((d: { type: number }) => d.type === 34);
    expect(type34.ranges).toEqual([
      expect.objectContaining({
        from: 1,
        to: 5,
        next: 5,
        used: 3,
        reserved: 1,
        available: 0,
        expires_at: '2020-01-01',
        expired: true,
        status: 'expired',
        to_annul: [{ from: 5, to: 5, count: 1 }],
      }),
      expect.objectContaining({ from: 6, to: 15, used: 0, reserved: 0, available: 10, status: 'active', to_annul: [] }),
    ]);
    expect(type34.available).toBe(10);
    expect(type34.to_annul).toEqual([{ from: 5, to: 5, count: 1 }]);
    expect(type34.low_threshold).toBe(20);
  });

  it('issuer update --folio-alert sets the threshold per type; default restores it; bad values fail', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const set = await cli('issuer', 'update', '--rut', issuer.rut, '--folio-alert', '34=3', '--folio-alert', '33=500');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).folio_alerts).toEqual({ '33': 500, '34': 3 });
    const reset = await cli('issuer', 'update', '--rut', issuer.rut, '--folio-alert', '33=default');
    expect(JSON.parse(reset.stdout).folio_alerts).toEqual({ '34': 3 });
    const bad = await cli('issuer', 'update', '--rut', issuer.rut, '--folio-alert', '99=5');
    // README: "1 refused, 2 usage": a value the service refuses, and a flag written wrong.
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('99 is not a document type');
    const malformed = await cli('issuer', 'update', '--rut', issuer.rut, '--folio-alert', '33');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--folio-alert takes TYPE=N or TYPE=default');

    // With threshold 3 on a 5-folio range, folios.low fires when 2 are left, once.
    const auth = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut, 'owner')}` };
    await t.app.inject({
      method: 'POST',
      url: `/api/${issuer.rut}/folios_sii`,
      headers: auth,
      payload: { tipo_dte: 34, cantidad: 5 },
    });
    const lows: number[] = [];
    for (let i = 0; i < 4; i++) {
      await t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: auth,
        payload: { type: 34, receiver: RECEIVER, items: [{ name: 'Asesoría', qty: 1, price: 1000 }] },
      });
      lows.push(await t.ctx.db.prisma.event.count({ where: { issuerId: issuer.id, type: 'folios.low' } }));
    }
    expect(lows).toEqual([0, 0, 1, 1]);
    const ledger = await t.app.inject({ method: 'GET', url: `/api/${issuer.rut}/folios`, headers: auth });
    expect(ledger.json().data[0].low_threshold).toBe(3);
  });
});
