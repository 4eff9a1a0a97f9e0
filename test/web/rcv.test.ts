/**
 * The Recibidos page's missed documents (README "Missed documents (RCV)") in a real browser
 * (playwright-core driving Debian's chromium, as test/web/received.test.ts): an owner imports the
 * SII's RCV compras CSV with "Importar RCV" and sees the entries "En el SII, no recibidos por
 * correo" with their deadline; a CSV that is not the RCV is refused in Spanish naming the column;
 * a viewer sees the table but no form, and its POST is refused. Pages go through axe-core.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PASSWORD = 'correct horse battery staple';
const RCV = readFileSync('test/fixtures/rcv/RCV-compra-registro.csv');

let t: TestApp;
let base: string;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}, 120_000);

afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

let accounts = 0;

async function signedIn(role: 'owner' | 'viewer', issuer?: Awaited<ReturnType<typeof createTestIssuer>>) {
  const i = issuer ?? (await createTestIssuer(t.ctx, { name: 'Ferretería Ñandú SpA', ambiente: 0 }));
  const email = `rcv${++accounts}@ferreteria.cl`;
  await createUser(t.ctx, { accountId: i.accountId, email, role, password: PASSWORD });
  const context = await browser.newContext({ locale: 'es-CL', timezoneId: 'America/Santiago' });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${base}/dashboard/entrar`);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/[^/]+\/documentos/), page.click('button:has-text("Entrar")')]);
  return { issuer: i, page, context, dash: (path: string) => `${base}/dashboard/${i.rut}/${path}` };
}

describe('dashboard: Recibidos, missed documents (RCV)', () => {
  it('an owner imports the RCV CSV and sees what the mailbox did not bring, with its deadline', async () => {
    const { page, dash } = await signedIn('owner');
    await page.goto(dash('recibidos'));
    await expect(page.locator('#h-faltantes').textContent()).resolves.toBe('En el SII, no recibidos por correo');

    await page.setInputFiles('#rcv-file', {
      name: 'venta.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('Nro;Tipo Doc;Rut cliente\n1;33;1-9\n'),
    });
    const [refused] = await Promise.all([
      page.waitForResponse(/\/recibidos\/rcv$/),
      page.click('button:has-text("Importar RCV")'),
    ]);
    expect(refused.status()).toBe(400);
    await expect(page.locator('#rcv-file-error').textContent()).resolves.toContain('falta la columna «RUT Proveedor»');

    await page.setInputFiles('#rcv-file', { name: 'RCV.csv', mimeType: 'text/csv', buffer: RCV });
    await Promise.all([page.waitForURL(/\/recibidos\?rcv=2-2/), page.click('button:has-text("Importar RCV")')]);
    await expect(page.locator('.notice').first().textContent()).resolves.toContain(
      'RCV importado: 2 documentos, 2 nuevos',
    );
    const rows = page.locator('section[aria-labelledby="h-faltantes"] tbody tr');
    expect(await rows.count()).toBe(2);
    const first = (await rows.first().textContent()) ?? '';
    expect(first).toContain('23084');
    expect(first).toContain('Fake Company S.A.');
    // Fecha Recepcion 24/06/2019 09:55:53 + 8 × 24 h.
    expect(first).toContain('02-07-2019 09:55');
    expect(first).toContain('Vencido');
    await page.evaluate(AXE);
    const violations = (await page.evaluate(
      `axe.run({ resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`,
    )) as unknown[];
    expect(violations).toEqual([]);
  }, 180_000);

  it('a viewer sees the table but no import form, and its POST is refused', async () => {
    const owner = await signedIn('owner');
    await owner.page.goto(owner.dash('recibidos'));
    await owner.page.setInputFiles('#rcv-file', { name: 'RCV.csv', mimeType: 'text/csv', buffer: RCV });
    await Promise.all([
      owner.page.waitForURL(/\/recibidos\?rcv=/),
      owner.page.click('button:has-text("Importar RCV")'),
    ]);

    const viewer = await signedIn('viewer', owner.issuer);
    await viewer.page.goto(viewer.dash('recibidos'));
    expect(await viewer.page.locator('section[aria-labelledby="h-faltantes"] tbody tr').count()).toBe(2);
    expect(await viewer.page.locator('#rcv-file').count()).toBe(0);
    const csrf = await viewer.page.getAttribute('form[action="/dashboard/salir"] input[name="_csrf"]', 'value');
    const refused = await viewer.context.request.post(viewer.dash('recibidos/rcv'), {
      multipart: { _csrf: csrf ?? '', file: { name: 'RCV.csv', mimeType: 'text/csv', buffer: RCV } },
    });
    expect(refused.status()).toBe(403);
  }, 180_000);
});
