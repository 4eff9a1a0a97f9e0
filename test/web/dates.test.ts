/**
 * Dates on dashboard pages, through `inject`: a certificate's validity is two instants, shown as
 * the days they fall on in Santiago (an expiry at 23:30 in Santiago is already the next day in
 * UTC); a document's FchEmis is a calendar date, shown as written, and by default it is today
 * in Santiago.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { type ManualClock, manualClock } from '../helpers/time.ts';

const PASSWORD = 'fechas de prueba largas';
let t: TestApp;
let clock: ManualClock;
let issuer: Issuer;
let cookie = '';

beforeAll(async () => {
  clock = manualClock('2026-11-25T15:00:00Z');
  t = await buildTestApp({ clock });
  issuer = await createTestIssuer(t.ctx);
  await createUser(t.ctx, { rut: issuer.rut, email: 'fechas@empresa.cl', role: 'owner', password: PASSWORD });
  const form = await t.app.inject({ method: 'GET', url: '/dashboard/entrar' });
  const pre = /timbre_csrf=([^;]+)/.exec(String(form.headers['set-cookie']))?.[1] ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const signed = await t.app.inject({
    method: 'POST',
    url: '/dashboard/entrar',
    headers: { cookie: `timbre_csrf=${pre}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: token, email: 'fechas@empresa.cl', password: PASSWORD }).toString(),
  });
  cookie = /timbre_session=[^;]+/.exec(String(signed.headers['set-cookie']))?.[0] ?? '';
  expect(cookie).not.toBe('');
}, 120_000);

afterAll(async () => t?.close());

const pageOf = async (path: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/dashboard/${issuer.rut}/${path}`, headers: { cookie } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.body;
};

describe('dates on the dashboard', () => {
  it("shows a certificate's validity as its days in Santiago, not in UTC", async () => {
    // Rows only (not a real .p12): removed after the page is read, so that nothing signs with it.
    const cert = await t.ctx.db.prisma.certificate.create({
      data: {
        issuerId: issuer.id,
        kind: 'imported',
        p12Encrypted: new Uint8Array([0]),
        passwordEncrypted: new Uint8Array([0]),
        holderRut: '11111111-1',
        subjectName: 'Representante de Prueba',
        fingerprint: 'fechas-test',
        // 23:30 on Saturday 6 September 2025 in Santiago (UTC-4; clocks go forward that night).
        notBefore: new Date('2025-09-07T03:30:00Z'),
        // 23:30 on 28 February 2027 in Santiago (UTC-3): 1 March in UTC.
        notAfter: new Date('2027-03-01T02:30:00Z'),
      },
    });
    const html = await pageOf('certificado').finally(() =>
      t.ctx.db.prisma.certificate.delete({ where: { id: cert.id } }),
    );
    expect(html).toContain('<dt>Válido desde</dt><dd>06-09-2025</dd>');
    expect(html).toContain('<dt>Válido hasta</dt><dd>28-02-2027</dd>');
    expect(html).not.toContain('01-03-2027');
  });

  it('dates a document issued at 23:30 in Santiago that day, in the API and on its pages', async () => {
    // 23:30 on 25 November 2026 in Santiago (UTC-3) is 02:30 on the 26th in UTC.
    clock.set('2026-11-26T02:30:00Z');
    const api = t.as(await createTestKey(t.ctx, issuer.rut));
    const issued = await api.post(`/api/${issuer.rut}/emitir`, factura());
    expect(issued.statusCode, issued.body).toBe(200);
    const { folio, date } = issued.json() as { folio: number; date: string };
    expect(date).toBe('2026-11-25');
    const listed = await api.get(`/api/${issuer.rut}/emisiones?desde=2026-11-25&hasta=2026-11-25`);
    expect((listed.json() as { data: Array<{ folio: number; date: string }> }).data).toContainEqual(
      expect.objectContaining({ folio, date: '2026-11-25' }),
    );
    const detail = await pageOf(`documentos/33/${folio}?env=sandbox`);
    expect(detail).toContain('<dt>Fecha de emisión</dt><dd>25-11-2026</dd>');
  });
});
