/**
 * The dashboard's "Recibidos" pages in a real browser (playwright-core driving Debian's chromium,
 * as test/web/dashboard.test.ts): an owner uploads a supplier's factura with the plain file
 * input and another by drag and drop, sees them listed with their checks passed, opens one
 * (checks in Spanish, PDF, XML, RespuestaDTE); a tampered envelope shows the Spanish reason;
 * a viewer reads but has no upload form, and its POST is refused. Every page goes through
 * axe-core and is screenshotted into test-artifacts/screenshots/received-*.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';
import { replaceOnce } from '../helpers/dte-pipeline.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';
import { decodePdf417 } from '../helpers/verify.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PASSWORD = 'correct horse battery staple';

let t: TestApp;
let base: string;
let browser: Browser;
let supplier: Supplier;
const browserErrors: string[] = [];
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  supplier = standInSupplier();
  t = await buildTestApp({ env: { TIMBRE_EXTRA_CAF_KEYS: supplier.siiPublicKeyPem } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}, 120_000);

afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
  // Anything the CSP blocks (an inline script or style) or a script error fails the test.
  expect(browserErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function look(p: Page, name: string): Promise<void> {
  await p.evaluate(AXE);
  const violations = (await p.evaluate(
    `axe.run({ resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`,
  )) as unknown[];
  expect(violations, p.url()).toEqual([]);
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: 900 });
    await p.screenshot({ path: join(SHOTS, `received-${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 900 });
}

let accounts = 0;

async function signedIn(role: 'owner' | 'viewer', issuer?: Awaited<ReturnType<typeof createTestIssuer>>) {
  const i = issuer ?? (await createTestIssuer(t.ctx, { name: 'Ferretería Ñandú SpA', ambiente: 0 }));
  const email = `recibidos${++accounts}@ferreteria.cl`;
  await createUser(t.ctx, { accountId: i.accountId, email, role, password: PASSWORD });
  const context = await browser.newContext({ locale: 'es-CL', timezoneId: 'America/Santiago' });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) browserErrors.push(m.text());
  });
  page.on('pageerror', (e) => browserErrors.push(e.message));
  await page.goto(`${base}/dashboard/entrar`);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/[^/]+\/documentos/), page.click('button:has-text("Entrar")')]);
  return { issuer: i, page, context, dash: (path: string) => `${base}/dashboard/${i.rut}/${path}` };
}

describe('dashboard: Recibidos', () => {
  it("an owner uploads a supplier's factura (file input, then drag and drop), lists it, opens it with its checks in Spanish", async () => {
    const { issuer, page, context, dash } = await signedIn('owner');
    await page.goto(dash('recibidos'));
    await expect(page.locator('nav.side a[aria-current="page"]').textContent()).resolves.toBe('Recibidos');
    await expect(page.locator('.empty').textContent()).resolves.toContain('Aún no hay documentos recibidos');
    await look(page, 'empty');

    // The plain form: a file input and a button.
    const first = supplier.envelope(issuer.rut, [supplier.dte(issuer.rut, 31)]);
    await page.setInputFiles('#envio-file', { name: 'EnvioDTE_31.xml', mimeType: 'application/xml', buffer: first });
    await Promise.all([page.waitForURL(/\/recibidos\/envios\/\d+$/), page.click('button:has-text("Subir")')]);
    await expect(page.locator('.notice').first().textContent()).resolves.toContain('Envío recibido: 1 documento');
    const envelopePage = await page.textContent('main');
    expect(envelopePage).toContain('EstadoRecepEnv 0 Envio Recibido Conforme');
    expect(envelopePage).toContain('EstadoRecepDTE 0 DTE Recibido OK');
    expect(envelopePage).toContain('Firma del sobre (SetDTE)');
    expect(await page.locator('.checks .badge-red').count()).toBe(0);
    await look(page, 'envelope');

    // Drag and drop: the file dropped on the form is put in the input and sent.
    await page.goto(dash('recibidos'));
    const second = supplier.envelope(issuer.rut, [supplier.dte(issuer.rut, 32)]).toString('base64');
    await Promise.all([
      page.waitForURL(/\/recibidos\/envios\/\d+$/),
      page.evaluate(`(() => {
        const bytes = Uint8Array.from(atob(${JSON.stringify(second)}), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], 'EnvioDTE_32.xml', { type: 'application/xml' }));
        const zone = document.querySelector('form[data-dropzone]');
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      })()`),
    ]);
    await expect(page.locator('.notice').first().textContent()).resolves.toContain('Envío recibido: 1 documento');

    // The list: both, with the supplier and the state; the filters are the API's, in the URL.
    await page.goto(dash('recibidos'));
    const rows = page.locator('table.list tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain(SUPPLIER.name);
    expect(await rows.first().textContent()).toContain('Recibido');
    await look(page, 'list');
    await page.fill('#f-q', '32');
    await Promise.all([page.waitForURL(/q=32/), page.click('button:has-text("Filtrar")')]);
    expect(await rows.count()).toBe(1);
    await page.goto(dash('recibidos?tipo_dte=61'));
    await expect(page.locator('.empty').textContent()).resolves.toContain('Ningún documento recibido coincide');
    await page.goto(dash('recibidos?desde=2026-13-01'));
    await expect(page.locator('.notice').first().textContent()).resolves.toContain('no es válida');

    // The detail: supplier, totals, lines, every check passed (in Spanish), XML, PDF, answer.
    await page.goto(dash('recibidos'));
    await Promise.all([page.waitForURL(/\/recibidos\/76354771-K\/33\/\d+$/), page.click('a:has-text("Nº 31")')]);
    const detail = await page.textContent('main');
    expect(detail).toContain(SUPPLIER.name);
    expect(detail).toContain('76.354.771-K');
    expect(detail).toContain('Timbre electrónico (TED)');
    expect(detail).toContain('certificación SII (IDK 100)');
    expect(await page.locator('.checks .badge-green').count()).toBe(6);
    expect(await page.locator('.checks .badge-red').count()).toBe(0);
    await look(page, 'detail');
    const request = context.request;
    const pdf = await request.get(dash(`recibidos/${SUPPLIER.rut}/33/31/pdf`));
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    const ted = /<TED\b[\s\S]*?<\/TED>/.exec(first.toString('latin1'))![0];
    expect(decodePdf417(await pdf.body()).equals(Buffer.from(ted, 'latin1'))).toBe(true);
    const xml = await request.get(dash(`recibidos/${SUPPLIER.rut}/33/31/xml`));
    expect((await xml.text()).includes('<Folio>31</Folio>')).toBe(true);
    const answer = await request.get(
      await page.getAttribute('a:has-text("Descargar RespuestaDTE")', 'href').then((h) => `${base}${h}`),
    );
    expect(await answer.text()).toContain('<EstadoRecepEnv>0</EstadoRecepEnv>');
  }, 300_000);

  it('a tampered envelope is refused: its page says why, in Spanish, and nothing is listed', async () => {
    const { issuer, page, dash } = await signedIn('owner');
    const envelope = supplier.envelope(issuer.rut, [supplier.dte(issuer.rut, 41)]);
    const total = /<MntTotal>(\d+)<\/MntTotal>/.exec(envelope.toString('latin1'))![1]!;
    const tampered = replaceOnce(
      envelope,
      `<MntTotal>${total}</MntTotal>`,
      `<MntTotal>${Number(total) - 1}</MntTotal>`,
    );
    await page.goto(dash('recibidos'));
    await page.setInputFiles('#envio-file', { name: 'EnvioDTE_41.xml', mimeType: 'application/xml', buffer: tampered });
    await Promise.all([page.waitForURL(/\/recibidos\/envios\/\d+$/), page.click('button:has-text("Subir")')]);
    const notice = await page.locator('.notice').first().textContent();
    expect(notice).toContain('Envío rechazado: la firma del SetDTE no verifica');
    const main = await page.textContent('main');
    expect(main).toContain('Rechazado');
    expect(main).toContain('EstadoRecepEnv 2 Envio Rechazado - Error de Firma');
    expect(await page.locator('.checks .badge-red').count()).toBeGreaterThan(0);
    await look(page, 'refused');
    await page.goto(dash('recibidos'));
    await expect(page.locator('.empty').textContent()).resolves.toContain('Aún no hay documentos recibidos');
  }, 180_000);

  it('a viewer reads the list but has no upload form, and its POST is refused', async () => {
    const owner = await signedIn('owner');
    const envelope = supplier.envelope(owner.issuer.rut, [supplier.dte(owner.issuer.rut, 51)]);
    await owner.page.goto(owner.dash('recibidos'));
    await owner.page.setInputFiles('#envio-file', { name: 'e.xml', mimeType: 'application/xml', buffer: envelope });
    await Promise.all([
      owner.page.waitForURL(/\/recibidos\/envios\/\d+$/),
      owner.page.click('button:has-text("Subir")'),
    ]);

    const viewer = await signedIn('viewer', owner.issuer);
    await viewer.page.goto(viewer.dash('recibidos'));
    expect(await viewer.page.locator('table.list tbody tr').count()).toBe(1);
    expect(await viewer.page.locator('#envio-file').count()).toBe(0);
    await expect(viewer.page.locator('.empty, main').first().textContent()).resolves.not.toContain('Subir');
    const csrf = await viewer.page.getAttribute('form[action="/dashboard/salir"] input[name="_csrf"]', 'value');
    const refused = await viewer.context.request.post(viewer.dash('recibidos'), {
      multipart: { _csrf: csrf ?? '', file: { name: 'e.xml', mimeType: 'application/xml', buffer: envelope } },
    });
    expect(refused.status()).toBe(403);
  }, 180_000);
});
