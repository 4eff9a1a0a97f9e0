/**
 * Tenant isolation, table-driven over every route: a key of another issuer gets 403 (whatever
 * the role), a document token opens only its own document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
let rutA: string;
let rutB: string;
let keyA: string;
let keyB: string;
let viewerB: string;
let docA: { folio: number; pdf_url: string };
let docA1: { folio: number; pdf_url: string };
let docB: { folio: number; pdf_url: string };

beforeAll(async () => {
  t = await buildTestApp();
  rutA = (await createTestIssuer(t.ctx)).rut;
  rutB = (await createTestIssuer(t.ctx)).rut;
  keyA = await createTestKey(t.ctx, rutA, 'owner');
  keyB = await createTestKey(t.ctx, rutB, 'owner');
  viewerB = await createTestKey(t.ctx, rutB, 'viewer');
  const issue = async (rut: string, key: string) => {
    const res = await t.as(key).post(`/api/${rut}/emitir`, factura());
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  // A's document under test is folio 2, so "another issuer's folio 2" (B has folios 1 and 2)
  // and "the same issuer's folio 1" are both real documents a token must not open.
  docA1 = await issue(rutA, keyA);
  docA = await issue(rutA, keyA);
  await issue(rutB, keyB);
  docB = await issue(rutB, keyB);
  expect([docA1.folio, docA.folio, docB.folio]).toEqual([1, 2, 2]);
});

type Route = {
  method: 'GET' | 'POST';
  url: (rut: string, folio: number) => string;
  body?: (rut: string, folio: number) => unknown;
};

const ROUTES: Route[] = [
  { method: 'POST', url: (r) => `/api/${r}/emitir`, body: () => factura() },
  { method: 'GET', url: (r) => `/api/${r}/emisiones` },
  { method: 'GET', url: (r, f) => `/api/${r}/pdf/33/${f}` },
  { method: 'GET', url: (r, f) => `/api/${r}/xml/33/${f}` },
  { method: 'GET', url: (r) => `/api/${r}/folios` },
  { method: 'POST', url: (r) => `/api/${r}/folios_sii`, body: () => ({ tipo_dte: 33, cantidad: 10 }) },
  { method: 'POST', url: (r) => `/api/${r}/emision_estado_dte`, body: (_r, f) => ({ type: 33, folio: f }) },
  // The issuer travels in the body here.
  { method: 'POST', url: () => '/api/emision_reenviar', body: (r, f) => ({ rut: r, type: 33, folio: f }) },
];

describe.each(ROUTES)('$method $url', (route) => {
  it('refuses the key of another issuer with 403 and changes nothing', async () => {
    const docs = await t.ctx.db.prisma.document.count();
    const cafs = await t.ctx.db.prisma.caf.count();
    for (const role of ['owner', 'viewer'] as const) {
      const key = role === 'owner' ? keyB : viewerB;
      const res = await t.as(key).inject({
        method: route.method,
        url: route.url(rutA, docA.folio),
        ...(route.body ? { payload: route.body(rutA, docA.folio) as object } : {}),
      });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN_ISSUER');
    }
    expect(await t.ctx.db.prisma.document.count()).toBe(docs);
    expect(await t.ctx.db.prisma.caf.count()).toBe(cafs);
  });
});

describe('document tokens', () => {
  it("a token opens only its own document: not another issuer's, not another folio", async () => {
    const tkA = new URL(docA.pdf_url).searchParams.get('tk');
    const crossIssuer = await t.app.inject({ method: 'GET', url: `/api/${rutB}/pdf/33/${docB.folio}?tk=${tkA}` });
    expect(crossIssuer.statusCode).toBe(404);
    expect(crossIssuer.json().code).toBe('DOCUMENT_NOT_FOUND');
    const crossFolio = await t.app.inject({ method: 'GET', url: `/api/${rutA}/pdf/33/${docA1.folio}?tk=${tkA}` });
    expect(crossFolio.statusCode).toBe(404);
    expect(crossFolio.json().code).toBe('DOCUMENT_NOT_FOUND');
    const crossFolioXml = await t.app.inject({ method: 'GET', url: `/api/${rutA}/xml/33/${docA1.folio}?tk=${tkA}` });
    expect(crossFolioXml.statusCode).toBe(404);
    const own = await t.app.inject({ method: 'GET', url: `/api/${rutA}/pdf/33/${docA.folio}?tk=${tkA}` });
    expect(own.statusCode).toBe(200);
    const tokenOnWriteRoute = await t.app.inject({ method: 'GET', url: `/api/${rutA}/emisiones?tk=${tkA}` });
    expect(tokenOnWriteRoute.statusCode).toBe(401);
  });
});
