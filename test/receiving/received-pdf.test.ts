/**
 * `GET /api/{rut}/recibidos/{emisor}/{type}/{folio}/pdf` (README "Received documents"): a received
 * document printed by Timbre from its XML as received, in the issued documents' layout, with
 * the supplier's TED as the PDF417 (ZXing decodes it to the TED bytes of the received DTE).
 * The stand-in supplier's CAF is a certification CAF (IDK 100): its print is marked; a real
 * production factura (IDK 300) is not.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestKey, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';
import { decodePdf417, pdfPageCount, pdfText } from '../helpers/verify.ts';

let t: TestApp;
let supplier: Supplier;

beforeAll(async () => {
  supplier = standInSupplier();
  t = await buildTestApp({ env: { TIMBRE_EXTRA_CAF_KEYS: supplier.siiPublicKeyPem } });
});

function upload(api: KeyClient, rut: string, body: Buffer) {
  return api.inject({
    method: 'POST',
    url: `/api/${rut}/recibidos`,
    headers: { 'content-type': 'application/xml' },
    payload: body,
  });
}

const tedOf = (dte: Buffer): Buffer => Buffer.from(/<TED\b[\s\S]*?<\/TED>/.exec(dte.toString('latin1'))![0], 'latin1');

describe('the PDF of a received document', () => {
  it("a supplier's factura: the supplier's TED as PDF417, its resolution, one copy, marked as certification", async () => {
    const { rut, api } = await createTestTenant(t);
    const dte = supplier.dte(rut, 21);
    expect((await upload(api, rut, supplier.envelope(rut, [dte]))).json().accepted).toBe(true);
    const detail = (await api.get(`/api/${rut}/recibidos/${SUPPLIER.rut}/33/21`)).json().document;
    expect(detail.pdf_url).toMatch(new RegExp(`/api/${rut}/recibidos/${SUPPLIER.rut}/33/21/pdf$`));

    const res = await api.get(`/api/${rut}/recibidos/${SUPPLIER.rut}/33/21/pdf`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`inline; filename="DTE_${SUPPLIER.rut}_T33_F21.pdf"`);
    const pdf = res.rawPayload;
    expect(pdfPageCount(pdf)).toBe(1);
    expect(decodePdf417(pdf).equals(tedOf(dte))).toBe(true);
    const text = pdfText(pdf);
    expect(text).toContain('Ingeniería Enacon SpA');
    expect(text).toContain('Nº 21');
    expect(text).toContain('Res. 80 de 2014'); // the Carátula's NroResol / FchResol
    expect(text).toContain('CERTIFICACIÓN SII — SIN VALIDEZ TRIBUTARIA');
    expect(text).not.toContain('CEDIBLE');

    const roll = await api.get(`/api/${rut}/recibidos/${SUPPLIER.rut}/33/21/pdf?format=80mm&download=1`);
    expect(roll.headers['content-disposition']).toBe(`attachment; filename="DTE_${SUPPLIER.rut}_T33_F21_80mm.pdf"`);
    expect(decodePdf417(roll.rawPayload).equals(tedOf(dte))).toBe(true);
  });

  it('a real production factura (IDK 300, uploaded alone): unmarked, its TED as written in the file', async () => {
    const { rut, api } = await createTestTenant(t, { issuer: { rut: '76555835-2' } });
    const bytes = readFileSync(fixturePath('received', 'DTE--60910000-1--33--2336600.xml'));
    expect((await upload(api, rut, bytes)).json().accepted).toBe(true);
    const res = await api.get(`/api/${rut}/recibidos/60910000-1/33/2336600/pdf`);
    expect(res.statusCode).toBe(200);
    expect(decodePdf417(res.rawPayload).equals(tedOf(bytes))).toBe(true);
    const text = pdfText(res.rawPayload);
    expect(text).toContain('Universidad de Chile');
    expect(text).not.toContain('SIN VALIDEZ');
  });

  it("a viewer reads it; another issuer's key does not; unknown documents are 404; a bad format is a 400", async () => {
    const owner = await createTestTenant(t);
    const envelope = supplier.envelope(owner.rut, [supplier.dte(owner.rut, 22)]);
    expect((await upload(owner.api, owner.rut, envelope)).statusCode).toBe(200);
    const url = `/api/${owner.rut}/recibidos/${SUPPLIER.rut}/33/22/pdf`;
    const viewer = t.as(await createTestKey(t.ctx, owner.rut, 'viewer'));
    expect((await viewer.get(url)).statusCode).toBe(200);
    const other = await createTestTenant(t);
    expect((await other.api.get(url)).statusCode).toBe(403);
    expect((await other.api.get(`/api/${other.rut}/recibidos/${SUPPLIER.rut}/33/22/pdf`)).statusCode).toBe(404);
    const missing = await owner.api.get(`/api/${owner.rut}/recibidos/${SUPPLIER.rut}/33/999/pdf`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('RECEIVED_DOCUMENT_NOT_FOUND');
    expect((await owner.api.get(`${url}?format=a4`)).statusCode).toBe(400);
  });
});
