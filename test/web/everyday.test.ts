/**
 * The dashboard for everyday work, in Chromium: voiding and correcting a document
 * from its page; secrets shown once on a page reached by a redirect (a reload creates nothing);
 * the account's keys on one page. Each test has its own account and issuer.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { createApiKey } from '../../src/admin/api-keys.ts';
import { bearer, createTestIssuer, createTestKey } from '../helpers/app.ts';
import {
  afterBrowserTest,
  type BrowserHarness,
  screenshot,
  signedInOwner,
  startBrowserHarness,
  stopBrowserHarness,
} from '../helpers/browser.ts';

let h: BrowserHarness;

/** English that must not reach a page (the leaks once found on the dashboard, and their family). */
const ENGLISH =
  /\b(must|is not allowed|is required|There are no|Invalid|expected|received|not followed|refused|within \d+ ms)\b/;

/** The words of the page's main content, without identifiers shown as code (event types, keys). */
async function noEnglish(page: import('playwright-core').Page): Promise<void> {
  // A string, evaluated in the page (the tests are compiled without the DOM's types).
  const words = (await page.evaluate(
    `(() => { const m = document.querySelector('main').cloneNode(true); m.querySelectorAll('code').forEach((c) => c.remove()); return m.textContent; })()`,
  )) as string;
  expect(words, page.url()).not.toMatch(ENGLISH);
}

beforeAll(async () => {
  h = await startBrowserHarness({ TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true' });
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
    await noEnglish(page);
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
    await noEnglish(page);
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

describe('post/redirect/get: a secret is shown once, a reload creates nothing', () => {
  it('creates one key, shows it once, and a reload says it was already shown', async () => {
    const { page, issuer, dash } = await signedInOwner(h);
    await page.goto(dash('claves'));
    expect(await page.inputValue('#key-role')).toBe('viewer');
    await page.fill('#key-name', 'ERP contabilidad');
    await page.click('button:has-text("Crear clave")');
    expect(page.url()).toMatch(/\/claves\/nueva\/[0-9a-f-]{36}$/);
    const key = (await page.textContent('#new-key'))?.trim() ?? '';
    expect(key).toMatch(/^timbre_[0-9A-Za-z]{40}$/);
    expect(await page.textContent('.new-key')).toContain('«ERP contabilidad»');
    await screenshot(page, 'clave-nueva');
    await page.reload();
    expect(await page.textContent('main')).toContain('Esta clave ya se mostró');
    expect(await page.content()).not.toContain(key);
    await page.goBack();
    await page.goForward();
    expect(await page.content()).not.toContain(key);
    const keys = await h.t.db.prisma.apiKey.findMany({ where: { accountId: issuer.accountId } });
    expect(keys.map((k) => [k.name, k.role])).toEqual([['ERP contabilidad', 'viewer']]);
  });

  it('creates one webhook endpoint, shows its secret once; a reload creates nothing; a failed test is in Spanish', async () => {
    const { page, issuer, dash } = await signedInOwner(h);
    await page.goto(dash('webhooks'));
    // Port 9 (discard) refuses connections: the test ping fails.
    await page.fill('#wh-url', 'http://127.0.0.1:9/timbre');
    await page.click('button:has-text("Agregar endpoint")');
    expect(page.url()).toMatch(/\/webhooks\/nuevo\/[0-9a-f-]{36}$/);
    const secret = (await page.textContent('#new-secret'))?.trim() ?? '';
    expect(secret).toMatch(/^whsec_/);
    await page.reload();
    expect(await page.textContent('main')).toContain('ya se mostró');
    expect(await page.content()).not.toContain(secret);
    expect(await h.t.db.prisma.webhookEndpoint.count({ where: { issuerId: issuer.id } })).toBe(1);
    await page.click('button:has-text("Enviar prueba")');
    const failed = (await page.textContent('.notice-error')) ?? '';
    expect(failed).toContain('La prueba no se entregó. El servidor rechazó la conexión');
    expect(failed).not.toMatch(/ECONNREFUSED|connect/);
    await page.reload();
    expect(await h.t.db.prisma.webhookDelivery.count({ where: { issuerId: issuer.id } })).toBe(1);
    await screenshot(page, 'webhook-prueba-fallida');
    await noEnglish(page);
  });

  it('shows a held secret only to the session that created it', async () => {
    const a = await signedInOwner(h);
    await a.page.goto(a.dash('claves'));
    await Promise.all([a.page.waitForURL(/\/nueva\//), a.page.click('button:has-text("Crear clave")')]);
    // Not read by a: the same URL in another session of the same account shows nothing.
    const url = a.page.url();
    const b = await signedInOwner(h);
    await b.page.goto(url.replace(a.issuer.rut, b.issuer.rut));
    expect(await b.page.locator('#new-key').count()).toBe(0);
  });
});

describe('keys on the account’s level', () => {
  it('lists every active key of the account with its issuer and name; Lector survives an error; Revocar on a phone', async () => {
    const { page, issuer } = await signedInOwner(h);
    const second = await createTestIssuer(h.t.ctx, { accountId: issuer.accountId, name: 'Sucursal Norte SpA' });
    await createApiKey(h.t.ctx, { rut: issuer.rut, role: 'editor', name: 'Tienda web' });
    await page.goto(`${h.base}/dashboard/${second.rut}/claves`);
    const table = (await page.textContent('table.keys')) ?? '';
    expect(table).toContain('Tienda web');
    expect(table).toContain(issuer.name);
    expect(await page.textContent('main')).toContain('Hay 1 de 5 claves activas en la cuenta');
    // A name over the limit is refused with the limit, not cut; the role chosen stays chosen.
    await page.fill('#key-name', 'x'.repeat(61));
    await page.click('button:has-text("Crear clave")');
    expect(await page.textContent('#key-name-error')).toContain('Máximo 60 caracteres');
    expect(await page.inputValue('#key-name')).toHaveLength(61);
    expect(await page.inputValue('#key-role')).toBe('viewer');
    expect(await h.t.db.prisma.apiKey.count({ where: { accountId: issuer.accountId } })).toBe(1);
    await page.setViewportSize({ width: 390, height: 800 });
    const revoke = page.locator('table.keys button:has-text("Revocar")').first();
    expect(await revoke.isVisible()).toBe(true);
    const box = await revoke.boundingBox();
    expect((box?.x ?? 999) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    await screenshot(page, 'claves-cuenta');
    await noEnglish(page);
  });
});

describe('setup checklist', () => {
  it('shows the first steps on a new issuer’s first page, each linking to its page', async () => {
    const { page, dash } = await signedInOwner(h);
    await page.goto(dash('documentos'));
    expect(await page.textContent('.checklist h2')).toBe('Primeros pasos (0 de 5)');
    await screenshot(page, 'primeros-pasos');
    await noEnglish(page);
    await page.click('.checklist a:has-text("Crea una clave API")');
    expect(page.url()).toBe(dash('claves'));
    await page.click('button:has-text("Crear clave")');
    await page.goto(dash('documentos'));
    expect(await page.textContent('.checklist h2')).toBe('Primeros pasos (1 de 5)');
  });
});
