/** Downloads (key or tk), and the list with every filter. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestKey, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';
import { pdfPageCount, pdfText } from '../helpers/verify.ts';

let t: TestApp;
let rut: string;
/** A viewer's key: the reads below need no more. */
let viewer: KeyClient;
const docs: Array<{ type: number; folio: number; pdf_url: string; xml_url: string; date: string }> = [];

beforeAll(async () => {
  t = await buildTestApp();
  let owner: KeyClient;
  ({ rut, api: owner } = await createTestTenant(t));
  viewer = t.as(await createTestKey(t.ctx, rut, 'viewer'));
  const bodies = [
    factura({ date: '2026-03-01' }),
    factura({ date: '2026-03-15', receiver: { ...RECEIVER, rut: '60910000-1', name: 'UNIVERSIDAD DE CHILE' } }),
    factura({ date: '2026-04-02', receiver: { ...RECEIVER, rut: '96670340-7', name: 'Compañía Ñuble Ltda.' } }),
    { ...requestFor(39), date: '2026-04-03' },
    { ...requestFor(34), date: '2026-04-04' },
  ];
  for (const b of bodies) {
    const res = await owner.post(`/api/${rut}/emitir`, b);
    expect(res.statusCode, res.body).toBe(200);
    docs.push(res.json());
  }
});

