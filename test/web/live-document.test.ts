/**
 * The dashboard with a live issuer, against the local SII simulator: a document issued through
 * the form is sent to the SII, and its page shows our state with the SII's raw code and glosa;
 * a rejected one offers "Reenviar al SII". Through `inject` (the browser flows are in
 * dashboard.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import type { SiiSimulator } from '../../src/sii-simulator/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { createLiveIssuer, eventually, type LiveIssuer, startLiveApp, startSimulator } from '../helpers/live.ts';

let sim: SiiSimulator;
let t: TestApp;
let live: LiveIssuer;
let cookie = '';
let csrf = '';
const PASSWORD = 'clave de prueba larga';

beforeAll(async () => {
  const started = await startSimulator();
  sim = started.sim;
  t = await startLiveApp(sim, started.url);
  live = await createLiveIssuer(t, sim, [33]);
  await createUser(t.ctx, { rut: live.rut, email: 'live@empresa.cl', role: 'owner', password: PASSWORD });
  const form = await t.app.inject({ method: 'GET', url: '/dashboard/entrar' });
  const pre = /timbre_csrf=([^;]+)/.exec(String(form.headers['set-cookie']))?.[1] ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const signed = await t.app.inject({
    method: 'POST',
    url: '/dashboard/entrar',
    headers: { cookie: `timbre_csrf=${pre}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: token, email: 'live@empresa.cl', password: PASSWORD }).toString(),
  });
  cookie = /timbre_session=[^;]+/.exec(String(signed.headers['set-cookie']))?.[0] ?? '';
  const issuePage = await t.app.inject({ method: 'GET', url: `/dashboard/${live.rut}/emitir`, headers: { cookie } });
  csrf = /name="_csrf" value="([^"]+)"/.exec(issuePage.body)?.[1] ?? '';
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sim?.close();
});

async function issueThroughForm(receiverRut: string): Promise<string> {
  const body = new URLSearchParams({
    _csrf: csrf,
    idem: `live-${receiverRut}-${Date.now()}`,
    action: 'issue',
    type: '33',
    receiver_rut: receiverRut,
    receiver_name: 'Cliente de Prueba Ltda.',
    receiver_activity: 'Comercio',
    receiver_address: 'Av. Matta 10',
    receiver_comuna: 'Santiago',
    item_name: 'Servicio de mantención',
    item_qty: '1',
    item_price: '100.000',
  });
  const res = await t.app.inject({
    method: 'POST',
    url: `/dashboard/${live.rut}/emitir`,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
  expect(res.statusCode, res.body.slice(0, 500)).toBe(303);
  return String(res.headers.location).replace(/&ok=emitido$/, '');
}

const pageOf = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } }).then((r) => r.body);

describe('live documents in the dashboard', () => {
  it('shows an accepted document with the SII raw state', async () => {
    const url = await issueThroughForm('76354771-K');
    const accepted = await eventually(async () => {
      const html = await pageOf(url);
      return html.includes('badge-green') && html;
    });
    expect(accepted).toContain('Aceptado');
    expect(accepted).toMatch(/SII: <code>[A-Z]{2,3}<\/code>/);
    expect(accepted).toContain('PRODUCCIÓN');
    expect(accepted).not.toContain('Reenviar al SII');
  });

  it('shows a rejection with its glosa and offers to resend', async () => {
    const url = await issueThroughForm('11111111-1');
    const rejected = await eventually(async () => {
      const html = await pageOf(url);
      return html.includes('Rechazado') && html;
    });
    expect(rejected).toContain('Reenviar al SII');
    // The SII's own code and its glosa sit next to our badge.
    expect(rejected).toMatch(/class="sii-raw">SII: <code>[^<]+<\/code> [^<\s][^<]*</);
    const m = /action="([^"]+\/reenviar)"/.exec(rejected);
    const resend = await t.app.inject({
      method: 'POST',
      url: m?.[1] ?? '',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(csrf)}`,
    });
    expect(resend.statusCode).toBe(303);
    expect(resend.headers.location).toMatch(/ok=reenviado|error=/);
  });
});
