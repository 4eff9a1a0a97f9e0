/**
 * Where the dashboard and the API share a rule, they share its one implementation:
 *
 * - the issue form follows the API's Idempotency-Key protocol (src/issuing/idempotency.ts): an
 *   answer is kept for the form's key, a refusal (4xx) included, so the same form sent again
 *   shows the same answer and never issues a document, even when what refused it has changed
 *   since; the page that shows the refusal carries a new key for the corrected request;
 * - the list of documents reads its filters with the API's definition (`listDocumentsQuery`):
 *   the same page and limit bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { dateOfInstantInSantiago } from '../../src/dte/chile-time.ts';
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
        ref_date: dateOfInstantInSantiago(t.ctx.clock()),
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

describe('the list filters', () => {
  it('page and limit: the dashboard applies exactly the values the API accepts', async () => {
    const issuer = await createTestIssuer(t.ctx);
    await createUser(t.ctx, { rut: issuer.rut, email: 'lista@empresa.cl', role: 'owner', password: PASSWORD });
    const cookie = await signIn('lista@empresa.cl');
    const api = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut)}` };
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: api,
        payload: factura(),
      });
      expect(res.statusCode).toBe(200);
    }
    // [page, limit]: each value on both sides of the API's bounds.
    const cases: [string | null, string | null][] = [];
    for (const page of ['0', '1', '2', '999999', '1000000', '1000001']) cases.push([page, '1']);
    for (const limit of ['0', '1', '2', '100', '101']) cases.push([null, limit]);
    const folios = (body: string) => [...body.matchAll(/>Nº (\d+)<\/a>/g)].map((m) => Number(m[1]));
    const listed = async (page: string | null, limit: string | null) => {
      const query = new URLSearchParams({ ...(page && { page }), ...(limit && { limit }) }).toString();
      return t.app.inject({ method: 'GET', url: `/api/${issuer.rut}/emisiones?${query}`, headers: api });
    };
    for (const [page, limit] of cases) {
      const query = new URLSearchParams({ ...(page && { page }), ...(limit && { limit }) }).toString();
      const fromApi = await listed(page, limit);
      const fromDashboard = await t.app.inject({
        method: 'GET',
        url: `/dashboard/${issuer.rut}/documentos?${query}`,
        headers: { cookie },
      });
      expect(fromDashboard.statusCode).toBe(200);
      // A value the API refuses (400) is one the dashboard ignores: it shows the default.
      const expected =
        fromApi.statusCode === 200 ? fromApi : page !== null ? await listed(null, limit) : await listed(page, null);
      if (fromApi.statusCode !== 200) expect(fromApi.statusCode, `API ${query}`).toBe(400);
      expect(folios(fromDashboard.body), `dashboard ${query}`).toEqual(
        expected.json().data.map((d: { folio: number }) => d.folio),
      );
    }
  });
});
