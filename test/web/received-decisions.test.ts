/**
 * Aceptar / Reclamar on a received document's dashboard page (README "Accepting and claiming
 * received documents"), through the form POSTs with a signed-in owner: the section and its
 * forms, an acceptance with a receipt (its answers linked and downloadable), a claim the matrix
 * refuses shown with the SII's code and its Spanish reason, a type that is not decided, and a
 * viewer who sees the decisions but no form.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';
import { xmllint } from '../helpers/verify.ts';

let t: TestApp;
let supplier: Supplier;

beforeAll(async () => {
  supplier = standInSupplier();
  t = await buildTestApp({ env: { TIMBRE_EXTRA_CAF_KEYS: supplier.siiPublicKeyPem } });
});

async function tenantWith(folio: number) {
  const tenant = await createTestTenant(t);
  const res = await tenant.api.inject({
    method: 'POST',
    url: `/api/${tenant.rut}/recibidos`,
    headers: { 'content-type': 'application/xml' },
    payload: supplier.envelope(tenant.rut, [supplier.dte(tenant.rut, folio)]),
  });
  expect(res.json()).toMatchObject({ accepted: true });
  const session = await dashboardSession(t, tenant.issuer);
  const page = `/dashboard/${tenant.rut}/recibidos/${SUPPLIER.rut}/33/${folio}`;
  return { ...tenant, session, page };
}

describe('the received document page', () => {
  it('accepts with a receipt from the form, then shows the decision and its files; a claim after it is refused with the SII code and the reason in Spanish', async () => {
    const { session, page } = await tenantWith(301);
    const before = await t.app.inject({ method: 'GET', url: page, headers: { cookie: session.cookie } });
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain('Aceptación o reclamo en el SII');
    expect(before.body).toContain(`action="${page}/aceptar"`);
    expect(before.body).toContain(`action="${page}/reclamar"`);

    const post = await t.app.inject({
      method: 'POST',
      url: `${page}/aceptar`,
      headers: session.headers,
      payload: new URLSearchParams({ _csrf: session.csrf, recinto: 'Bodega Ñuñoa' }).toString(),
    });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toContain('decision=local');
    const after = await t.app.inject({
      method: 'GET',
      url: post.headers.location!,
      headers: { cookie: session.cookie },
    });
    expect(after.body).toContain('Decisión guardada (sandbox');
    expect(after.body).toContain('Recibo de mercaderías o servicios (ERM)');
    expect(after.body).toContain('Recinto: Bodega Ñuñoa');
    const link = /href="([^"]+\/recibos)"/.exec(after.body)?.[1];
    expect(link).toBeTruthy();
    const file = await t.app.inject({ method: 'GET', url: link!, headers: { cookie: session.cookie } });
    expect(file.statusCode).toBe(200);
    expect(xmllint(file.rawPayload, 'EnvioRecibos_v10.xsd').ok).toBe(true);

    const claim = await t.app.inject({
      method: 'POST',
      url: `${page}/reclamar`,
      headers: session.headers,
      payload: new URLSearchParams({ _csrf: session.csrf, motivo: 'contenido', glosa: 'Precio' }).toString(),
    });
    expect(claim.statusCode).toBe(303);
    expect(claim.headers.location).toContain('error=DECISION_NOT_ALLOWED&sii=11');
    const shown = await t.app.inject({
      method: 'GET',
      url: claim.headers.location!,
      headers: { cookie: session.cookie },
    });
    expect(shown.body).toContain(
      'No se puede reclamar un documento cuyo contenido ya fue aceptado (ACD). (código 11 del SII)',
    );
  });

  it('a claim without glosa is sent back with the form error, nothing stored', async () => {
    const { session, page, issuer } = await tenantWith(302);
    const res = await t.app.inject({
      method: 'POST',
      url: `${page}/reclamar`,
      headers: session.headers,
      payload: new URLSearchParams({ _csrf: session.csrf, motivo: 'falta_total', glosa: ' ' }).toString(),
    });
    expect(res.headers.location).toContain('error=VALIDATION_FAILED');
    expect(await t.db.prisma.receivedDecision.count({ where: { issuerId: issuer.id } })).toBe(0);
  });

  it('a viewer sees the decisions without forms, and its POST is refused', async () => {
    const { issuer, page, session } = await tenantWith(303);
    await t.app.inject({
      method: 'POST',
      url: `${page}/aceptar`,
      headers: session.headers,
      payload: new URLSearchParams({ _csrf: session.csrf }).toString(),
    });
    const viewer = await dashboardSession(t, issuer, 'viewer');
    const res = await t.app.inject({ method: 'GET', url: page, headers: { cookie: viewer.cookie } });
    expect(res.body).toContain('Acepta el contenido (ACD)');
    expect(res.body).not.toContain(`action="${page}/aceptar"`);
    const post = await t.app.inject({
      method: 'POST',
      url: `${page}/reclamar`,
      headers: viewer.headers,
      payload: new URLSearchParams({ _csrf: viewer.csrf, motivo: 'contenido', glosa: 'x' }).toString(),
    });
    expect(post.statusCode).toBe(403);
    expect(await t.db.prisma.receivedDecision.count({ where: { issuerId: issuer.id } })).toBe(1);
  });

  it('a note (61) is not decided: the page says why and shows no form', async () => {
    const { session, rut } = await tenantWith(304);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${rut}/recibidos/${SUPPLIER.rut}/61/304/aceptar`,
      headers: session.headers,
      payload: new URLSearchParams({ _csrf: session.csrf }).toString(),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toContain('error=RECEIVED_TYPE_NOT_DECIDABLE');
  });
});

describe('deciding many at once', () => {
  it('lists the open documents with their days left, accepts the chosen ones, and reports each result', async () => {
    const tenant = await createTestTenant(t);
    await tenant.api.inject({
      method: 'POST',
      url: `/api/${tenant.rut}/recibidos`,
      headers: { 'content-type': 'application/xml' },
      payload: supplier.envelope(tenant.rut, [
        supplier.dte(tenant.rut, 401),
        supplier.dte(tenant.rut, 402),
        supplier.dte(tenant.rut, 403),
      ]),
    });
    await tenant.api.post(`/api/${tenant.rut}/recibidos/${SUPPLIER.rut}/33/403/aceptar`, {});
    const session = await dashboardSession(t, tenant.issuer);
    const list = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${tenant.rut}/recibidos`,
      headers: { cookie: session.cookie },
    });
    expect(list.body).toContain(`/dashboard/${tenant.rut}/recibidos/decidir`);
    const open = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${tenant.rut}/recibidos/decidir`,
      headers: { cookie: session.cookie },
    });
    expect(open.statusCode).toBe(200);
    expect(open.body).toContain(`${SUPPLIER.rut}|33|401`);
    expect(open.body).toContain(`${SUPPLIER.rut}|33|402`);
    expect(open.body).not.toContain(`${SUPPLIER.rut}|33|403`);
    expect(open.body).toMatch(/\d días?|vence hoy/);

    const form = new URLSearchParams({
      _csrf: session.csrf,
      decision: 'reclamar',
      motivo: 'falta_total',
      glosa: 'No llegó',
    });
    for (const f of [401, 403]) form.append('doc', `${SUPPLIER.rut}|33|${f}`);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${tenant.rut}/recibidos/decidir`,
      headers: session.headers,
      payload: form.toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Decidida en sandbox');
    expect(res.body).toContain(
      'No se puede reclamar un documento cuyo contenido ya fue aceptado (ACD). (código 11 del SII)',
    );
    const after = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${tenant.rut}/recibidos/decidir`,
      headers: { cookie: session.cookie },
    });
    expect(after.body).not.toContain(`${SUPPLIER.rut}|33|401`);
    expect(after.body).toContain(`${SUPPLIER.rut}|33|402`);
  });
});
