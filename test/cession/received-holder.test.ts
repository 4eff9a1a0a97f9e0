/**
 * Who holds a supplier's factura (README "Cesión"): asked at the simulator's registry of
 * cesiones with getEstCesionRelac as the receiver, stored on the received document, shown in its
 * detail. A factura ceded by its supplier is paid to the cesionario.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SiiSimulator } from '../../src/sii-simulator/index.ts';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';
import { createLiveIssuer, type LiveIssuer, liveEnv, startSimulator } from '../helpers/live.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';

const FACTORING = '96516320-4';
let t: TestApp;
let sim: SiiSimulator;
let supplier: Supplier;
let live: LiveIssuer;
let nextFolio = 400;

beforeAll(async () => {
  supplier = standInSupplier();
  const started = await startSimulator();
  sim = started.sim;
  t = await buildTestApp({
    env: {
      ...liveEnv(sim, started.url),
      TIMBRE_EXTRA_CAF_KEYS: `${sim.cafPublicKeyPem}\n${supplier.siiPublicKeyPem}`,
    },
  });
  live = await createLiveIssuer(t, sim, []);
});

/** A supplier's factura uploaded to `rut`, which the SII also received; its folio. */
async function receive(rut: string, auth: Record<string, string>): Promise<number> {
  const folio = nextFolio++;
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${rut}/recibidos`,
    headers: { ...auth, 'content-type': 'application/xml' },
    payload: supplier.envelope(rut, [supplier.dte(rut, folio)]),
  });
  expect(res.json(), res.body).toMatchObject({ accepted: true });
  sim.registerReceivedDocument({ issuerRut: SUPPLIER.rut, type: 33, folio, receiverRut: rut });
  return folio;
}

const ask = (folio: number, type = 33, who: { rut: string; auth: Record<string, string> } = live) =>
  t.app.inject({
    method: 'POST',
    url: `/api/${who.rut}/recibidos/${SUPPLIER.rut}/${type}/${folio}/cesion`,
    headers: who.auth,
  });

const detail = async (folio: number) =>
  (
    await t.app.inject({
      method: 'GET',
      url: `/api/${live.rut}/recibidos/${SUPPLIER.rut}/33/${folio}`,
      headers: live.auth,
    })
  ).json().document;

describe('POST /api/{rut}/recibidos/{emisor}/{type}/{folio}/cesion', () => {
  it('not ceded, then ceded by the supplier: the holder is whom to pay, stored on the document', async () => {
    const folio = await receive(live.rut, live.auth);
    expect((await detail(folio)).cesion).toBeNull();

    const before = await ask(folio);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json().cesion).toMatchObject({ cedido: false, tenedor: null, message: null });

    sim.registerCesion({ issuerRut: SUPPLIER.rut, type: 33, folio, cesionarioRut: FACTORING });
    const after = await ask(folio);
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().cesion).toMatchObject({ cedido: true, tenedor: FACTORING });
    expect(after.json().cesion.message).toMatch(/pay its holder 96516320-4/);
    expect((await detail(folio)).cesion).toMatchObject({ cedido: true, tenedor: FACTORING });
  });

  it('refuses what the registry does not hold: another type (422), an unknown document (404), a sandbox issuer (422)', async () => {
    expect((await ask(1, 61)).json()).toMatchObject({ ok: false, code: 'DOCUMENT_NOT_CEDIBLE' });
    const unknown = await ask(99_999);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'RECEIVED_DOCUMENT_NOT_FOUND' });
    const tenant = await createTestTenant(t);
    const sandbox = await ask(1, 33, { rut: tenant.rut, auth: tenant.api.headers });
    expect(sandbox.statusCode).toBe(422);
    expect(sandbox.json()).toMatchObject({ code: 'SANDBOX_NOT_SUBMITTABLE' });
  });

  it('the SII unreachable: 502, nothing recorded', async () => {
    const folio = await receive(live.rut, live.auth);
    sim.setFault({ kind: 'down', count: 4, paths: ['/DTEWS/services/wsRPETCConsulta'] });
    const res = await ask(folio);
    sim.clearFaults();
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'SII_UNAVAILABLE' });
    expect((await detail(folio)).cesion).toBeNull();
  });

  it('the dashboard asks from the received document page and says whom to pay', async () => {
    const folio = await receive(live.rut, live.auth);
    sim.registerCesion({ issuerRut: SUPPLIER.rut, type: 33, folio, cesionarioRut: FACTORING });
    const session = await dashboardSession(t, live.issuer, 'viewer');
    const page = `/dashboard/${live.rut}/recibidos/${SUPPLIER.rut}/33/${folio}`;
    const before = await t.app.inject({ method: 'GET', url: page, headers: { cookie: session.cookie } });
    expect(before.body).toContain('Consultar cesión en el SII');
    const post = await t.app.inject({
      method: 'POST',
      url: `${page}/cesion`,
      headers: session.headers,
      payload: new URLSearchParams({ _csrf: session.csrf }).toString(),
    });
    expect(post.statusCode).toBe(303);
    const after = await t.app.inject({ method: 'GET', url: page, headers: { cookie: session.cookie } });
    expect(after.body).toContain('págala a 96.516.320-4');
  });
});
