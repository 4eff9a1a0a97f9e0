/**
 * The dashboard for everyday work (issue 24), in Chromium: voiding and correcting a document
 * from its page. Each test has its own account and issuer.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { bearer, createTestKey } from '../helpers/app.ts';
import {
  afterBrowserTest,
  type BrowserHarness,
  screenshot,
  signedInOwner,
  startBrowserHarness,
  stopBrowserHarness,
} from '../helpers/browser.ts';

let h: BrowserHarness;

beforeAll(async () => {
  h = await startBrowserHarness();
}, 120_000);
afterEach(async () => afterBrowserTest(h));
afterAll(async () => stopBrowserHarness(h));

const RECEIVER = {
  rut: '76354771-K',
  name: 'Distribuidora Los Aromos Ltda.',
  activity: 'Comercio',
  address: 'Av. Italia 123',
  comuna: 'Ñuñoa',
  city: 'Santiago',
};

async function issueByApi(issuer: Issuer, body: Record<string, unknown>) {
  const key = await createTestKey(h.t.ctx, issuer.rut, 'owner');
  const res = await h.t.app.inject({
    method: 'POST',
    url: `/api/${issuer.rut}/emitir`,
    headers: bearer(key),
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { key, ...(res.json() as { type: number; folio: number }) };
}

describe('void and correct from the document', () => {
  it('voids a factura from its page in two clicks; the note and the factura link to each other', async () => {
    const { page, issuer, dash } = await signedInOwner(h);
    const f = await issueByApi(issuer, {
      type: 33,
      receiver: { ...RECEIVER, email: 'pagos@aromos.cl' },
      payment: 2,
      items: [
        { name: 'Clavos 2" (caja)', qty: 10, price: 1350, discount_pct: 10 },
        { name: 'Tornillos', qty: 2.5, price: 1234.5, unit: 'KG' },
        { name: 'Flete', qty: 1, price: 5000, exempt: true },
      ],
    });
    await page.goto(dash(`documentos/33/${f.folio}`));
    await page.click('a:has-text("Anular")'); // click 1
    expect(await page.textContent('main')).toContain(`Factura electrónica Nº ${f.folio}`);
    expect(await page.inputValue('#type')).toBe('61');
    expect(await page.inputValue('#ref-0-code')).toBe('1');
    await screenshot(page, 'anular-formulario');
    await Promise.all([page.waitForURL(/\/documentos\/61\//), page.click('button[value="issue"]')]); // click 2
    expect(await page.textContent('.notice-ok')).toContain('Documento emitido');
    const note = await h.t.db.prisma.document.findFirstOrThrow({ where: { issuerId: issuer.id, type: 61 } });
    const original = await h.t.db.prisma.document.findFirstOrThrow({
      where: { issuerId: issuer.id, type: 33, folio: f.folio },
    });
    expect(original.estadoSii).toBe('anulado');
    expect(original.voidedById).toBe(note.id);
    expect(Number(note.total)).toBe(Number(original.total));

    // The note links to the factura, and the factura to the note that voided it.
    await page.click(`main a:has-text("Factura electrónica Nº ${f.folio}")`);
    expect(await page.textContent('main')).toContain(`Anulado por Nota de crédito Nº ${note.folio}`);
    expect(await page.locator('a:has-text("Anular")').count()).toBe(0);
    await screenshot(page, 'anulado');
    await page.click(`.notice a:has-text("Nº ${note.folio}")`);
    expect(page.url()).toContain(`/documentos/61/${note.folio}`);

    // The API's list says which note voided the factura.
    const list = await h.t.app.inject({ url: `/api/${issuer.rut}/emisiones?tipo_dte=33`, headers: bearer(f.key) });
    const entry = (list.json() as { data: { folio: number; voided_by: unknown }[] }).data.find(
      (d) => d.folio === f.folio,
    );
    expect(entry?.voided_by).toEqual({ type: 61, folio: note.folio });
  });

  it('opens "Corregir montos" and "Corregir texto" as credit notes with CodRef 3 and 2', async () => {
    const { page, issuer, dash } = await signedInOwner(h);
    const f = await issueByApi(issuer, {
      type: 33,
      receiver: RECEIVER,
      items: [{ name: 'Asesoría', qty: 1, price: 100000 }],
    });
    await page.goto(dash(`documentos/33/${f.folio}`));
    await page.click('a:has-text("Corregir montos")');
    expect(await page.inputValue('#ref-0-code')).toBe('3');
    expect(await page.inputValue('#item-0-name')).toBe('Asesoría');
    await page.fill('#item-0-price', '20000');
    await Promise.all([page.waitForURL(/\/documentos\/61\//), page.click('button[value="issue"]')]);
    await page.goto(dash(`documentos/33/${f.folio}`));
    await page.click('a:has-text("Corregir texto")');
    expect(await page.inputValue('#ref-0-code')).toBe('2');
    expect(await page.inputValue('#item-0-price')).toBe('');
    await page.fill('#item-0-name', 'Donde dice Asesoría debe decir Asesoría contable');
    await Promise.all([page.waitForURL(/\/documentos\/61\//), page.click('button[value="issue"]')]);
    await page.goto(dash(`documentos/33/${f.folio}`));
    const notes = (await page.textContent('ul.notes')) ?? '';
    expect(notes).toContain('corrige montos');
    expect(notes).toContain('corrige texto');
    const original = await h.t.db.prisma.document.findFirstOrThrow({
      where: { issuerId: issuer.id, type: 33, folio: f.folio },
    });
    expect(original.estadoSii).toBe('local');
  });

  it('says the expected amounts when a voiding note’s totals differ', async () => {
    const { page, issuer, dash } = await signedInOwner(h);
    const f = await issueByApi(issuer, {
      type: 33,
      receiver: RECEIVER,
      items: [{ name: 'Mesa', qty: 1, price: 50000 }],
    });
    await page.goto(dash(`documentos/33/${f.folio}`));
    await page.click('a:has-text("Anular")');
    await page.fill('#item-0-price', '40000');
    await page.click('button[value="issue"]');
    expect(await page.textContent('main')).toContain('total $ 59.500 (neto $ 50.000, exento $ 0, IVA $ 9.500)');
  });
});
