/**
 * The smaller points of the dashboard for everyday work (issue 24), without a browser: the
 * folio range obtained, the certificate's SubjectAltName explained, "Consumidor final", no
 * silent truncation (no `maxlength`; the server names the limit), webhook failures in Spanish,
 * a link to the PDF on small screens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { deliveryErrorText, errorMessage } from '../../src/web/messages.ts';
import { bearer, buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

const ENGLISH = /\b(must|is not|required|invalid|the|refused|connect|certificate has|socket|answer|within)\b/i;

describe('dashboard: smaller points', () => {
  it('says which folio range was obtained', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const s = await dashboardSession(t, issuer);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/folios/solicitar`,
      headers: s.headers,
      payload: new URLSearchParams({ _csrf: s.csrf, tipo_dte: '33', cantidad: '100' }).toString(),
    });
    expect(res.statusCode).toBe(303);
    const page = await t.app.inject({ url: String(res.headers.location), headers: { cookie: s.cookie } });
    expect(page.body).toMatch(/Folios obtenidos para el tipo 33: \d+–\d+\./);
  });

  it('explains where the certificate carries the RUT and where to get one', () => {
    const text = errorMessage(new AppError('CERT_NO_HOLDER_RUT'));
    expect(text).toContain('SubjectAltName');
    expect(text).toContain('1.3.6.1.4.1.8321.1');
    expect(text).toContain('https://www.sii.cl/');
  });

  it('shows a boleta without receiver as "Consumidor final", and links the PDF for small screens', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const key = await createTestKey(t.ctx, issuer.rut);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${issuer.rut}/emitir`,
      headers: bearer(key),
      payload: { type: 39, items: [{ name: 'Café', qty: 1, price: 2990 }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { folio } = res.json() as { folio: number };
    const s = await dashboardSession(t, issuer);
    const doc = await t.app.inject({
      url: `/dashboard/${issuer.rut}/documentos/39/${folio}`,
      headers: { cookie: s.cookie },
    });
    expect(doc.body).toContain('Consumidor final');
    expect(doc.body).toMatch(
      /<a class="button" href="[^"]*\/pdf\?env=sandbox" target="_blank" rel="noopener">Abrir el PDF<\/a>/,
    );
    const list = await t.app.inject({ url: `/dashboard/${issuer.rut}/documentos`, headers: { cookie: s.cookie } });
    expect(list.body).toContain('Consumidor final');
  });

  it('cuts nothing: no maxlength on any form; a long giro is refused naming its limit', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const s = await dashboardSession(t, issuer);
    for (const path of ['emitir', 'configuracion', 'webhooks', 'claves']) {
      const page = await t.app.inject({ url: `/dashboard/${issuer.rut}/${path}`, headers: { cookie: s.cookie } });
      expect(page.body, path).not.toContain('maxlength');
    }
    const form = await t.app.inject({ url: `/dashboard/${issuer.rut}/emitir`, headers: { cookie: s.cookie } });
    expect(form.body).toContain('Giro (máx. 40)');
  });

  it('words every webhook failure in Spanish', () => {
    const raw = [
      'HTTP 503',
      'no answer within 10000 ms',
      'redirect to https://otro.cl/ not followed',
      'blocked: 10.0.0.1 is not a public address',
      'invalid URL',
      'endpoint disabled',
      'the delivery is already in flight',
      'signing secret cannot be decrypted (wrong TIMBRE_MASTER_KEY?); not sent',
      'certificate has expired',
      'unable to verify the first certificate',
      'self-signed certificate in certificate chain',
      "Hostname/IP does not match certificate's altnames: Host: a.cl. is not in the cert's altnames: DNS:b.cl",
      'getaddrinfo ENOTFOUND erp.example',
      'connect ECONNREFUSED 127.0.0.1:9',
      'socket hang up',
      'read ECONNRESET',
      'connect EHOSTUNREACH 203.0.113.1:443',
      'something nobody expected',
    ];
    for (const e of raw) {
      const text = deliveryErrorText(e);
      expect(text, e).not.toMatch(ENGLISH);
      expect(text, e).not.toContain('otro.cl');
    }
    expect(deliveryErrorText('certificate has expired')).toContain('certificado TLS');
    expect(deliveryErrorText('connect ECONNREFUSED 127.0.0.1:9')).toContain('rechazó la conexión');
  });
});
