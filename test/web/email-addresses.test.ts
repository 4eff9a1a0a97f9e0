/**
 * One rule for an e-mail address (src/dte/email-address.ts): the same addresses get the same
 * verdict as the receiver e-mail of an issue request, as recipients of emision_email and of the
 * dashboard's "Reenviar por correo", and as a dashboard user's e-mail. (An address accepted at
 * issue used to be refused by emision_email: `pagos,cobros@aromos.cl`.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { AppError } from '../../src/errors.ts';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

/** Addresses and whether they are one: at most 80 characters, the SII's CorreoRecep limit. */
const ADDRESSES: [string, boolean][] = [
  ['pagos@aromos.cl', true],
  ['facturas+timbre@sub.aromos.cl', true],
  ['o.brien@aromos.co.uk', true],
  ['pagos,cobros@aromos.cl', false],
  ['pagos;cobros@aromos.cl', false],
  ['Pagos <pagos@aromos.cl>', false],
  ['"pagos"@aromos.cl', false],
  ['pagos@aromos', false],
  ['pagos@@aromos.cl', false],
  ['pagos aromos@aromos.cl', false],
  ['pagos(x)@aromos.cl', false],
  ['@aromos.cl', false],
];

const RECEIVER = {
  rut: '76354771-K',
  name: 'Distribuidora Los Aromos Ltda.',
  activity: 'Comercio',
  address: 'Av. Italia 123',
  comuna: 'Ñuñoa',
};

describe('e-mail addresses', () => {
  it('get the same verdict on every path that accepts one', async () => {
    const tenant = await createTestTenant(t);
    const { issuer } = tenant;
    const { csrf, headers } = await dashboardSession(t, issuer);
    const verdicts: Record<string, Record<string, boolean>> = {};
    /** The rule ids of the refusals: one rule, one id. */
    const rules = new Set<string>();
    for (const [address] of ADDRESSES) {
      const issue = await tenant.api.post(`/api/${issuer.rut}/emitir`, {
        type: 33,
        receiver: { ...RECEIVER, email: address },
        items: [{ name: 'Clavos', qty: 1, price: 1000 }],
      });
      const email = await tenant.api.post(`/api/${issuer.rut}/emision_email`, { type: 33, folio: 1, to: [address] });
      const resend = await t.app.inject({
        method: 'POST',
        url: `/dashboard/${issuer.rut}/documentos/33/1/correo`,
        headers,
        payload: new URLSearchParams({ _csrf: csrf, to: address }).toString(),
      });
      let user = true;
      try {
        await createUser(t.ctx, { rut: issuer.rut, email: address, role: 'viewer', password: 'una contraseña larga' });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
        const detail = err.details?.find((d) => d.path === 'email');
        if (detail) rules.add(String(detail.rule));
        user = !detail;
      }
      const refusedBy = (res: { statusCode: number; json: () => unknown }, path: string) => {
        if (res.statusCode !== 400) return false;
        const details = (res.json() as { details?: { path: string; rule: string }[] }).details ?? [];
        const detail = details.find((d) => d.path === path);
        if (detail) rules.add(String(detail.rule));
        return Boolean(detail);
      };
      verdicts[address] = {
        issue: !refusedBy(issue, 'receiver.email'),
        emision_email: !refusedBy(email, 'to[0]'),
        dashboard: !/[?&]error=correo\b/.test(String(resend.headers.location)),
        user,
      };
    }
    const expected = Object.fromEntries(
      ADDRESSES.map(([a, ok]) => [a, { issue: ok, emision_email: ok, dashboard: ok, user: ok }]),
    );
    expect(verdicts).toEqual(expected);
    expect([...rules]).toEqual(['email.invalid']);
  });
});
