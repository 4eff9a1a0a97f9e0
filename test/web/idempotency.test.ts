/**
 * The dashboard's issue form follows the API's Idempotency-Key protocol (src/issuing/idempotency.ts,
 * one implementation): an answer is kept for the form's key, a refusal (4xx) included, so the same
 * form sent again shows the same answer and never issues a document, even when what refused it has
 * changed since; the page that shows the refusal carries a new key for the corrected request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { santiagoDate } from '../../src/dte/chile-time.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';

const PASSWORD = 'contraseña suficientemente larga';
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

const field = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(body)?.[1] ?? '';
const fieldErrors = (body: string) => [...body.matchAll(/class="field-error" id="[^"]+">([^<]+)</g)].map((m) => m[1]);

async function signIn(email: string): Promise<string> {
  const form = await t.app.inject({ method: 'GET', url: '/dashboard/entrar' });
  const pre = /timbre_csrf=[^;]+/.exec(String(form.headers['set-cookie']))?.[0] ?? '';
  const signed = await t.app.inject({
    method: 'POST',
    url: '/dashboard/entrar',
    headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: field(form.body, '_csrf'), email, password: PASSWORD }).toString(),
  });
  expect(signed.statusCode).toBe(303);
  return /timbre_session=[^;]+/.exec(String(signed.headers['set-cookie']))?.[0] ?? '';
}

describe('the issue form and its idempotency key', () => {
  it('sent twice with the same key after a 4xx: the same answer both times, never a document', async () => {
    const issuer = await createTestIssuer(t.ctx);
    await createUser(t.ctx, { rut: issuer.rut, email: 'doble@empresa.cl', role: 'owner', password: PASSWORD });
    const cookie = await signIn('doble@empresa.cl');
    const url = `/dashboard/${issuer.rut}/emitir`;
    const formPage = async () => (await t.app.inject({ method: 'GET', url, headers: { cookie } })).body;
    // A credit note correcting the amount of factura 1, which does not exist yet.
    const note = (page: string) =>
      new URLSearchParams({
        _csrf: field(page, '_csrf'),
        idem: field(page, 'idem'),
        action: 'issue',
        type: '61',
        receiver_rut: RECEIVER.rut,
        receiver_name: RECEIVER.name,
        item_name: 'Descuento por pronto pago',
        item_qty: '1',
        item_price: '1000',
        ref_type: '33',
        ref_folio: '1',
        ref_date: santiagoDate(t.ctx.clock()),
        ref_code: '3',
        ref_reason: 'Descuento',
      }).toString();
    const send = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
    const page = await formPage();
    const payload = note(page);
    const first = await send(payload);
    expect(first.statusCode, first.body.slice(0, 500)).toBe(400);
    const refusal = fieldErrors(first.body);
    expect(refusal.length).toBeGreaterThan(0);
    // The page that shows the refusal carries a new key.
    expect(field(first.body, 'idem')).not.toBe(field(page, 'idem'));

    // Factura 1 now exists: the same form (same key) still gets the first answer.
    const api = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut)}` };
    const issued = await t.app.inject({
      method: 'POST',
      url: `/api/${issuer.rut}/emitir`,
      headers: api,
      payload: factura(),
    });
    expect(issued.json()).toMatchObject({ folio: 1 });
    const again = await send(payload);
    expect(again.statusCode).toBe(400);
    expect(fieldErrors(again.body)).toEqual(refusal);
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id, type: 61 } })).toBe(0);

    // A new key is a new request, which sees factura 1: the note is issued, once.
    const fresh = await send(note(await formPage()));
    expect(fresh.statusCode, fresh.body.slice(0, 500)).toBe(303);
    expect(fresh.headers.location).toContain('/documentos/61/1');
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id, type: 61 } })).toBe(1);
  });
});
