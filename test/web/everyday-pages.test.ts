/**
 * The smaller points of the dashboard for everyday work, without a browser: the
 * folio range obtained, the certificate's SubjectAltName explained, "Consumidor final", no
 * silent truncation (no `maxlength`; the server names the limit), webhook failures in Spanish,
 * a link to the PDF on small screens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.ts';
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
    expect(text).toContain('https://www.sii.cl');
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

  it('exports the filtered list as a CSV Excel (es-CL) opens: BOM, ";", CRLF, libro de ventas columns', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const key = await createTestKey(t.ctx, issuer.rut);
    const issue = async (body: Record<string, unknown>) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: bearer(key),
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { folio: number };
    };
    const receiver = {
      rut: '76354771-K',
      name: '=HIPERVINCULO("x"); Ñandú "Ltda."',
      activity: 'Comercio',
      address: 'Av. Italia 123',
      comuna: 'Ñuñoa',
    };
    const f = await issue({
      type: 33,
      receiver,
      items: [
        { name: 'Clavos', qty: 10, price: 1350 },
        { name: 'Flete', qty: 1, price: 5000, exempt: true },
      ],
    });
    await issue({ type: 39, items: [{ name: 'Café', qty: 1, price: 2990 }] });
    const s = await dashboardSession(t, issuer);
    const list = await t.app.inject({
      url: `/dashboard/${issuer.rut}/documentos?tipo_dte=33`,
      headers: { cookie: s.cookie },
    });
    const href = /href="([^"]*documentos\.csv[^"]*)"/.exec(list.body)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(href).toContain('tipo_dte=33');
    const csv = await t.app.inject({ url: href, headers: { cookie: s.cookie } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="documentos_.*\.csv"$/);
    expect([...csv.rawPayload.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = csv.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toBe('Tipo;Folio;Fecha;RUT;Razón social;Exento;Neto;IVA;Total;Estado');
    expect(lines).toHaveLength(3); // header, the one factura (the filter holds), and the final CRLF
    expect(lines[1]).toMatch(
      new RegExp(
        `^33;${f.folio};\\d{2}-\\d{2}-\\d{4};76\\.354\\.771-K;"'=HIPERVINCULO\\(""x""\\); Ñandú ""Ltda\\.""";5000;13500;2565;21065;Sandbox$`,
      ),
    );
    expect(lines[2]).toBe('');
    // Unfiltered: both documents; the boleta's receiver is the final consumer.
    const all = await t.app.inject({ url: `/dashboard/${issuer.rut}/documentos.csv`, headers: { cookie: s.cookie } });
    expect(all.body).toContain(';Consumidor final;');
    expect(all.body.split('\r\n')).toHaveLength(4);
    // Another account sees nothing.
    const other = await createTestIssuer(t.ctx, { ambiente: 0 });
    const o = await dashboardSession(t, other);
    const foreign = await t.app.inject({
      url: `/dashboard/${issuer.rut}/documentos.csv`,
      headers: { cookie: o.cookie },
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('shows a setup checklist on the issuer’s first page until every step is done, each linking to its page', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const s = await dashboardSession(t, issuer);
    const first = () => t.app.inject({ url: `/dashboard/${issuer.rut}/documentos`, headers: { cookie: s.cookie } });
    const page = await first();
    expect(page.body).toContain('Primeros pasos (0 de 5)');
    for (const path of ['certificado', 'folios', 'emitir', 'claves', 'webhooks'])
      expect(page.body).toContain(`<a href="/dashboard/${issuer.rut}/${path}">`);
    await createApiKey(t.ctx, { rut: issuer.rut, role: 'viewer', name: 'ERP' });
    const one = await first();
    expect(one.body).toContain('Primeros pasos (1 de 5)');
    expect(one.body).toContain('<s>Crea una clave API</s>');
    const key = await createTestKey(t.ctx, issuer.rut);
    const issued = await t.app.inject({
      method: 'POST',
      url: `/api/${issuer.rut}/emitir`,
      headers: bearer(key),
      payload: { type: 39, items: [{ name: 'Café', qty: 1, price: 2990 }] },
    });
    expect(issued.statusCode, issued.body).toBe(200);
    expect((await first()).body).toContain('Primeros pasos (2 de 5)');
    // The other three steps, done directly in the database (what each page would store).
    const sealed = new Uint8Array(t.ctx.db.secrets.seal('x'));
    await t.db.prisma.certificate.create({
      data: {
        issuerId: issuer.id,
        kind: 'imported',
        p12Encrypted: sealed,
        passwordEncrypted: sealed,
        holderRut: '12345678-5',
        subjectName: 'Titular',
        fingerprint: 'ff',
        notBefore: new Date('2026-01-01'),
        notAfter: new Date('2027-01-01'),
      },
    });
    await t.db.prisma.caf.create({
      data: {
        issuerId: issuer.id,
        environment: 'live',
        source: 'imported',
        type: 33,
        rangeFrom: 1,
        rangeTo: 10,
        nextFolio: 1,
        authorisedAt: new Date('2026-01-01'),
        idk: 100,
        cafXml: '<CAF/>',
        privateKeyEncrypted: sealed,
        originalEncrypted: sealed,
      },
    });
    await t.db.prisma.webhookEndpoint.create({
      data: { issuerId: issuer.id, url: 'https://erp.example.cl/timbre', events: [], secretEncrypted: sealed },
    });
    expect((await first()).body).not.toContain('Primeros pasos');
  });

  it('reports every receiver problem at once: a bad RUT does not hide the missing fields', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const s = await dashboardSession(t, issuer);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/emitir`,
      headers: s.headers,
      payload: new URLSearchParams({
        _csrf: s.csrf,
        action: 'preview',
        type: '33',
        receiver_rut: '76354771-1',
        item_name: 'Clavos',
        item_qty: '1',
        item_price: '1000',
      }).toString(),
    });
    expect(res.statusCode).toBe(400);
    for (const id of ['receiver-rut', 'receiver-name', 'receiver-activity', 'receiver-address', 'receiver-comuna'])
      expect(res.body, id).toContain(`id="${id}-error"`);
  });

  it('voids a boleta from its prefilled note: the form as rendered issues a note with the same totals', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const key = await createTestKey(t.ctx, issuer.rut);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${issuer.rut}/emitir`,
      headers: bearer(key),
      payload: {
        type: 39,
        items: [
          { name: 'Café ½ kg', qty: 2, price: 6990 },
          { name: 'Taza', qty: 1, price: 3500 },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { folio } = res.json() as { folio: number };
    const s = await dashboardSession(t, issuer);
    const form = await t.app.inject({
      url: `/dashboard/${issuer.rut}/emitir?nota=1&tipo=39&folio=${folio}&env=sandbox`,
      headers: { cookie: s.cookie },
    });
    expect(form.statusCode).toBe(200);
    // The form's fields as the browser would send them: inputs with their values, selected options.
    const body = new URLSearchParams();
    for (const m of form.body.matchAll(/<input [^>]*?name="([^"]+)" value="([^"]*)"[^>]*>/g)) {
      if (/type="checkbox"/.test(m[0]) && !/ checked/.test(m[0])) continue;
      body.append(m[1] as string, (m[2] as string).replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
    }
    for (const m of form.body.matchAll(/<select id="[^"]+" name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
      const selected = /<option value="([^"]*)" selected>/.exec(m[2] as string)?.[1];
      if (selected !== undefined) body.append(m[1] as string, selected);
    }
    for (const m of form.body.matchAll(/<input type="checkbox" id="[^"]+" name="([^"]+)" value="([^"]+)" checked>/g))
      body.append(m[1] as string, m[2] as string);
    body.set('action', 'issue');
    expect(body.get('receiver_name')).toBe('Consumidor final');
    const issued = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/emitir`,
      headers: s.headers,
      payload: body.toString(),
    });
    expect(issued.statusCode, issued.body.slice(0, 3000)).toBe(303);
    const boleta = await t.db.prisma.document.findFirstOrThrow({ where: { issuerId: issuer.id, type: 39, folio } });
    expect(boleta.estadoSii).toBe('anulado');
  });
});