const rel = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('downloads', () => {
  it('pdf_url and xml_url are absolute and work as given, without a key', async () => {
    const d = docs[0]!;
    expect(d.pdf_url).toMatch(new RegExp(`^http://timbre\\.test/api/${rut}/pdf/33/${d.folio}\\?tk=`));
    const pdf = await t.app.inject({ method: 'GET', url: rel(d.pdf_url) });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.headers['content-disposition']).toMatch(/^inline; filename="DTE_.*_T33_F\d+\.pdf"/);
  });

  it('accepts an API key of any role instead of tk', async () => {
    const d = docs[1]!;
    const res = await viewer.get(`/api/${rut}/xml/33/${d.folio}`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.toString('latin1')).toContain(`<Folio>${d.folio}</Folio>`);
  });

  it('download=1 forces an attachment; base64=1 wraps the file in JSON', async () => {
    const d = docs[0]!;
    const att = await t.app.inject({ method: 'GET', url: `${rel(d.xml_url)}&download=1` });
    expect(att.headers['content-disposition']).toBe(`attachment; filename="DTE_${rut}_T33_F${d.folio}.xml"`);
    const b64 = await t.app.inject({ method: 'GET', url: `${rel(d.xml_url)}&base64=1` });
    const body = b64.json();
    expect(body).toMatchObject({
      ok: true,
      filename: `DTE_${rut}_T33_F${d.folio}.xml`,
      content_type: 'application/xml; charset=ISO-8859-1',
    });
    const plain = await t.app.inject({ method: 'GET', url: rel(d.xml_url) });
    expect(Buffer.from(body.base64, 'base64').equals(plain.rawPayload)).toBe(true);
    expect(body.size).toBe(plain.rawPayload.length);
  });

  it('download=1 and base64=1 on a PDF: an attachment, or the same PDF wrapped in JSON', async () => {
    const d = docs[2]!;
    const plain = await t.app.inject({ method: 'GET', url: rel(d.pdf_url) });
    expect(plain.headers['content-type']).toBe('application/pdf');
    const att = await t.app.inject({ method: 'GET', url: `${rel(d.pdf_url)}&download=1` });
    expect(att.statusCode).toBe(200);
    expect(att.headers['content-type']).toBe('application/pdf');
    expect(att.headers['content-disposition']).toBe(`attachment; filename="DTE_${rut}_T33_F${d.folio}.pdf"`);
    expect(att.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const b64 = await t.app.inject({ method: 'GET', url: `${rel(d.pdf_url)}&base64=1` });
    expect(b64.statusCode).toBe(200);
    expect(b64.headers['content-type']).toMatch(/^application\/json/);
    const body = b64.json();
    expect(body).toMatchObject({
      ok: true,
      filename: `DTE_${rut}_T33_F${d.folio}.pdf`,
      content_type: 'application/pdf',
    });
    const decoded = Buffer.from(body.base64, 'base64');
    expect(body.size).toBe(decoded.length);
    expect(decoded.subarray(0, 5).toString()).toBe('%PDF-');
    // The same document: the wrapped PDF reads like the plain one.
    expect(pdfText(decoded)).toBe(pdfText(plain.rawPayload));
    expect(pdfText(decoded)).toContain(String(d.folio));
    // Both at once: the JSON wins (download only names a file to save).
    const both = await t.app.inject({ method: 'GET', url: `${rel(d.pdf_url)}&base64=1&download=1` });
    expect(both.json()).toMatchObject({ ok: true, content_type: 'application/pdf' });
    // Also with a key instead of tk.
    const keyed = await viewer.get(`/api/${rut}/pdf/33/${d.folio}?base64=1`);
    expect(keyed.json()).toMatchObject({ ok: true, content_type: 'application/pdf' });
  });

  it('format=80mm renders a thermal-roll PDF', async () => {
    const d = docs[3]!;
    const res = await t.app.inject({ method: 'GET', url: `${rel(d.pdf_url)}&format=80mm` });
    expect(res.statusCode).toBe(200);
    expect(pdfPageCount(res.rawPayload)).toBeGreaterThanOrEqual(1);
  });

  it('refuses a wrong token, the token of another document, no credentials; unknown folio → 404', async () => {
    const [a, b] = [docs[0]!, docs[1]!];
    const tkB = new URL(b.pdf_url).searchParams.get('tk')!;
    const wrong = await t.app.inject({ method: 'GET', url: `/api/${rut}/pdf/33/${a.folio}?tk=nope` });
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().code).toBe('DOCUMENT_NOT_FOUND');
    const other = await t.app.inject({ method: 'GET', url: `/api/${rut}/xml/33/${a.folio}?tk=${tkB}` });
    expect(other.statusCode).toBe(404);
    expect(other.json().error).toBe(wrong.json().error);
    const none = await t.app.inject({ method: 'GET', url: `/api/${rut}/xml/33/${a.folio}` });
    expect(none.statusCode).toBe(401);
    const unknown = await t.app.inject({ method: 'GET', url: `/api/${rut}/xml/33/999999?tk=${tkB}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('DOCUMENT_NOT_FOUND');
    const unknownKey = await viewer.get(`/api/${rut}/pdf/33/999999`);
    expect(unknownKey.statusCode).toBe(404);
  });
});

describe('GET /emisiones', () => {
  const list = async (query = '') => {
    const res = await viewer.get(`/api/${rut}/emisiones${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('lists newest first with the documented entry shape', async () => {
    const body = await list();
    expect(body.total).toBe(docs.length);
    expect(body.data.map((d: { folio: number; type: number }) => `${d.type}/${d.folio}`)).toEqual(
      [...docs].reverse().map((d) => `${d.type}/${d.folio}`),
    );
    expect(body.data[0]).toMatchObject({
      env: 'sandbox',
      estado_sii: 'local',
      track_id: null,
      receiver: expect.objectContaining({ rut: expect.any(String) }),
      totals: expect.objectContaining({ vat_rate: 19 }),
    });
  });

  it('filters by type, state and date range', async () => {
    expect((await list('?tipo_dte=33')).total).toBe(3);
    expect((await list('?tipo_dte=39')).total).toBe(1);
    expect((await list('?estado_sii=local')).total).toBe(5);
    expect((await list('?estado_sii=aceptado')).total).toBe(0);
    expect((await list('?desde=2026-03-10&hasta=2026-04-02')).total).toBe(2);
    expect((await list('?hasta=2026-03-01')).total).toBe(1);
  });

  it('q matches receiver name ignoring case and accents, the RUT, or an exact folio', async () => {
    expect((await list('?q=NUBLE')).data.map((d: { receiver: { rut: string } }) => d.receiver.rut)).toEqual([
      '96670340-7',
    ]);
    expect((await list('?q=compañía')).total).toBe(1);
    expect((await list('?q=universidad de chile')).total).toBe(1);
    expect((await list('?q=60910000')).total).toBe(1);
    expect((await list('?q=60.910.000-1')).total).toBe(1);
    const folio = docs[4]!.folio;
    const byFolio = await list(`?q=${folio}&tipo_dte=34`);
    expect(byFolio.data.map((d: { folio: number }) => d.folio)).toEqual([folio]);
  });

  it('paginates', async () => {
    const p1 = await list('?limit=2&page=1');
    const p3 = await list('?limit=2&page=3');
    expect(p1.data).toHaveLength(2);
    expect(p3.data).toHaveLength(1);
    expect(p3).toMatchObject({ total: 5, page: 3, limit: 2 });
  });
});
