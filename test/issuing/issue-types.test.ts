/**
 * Every document type issued in sandbox through the HTTP API, then checked by independent
 * implementations: the stored XML validates with xmllint against the official XSDs, its
 * signature verifies with xmlsec1, and the PDF417 decoded from the rendered PDF is the TED.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { requestFor } from '../helpers/requests.ts';
import { decodePdf417, pdfText, xmllint, xmlsecVerify } from '../helpers/verify.ts';

let t: TestApp;
let rut: string;
let api: KeyClient;

beforeAll(async () => {
  t = await buildTestApp();
  ({ rut, api } = await createTestTenant(t, { role: 'editor' }));
});

async function issue(body: Record<string, unknown>) {
  const res = await api.post(`/api/${rut}/emitir`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

function pathOf(url: string) {
  const u = new URL(url);
  expect(u.origin).toBe('http://timbre.test');
  return `${u.pathname}${u.search}`;
}

describe.each([33, 34, 39, 41, 46, 52])('type %i in sandbox', (type) => {
  it('issues, validates against the XSD, verifies with xmlsec1 and round-trips the PDF417', async () => {
    const body = await issue(requestFor(type));
    expect(body).toMatchObject({ ok: true, env: 'sandbox', sii: null, type, estado_sii: 'local' });
    expect(body.track_id).toBeUndefined();
    expect(body.folio).toBeGreaterThan(0);

    const xml = await t.app.inject({ method: 'GET', url: pathOf(body.xml_url) });
    expect(xml.statusCode).toBe(200);
    expect(xml.headers['content-type']).toMatch(/application\/xml; charset=ISO-8859-1/i);
    const bytes = xml.rawPayload;
    expect(bytes.subarray(0, 44).toString('latin1')).toBe('<?xml version="1.0" encoding="ISO-8859-1"?>\n');
    const schema = type === 39 || type === 41 ? 'timbre-boleta-dte.xsd' : 'DTE_v10.xsd';
    const lint = xmllint(bytes, schema);
    expect(lint.ok, lint.output).toBe(true);
    const sig = xmlsecVerify(bytes);
    expect(sig.ok, sig.output).toBe(true);
    const text = bytes.toString('latin1');
    expect(text).toContain(`<Folio>${body.folio}</Folio>`);
    expect(text).toContain(`<MntTotal>${body.totals.total}</MntTotal>`);

    const pdf = await t.app.inject({ method: 'GET', url: pathOf(body.pdf_url) });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const ted = /<TED version="1\.0">[\s\S]*?<\/TED>/.exec(text)?.[0];
    expect(ted).toBeDefined();
    expect(decodePdf417(pdf.rawPayload).toString('latin1')).toBe(ted);
    expect(pdfText(pdf.rawPayload)).toMatch(/SANDBOX/);
  });
});

describe('notes referencing issued documents', () => {
  /** Each note test issues the factura it refers to (no test relies on another). */
  async function aFactura() {
    const body = await issue(requestFor(33));
    return { folio: body.folio as number, total: body.totals.total as number, date: body.date as string };
  }

  it('a debit note (56) on the factura', async () => {
    const f = await aFactura();
    const body = await issue({
      type: 56,
      receiver: requestFor(33).receiver,
      items: [{ name: 'Intereses por mora', qty: 1, price: 12000 }],
      refs: [{ type: 33, folio: f.folio, date: f.date, reason: 'Intereses por pago fuera de plazo' }],
    });
    const xml = await t.app.inject({ method: 'GET', url: pathOf(body.xml_url) });
    expect(xmllint(xml.rawPayload, 'DTE_v10.xsd').ok).toBe(true);
    expect(xmlsecVerify(xml.rawPayload).ok).toBe(true);
    expect(xml.rawPayload.toString('latin1')).toMatch(/<TpoDocRef>33<\/TpoDocRef>/);
  });

  it('a credit note (61) that voids the factura marks it anulado at once (sandbox)', async () => {
    const f = await aFactura();
    const original = requestFor(33) as { receiver: { rut: string; name: string }; items: unknown[] };
    const body = await issue({
      type: 61,
      receiver: { rut: original.receiver.rut, name: original.receiver.name },
      items: original.items,
      refs: [{ type: 33, folio: f.folio, date: f.date, code: 1, reason: 'Anula factura' }],
    });
    expect(body.totals.total).toBe(f.total);
    const xml = await t.app.inject({ method: 'GET', url: pathOf(body.xml_url) });
    expect(xmllint(xml.rawPayload, 'DTE_v10.xsd').ok).toBe(true);
    expect(xmlsecVerify(xml.rawPayload).ok).toBe(true);
    const pdf = await t.app.inject({ method: 'GET', url: pathOf(body.pdf_url) });
    const ted = /<TED version="1\.0">[\s\S]*?<\/TED>/.exec(xml.rawPayload.toString('latin1'))?.[0];
    expect(decodePdf417(pdf.rawPayload).toString('latin1')).toBe(ted);
    const list = await api.get(`/api/${rut}/emisiones?tipo_dte=33`);
    const factura = list.json().data.find((d: { folio: number }) => d.folio === f.folio);
    expect(factura.estado_sii).toBe('anulado');
  });
});

describe('status in sandbox', () => {
  it('emision_estado_dte answers the stored state with sii null: nothing is asked to the SII', async () => {
    const body = await issue(requestFor(33));
    const res = await api.post(`/api/${rut}/emision_estado_dte`, { type: 33, folio: body.folio });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      type: 33,
      folio: body.folio,
      env: 'sandbox',
      estado_sii: 'local',
      sii: null,
      receiver_action: null,
      cesion: null,
    });
  });
});
