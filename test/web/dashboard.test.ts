/**
 * The dashboard in a real browser: playwright-core driving Debian's chromium (/usr/bin/chromium,
 * installed by .ci/run) against the app listening on a random port, with a real PostgreSQL.
 * One browser for the file. Every page is checked with axe-core (no serious or critical
 * violations) and screenshotted at 1280 and 390 px into test-artifacts/screenshots/.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { generateCaf } from '../../src/dte/caf.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { dateOfInstantInSantiago } from '../../src/dte/chile-time.ts';
import { formatRutDisplay } from '../../src/dte/rut.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { bearer, buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { documentContent } from '../../src/issuing/document-content.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PASSWORD = 'correct horse battery staple';

let t: TestApp;
let base: string;
let browser: Browser;
const signer = generateKeyPairSync('rsa', { modulusLength: 1024 });
const files = mkdtempSync(join(tmpdir(), 'dashboard-'));
/** Errors of the current test's pages: checked after each test. */
const browserErrors: string[] = [];
/** Contexts opened by the current test: closed after it. */
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const pem = signer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  t = await buildTestApp({ env: { TIMBRE_EXTRA_CAF_KEYS: pem } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
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

/** axe-core on the current page (injected through the DevTools protocol: the CSP forbids inline scripts). */
async function axe(p: Page): Promise<void> {
  await p.evaluate(AXE);
  const violations = (await p.evaluate(
    `axe.run({ resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`,
  )) as { id: string; impact: string; nodes: string[] }[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${p.url()}: ${JSON.stringify(serious)}`).toEqual([]);
}

/** axe, then screenshots at 1280 and 390 px. */
async function look(p: Page, name: string): Promise<void> {
  await axe(p);
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: 900 });
    await p.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 900 });
}

async function signIn(p: Page, email: string, password: string): Promise<void> {
  await p.goto(`${base}/dashboard/entrar`);
  await p.fill('#email', email);
  await p.fill('#password', password);
  await Promise.all([p.waitForURL(/\/dashboard\/[^/]+\/documentos/), p.click('button:has-text("Entrar")')]);
}

/** A new browser context (closed after the test) and its page, watched for CSP and script errors. */
async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: 'es-CL', timezoneId: 'America/Santiago' });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) browserErrors.push(m.text());
  });
  page.on('pageerror', (e) => browserErrors.push(e.message));
  return { context, page };
}

let accounts = 0;

/** A new account with one sandbox issuer and its owner, whose e-mail is unique to the test. */
async function newAccount(name = 'Ferretería Ñandú SpA') {
  const issuer = await createTestIssuer(t.ctx, { name, ambiente: 0 });
  const email = `duena${++accounts}@ferreteria.cl`;
  await createUser(t.ctx, { accountId: issuer.accountId, email, role: 'owner', password: PASSWORD });
  return { issuer, email, dash: (path: string) => `${base}/dashboard/${issuer.rut}/${path}` };
}

type Owner = Awaited<ReturnType<typeof newAccount>> & { context: BrowserContext; page: Page };

/** A new account whose owner is signed in, in a browser context of its own. */
async function signedInOwner(name?: string): Promise<Owner> {
  const account = await newAccount(name);
  const { context, page } = await newPage();
  await signIn(page, account.email, PASSWORD);
  return { ...account, context, page };
}

const RECEIVER = {
  rut: '76354771-K',
  name: 'Distribuidora Los Aromos Ltda.',
  activity: 'Comercio',
  address: 'Av. Italia 123',
  comuna: 'Ñuñoa',
  city: 'Santiago',
};

const apiKeys = new Map<string, string>();

/** Issues a document through the API (for tests about what the dashboard shows of it). */
async function issueByApi(issuer: Issuer, body: Record<string, unknown>): Promise<{ type: number; folio: number }> {
  let key = apiKeys.get(issuer.id);
  if (!key) {
    key = await createTestKey(t.ctx, issuer.rut, 'owner');
    apiKeys.set(issuer.id, key);
  }
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${issuer.rut}/emitir`,
    headers: bearer(key),
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
  const { type, folio } = res.json() as { type: number; folio: number };
  return { type, folio };
}

/** One document of each of the eight types, five of them to Los Aromos. */
async function issueEightByApi(issuer: Issuer): Promise<{ type: number; folio: number }[]> {
  // The documents' date is Santiago's today (the API's default), which from 21:00 there is
  // already tomorrow in UTC.
  const date = dateOfInstantInSantiago(new Date());
  const f33 = await issueByApi(issuer, {
    type: 33,
    receiver: RECEIVER,
    items: [
      { name: 'Clavos 2" (caja)', qty: 10, price: 1350 },
      { name: 'Flete', qty: 1, price: 5000, exempt: true },
    ],
  });
  return [
    f33,
    await issueByApi(issuer, {
      type: 34,
      receiver: RECEIVER,
      items: [{ name: 'Asesoría contable', qty: 1, price: 150000 }],
    }),
    await issueByApi(issuer, { type: 39, items: [{ name: 'Café ½ kg', qty: 2, price: 6990 }] }),
    await issueByApi(issuer, { type: 41, items: [{ name: 'Entrada museo', qty: 2, price: 3000 }] }),
    await issueByApi(issuer, {
      type: 46,
      receiver: RECEIVER,
      items: [{ name: 'Chatarra de cobre', qty: 120, price: 3500 }],
    }),
    await issueByApi(issuer, {
      type: 52,
      dispatch: { transfer_type: 5 },
      items: [{ name: 'Estanterías (traslado)', qty: 4 }],
    }),
    await issueByApi(issuer, {
      type: 56,
      receiver: RECEIVER,
      refs: [{ type: 33, folio: f33.folio, date, reason: 'Intereses' }],
      items: [{ name: 'Intereses por mora', qty: 1, price: 2000 }],
    }),
    await issueByApi(issuer, {
      type: 61,
      receiver: RECEIVER,
      refs: [{ type: 33, folio: f33.folio, date, code: 3, reason: 'Devolución' }],
      items: [{ name: 'Devolución parcial', qty: 1, price: 1000 }],
    }),
  ];
}

// Each test has its own account, issuer and signed-in browser context, and issues or uploads
// what it needs: any order, or one test alone, gives the same result.
describe('dashboard in chromium', () => {
  it('signs in: the same answer for an unknown e-mail and a wrong password', async () => {
    const { issuer, email } = await newAccount();
    const { context, page } = await newPage();
    await page.goto(`${base}/dashboard/${issuer.rut}/documentos`);
    expect(page.url()).toContain('/dashboard/entrar');
    await look(page, 'entrar');
    await page.fill('#email', 'nadie@ferreteria.cl');
    await page.fill('#password', 'no importa nada');
    await page.click('button:has-text("Entrar")');
    const unknown = await page.textContent('.notice-error');
    await page.fill('#email', email);
    await page.fill('#password', 'contraseña equivocada');
    await page.click('button:has-text("Entrar")');
    expect(await page.textContent('.notice-error')).toBe(unknown);
    expect(unknown).toContain('El correo o la contraseña no son correctos.');
    await signIn(page, email, PASSWORD);
    expect(page.url()).toContain(`/dashboard/${issuer.rut}/documentos`);
    await expect.poll(() => page.textContent('h1')).toBe('Documentos');
    expect(await page.textContent('.env')).toBe('SANDBOX');
    await look(page, 'documentos-vacio');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'timbre_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
  });

  it('creates a key shown once, which works on the API until it is revoked (then 401)', async () => {
    const { page, issuer, dash } = await signedInOwner();
    await page.goto(dash('claves'));
    await page.selectOption('#key-role', 'editor');
    await page.click('button:has-text("Crear clave")');
    const key = (await page.textContent('#new-key'))?.trim() ?? '';
    expect(key).toMatch(/^timbre_[0-9A-Za-z]{40}$/);
    await look(page, 'claves-nueva');
    const api = () =>
      fetch(`${base}/api/${issuer.rut}/emisiones`, { headers: { authorization: `Bearer ${key}` } }).then(
        (r) => r.status,
      );
    expect(await api()).toBe(200);
    await page.goto(dash('claves'));
    expect(await page.content()).not.toContain(key);
    await page.click(`tr:has-text("${key.slice(0, 13)}") button:has-text("Revocar")`);
    expect(await page.textContent('.confirm')).toContain(key.slice(0, 13));
    await page.click('button:has-text("Sí, revocar")');
    expect(await page.textContent('.notice-ok')).toContain('Clave revocada');
    expect(await api()).toBe(401);
  });

  it('explains the 5-active-keys limit and creates no sixth key', async () => {
    const { page, issuer, dash } = await signedInOwner();
    for (let i = 0; i < 6; i++) {
      await page.goto(dash('claves'));
      await page.click('button:has-text("Crear clave")');
    }
    const text = await page.textContent('main');
    expect(text).toContain('Ya hay 5 claves activas en la cuenta: revoca una para crear otra.');
    expect(await t.db.prisma.apiKey.count({ where: { accountId: issuer.accountId, revokedAt: null } })).toBe(5);
  });

  it('uploads a certificate: wrong password and expired are told next to the field, nothing saved', async () => {
    const { page, issuer, dash } = await signedInOwner();
    const good = generateTestCertificate({ holderRut: '13185095-6', name: 'JUANA PÉREZ SOTO' });
    const expired = generateTestCertificate({
      holderRut: '13185095-6',
      name: 'VENCIDO',
      notBefore: new Date(Date.now() - 400 * 86_400_000),
      validDays: 30,
    });
    writeFileSync(join(files, 'firma.p12'), good.p12);
    writeFileSync(join(files, 'vencido.p12'), expired.p12);
    await page.goto(dash('certificado'));
    await look(page, 'certificado-vacio');
    await page.setInputFiles('#cert-file', join(files, 'firma.p12'));
    await page.fill('#cert-password', 'no es esta');
    await page.click('button:has-text("Subir certificado")');
    expect(await page.textContent('#cert-password-error')).toContain('La contraseña del certificado no es correcta.');
    expect(await page.getAttribute('#cert-password', 'aria-invalid')).toBe('true');
    await page.setInputFiles('#cert-file', join(files, 'vencido.p12'));
    await page.fill('#cert-password', expired.password);
    await page.click('button:has-text("Subir certificado")');
    expect(await page.textContent('#cert-file-error')).toContain('vencido');
    expect(await t.db.prisma.certificate.count({ where: { issuerId: issuer.id, kind: 'imported' } })).toBe(0);
    await page.setInputFiles('#cert-file', join(files, 'firma.p12'));
    await page.fill('#cert-password', good.password);
    await page.click('button:has-text("Subir certificado")');
    expect(await page.textContent('.notice-ok')).toContain('Certificado cargado');
    const row = await page.textContent('dl.cert');
    expect(row).toContain('JUANA PÉREZ SOTO');
    expect(row).toContain('13.185.095-6');
    await look(page, 'certificado');
  });

  it('uploads a CAF; a CAF of another RUT is refused naming that RUT', async () => {
    const { page, issuer, dash } = await signedInOwner();
    const caf = (rut: string) =>
      Buffer.from(
        generateCaf({
          rut,
          name: 'FERRETERIA',
          type: 33,
          from: 5001,
          to: 5100,
          authorisedAt: '2026-01-02',
          signerKey: signer.privateKey,
          idk: 100,
        }),
        'latin1',
      );
    writeFileSync(join(files, 'caf-ajeno.xml'), caf('77123456-9'));
    writeFileSync(join(files, 'caf.xml'), caf(issuer.rut));
    await page.goto(dash('folios'));
    await page.setInputFiles('#caf-file', join(files, 'caf-ajeno.xml'));
    await page.click('button:has-text("Subir CAF")');
    expect(await page.textContent('#caf-file-error')).toContain('El CAF es de otro RUT (77.123.456-9).');
    expect(await t.db.prisma.caf.count({ where: { issuerId: issuer.id, environment: 'live' } })).toBe(0);
    await page.setInputFiles('#caf-file', join(files, 'caf.xml'));
    await page.click('button:has-text("Subir CAF")');
    expect(await page.textContent('.notice-ok')).toContain('CAF cargado');
    expect(await t.db.prisma.caf.count({ where: { issuerId: issuer.id, environment: 'live', type: 33 } })).toBe(1);
  });

  async function fillIssue(
    { page, dash }: Owner,
    type: number,
    lines: { name: string; qty?: string; price?: string; exempt?: boolean; discount?: string }[],
    opts: {
      receiver?: boolean;
      refs?: { type: string; folio: string; code?: string; reason?: string }[];
      transfer?: string;
    } = {},
  ) {
    await page.goto(dash('emitir'));
    await page.selectOption('#type', String(type));
    if (opts.receiver !== false) {
      await page.fill('#receiver-rut', RECEIVER.rut);
      await page.fill('#receiver-name', RECEIVER.name);
      if (type !== 61) {
        for (const k of ['activity', 'address', 'comuna', 'city'] as const)
          await page.fill(`#receiver-${k}`, RECEIVER[k]);
      }
    }
    for (const [i, l] of lines.entries()) {
      await page.fill(`#item-${i}-name`, l.name);
      if (l.qty) await page.fill(`#item-${i}-qty`, l.qty);
      if (l.price) await page.fill(`#item-${i}-price`, l.price);
      if (l.discount) await page.fill(`#item-${i}-discount_pct`, l.discount);
      if (l.exempt) await page.check(`#item-${i}-exempt`);
    }
    for (const [i, r] of (opts.refs ?? []).entries()) {
      await page.fill(`#ref-${i}-type`, r.type);
      await page.fill(`#ref-${i}-folio`, r.folio);
      await page.fill(`#ref-${i}-date`, dateOfInstantInSantiago(new Date()));
      if (r.code) await page.selectOption(`#ref-${i}-code`, r.code);
      if (r.reason) await page.fill(`#ref-${i}-reason`, r.reason);
    }
    if (opts.transfer) await page.selectOption('#transfer_type', opts.transfer);
  }

  async function issue({ page }: Owner): Promise<number> {
    await Promise.all([page.waitForURL(/ok=emitido/), page.click('button[data-issue-button]')]);
    const folio = Number(/\/(\d+)\?env=/.exec(page.url())?.[1]);
    expect(folio).toBeGreaterThan(0);
    return folio;
  }

  it('shows live totals from the preview while lines change, and an invalid line next to its field', async () => {
    const o = await signedInOwner();
    const { page, issuer, dash } = o;
    await fillIssue(o, 33, [
      { name: 'Clavos 2" (caja)', qty: '10', price: '1.350' },
      { name: 'Flete', qty: '1', price: '5000', exempt: true },
    ]);
    // 13 500 net + VAT 2 565 + 5 000 exempt.
    await expect.poll(() => page.textContent('[data-total="total"]')).toBe('$ 21.065');
    expect(await page.textContent('[data-total="vat"]')).toBe('$ 2.565');
    await look(page, 'emitir');
    const draft = await page.request.post(dash('emitir/borrador'), {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      data: (await page.evaluate(
        `new URLSearchParams(new FormData(document.querySelector('form[data-issue-form]'))).toString()`,
      )) as string,
    });
    expect(draft.headers()['content-type']).toBe('application/pdf');
    writeFileSync(join(files, 'borrador.pdf'), await draft.body());
    expect(execFileSync('pdftotext', [join(files, 'borrador.pdf'), '-']).toString()).toContain('BORRADOR');
    await page.fill('#item-1-qty', '-2');
    await page.click('button[data-issue-button]');
    expect(await page.textContent('#item-1-qty-error')).toContain('Debe ser mayor que 0.');
    expect(await t.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(0);
    await look(page, 'emitir-error');
  });

  it('explains the SII format rules next to their fields, and issues nothing', async () => {
    const o = await signedInOwner();
    const { page, issuer } = o;
    await fillIssue(o, 33, [{ name: 'Clavos', qty: '1', price: '1000' }], { receiver: false });
    await page.fill('#receiver-rut', RECEIVER.rut);
    await page.fill('#receiver-name', RECEIVER.name);
    await page.click('button[data-issue-button]');
    for (const k of ['activity', 'address', 'comuna'])
      expect(await page.textContent(`#receiver-${k}-error`)).toContain('El SII lo exige en el tipo 33.');
    expect(await page.locator('#receiver-city-error').count()).toBe(0);

    await fillIssue(o, 52, [{ name: 'Estanterías', qty: '4' }], { transfer: '5' });
    await page.click('button[data-issue-button]');
    expect(await page.textContent('#receiver-rut-error')).toContain('el receptor es el propio emisor');

    await fillIssue(o, 52, [{ name: 'Estanterías', qty: '4' }], { transfer: '6' });
    await page.selectOption('#dispatch_type', '2');
    await page.click('button[data-issue-button]');
    expect(await page.textContent('#transport-address-error')).toContain('cuando el emisor despacha');
    expect(await page.textContent('#transport-comuna-error')).toContain('cuando el emisor despacha');
    await look(page, 'emitir-guia-error');

    await fillIssue(o, 56, [{ name: 'Ajuste', qty: '1', price: '1000' }], {
      refs: [{ type: '33', folio: '1', code: '2', reason: 'Corrige giro' }],
    });
    await page.click('button[data-issue-button]');
    expect(await page.textContent('#ref-0-code-error')).toContain('existe solo en notas de crédito (61)');

    await fillIssue(o, 39, [{ name: 'Agua', qty: '1', price: '1000' }], { receiver: false });
    await page.selectOption('#service_indicator', '2');
    await page.click('button[data-issue-button]');
    expect(await page.textContent('#period-from-error')).toContain('servicios periódicos');
    expect(await page.textContent('#due_date-error')).toContain('domiciliarios');
    expect(await page.textContent('#receiver-address-error')).toContain('servicios periódicos');
    expect(await t.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(0);
  });

  it('issues each of the eight types through the form and finds each in the list', async () => {
    const o = await signedInOwner();
    const { page, issuer, dash } = o;
    const issued: { type: number; folio: number }[] = [];
    await fillIssue(o, 33, [
      { name: 'Clavos 2" (caja)', qty: '10', price: '1.350', discount: '10' },
      { name: 'Flete', qty: '1', price: '5000', exempt: true },
    ]);
    const f33 = await issue(o);
    issued.push({ type: 33, folio: f33 });
    expect(await page.textContent('h1')).toBe(`Factura electrónica Nº ${f33}`);
    expect(await page.textContent('.notice-ok')).toContain(`folio ${f33}`);
    await look(page, 'documento');

    await fillIssue(o, 34, [{ name: 'Asesoría contable', qty: '1', price: '150000' }]);
    await page.selectOption('#payment', '2');
    const f34 = await issue(o);
    issued.push({ type: 34, folio: f34 });
    const d34 = await t.db.prisma.document.findFirstOrThrow({ where: { issuerId: issuer.id, type: 34, folio: f34 } });
    expect((await documentContent(t.ctx, d34)).model.payment).toBe(2);
    await fillIssue(o, 39, [{ name: 'Café ½ kg', qty: '2', price: '6990' }], { receiver: false });
    issued.push({ type: 39, folio: await issue(o) });
    await fillIssue(o, 41, [{ name: 'Entrada museo', qty: '2', price: '3000' }], { receiver: false });
    issued.push({ type: 41, folio: await issue(o) });
    await page.goto(dash('emitir'));
    await fillIssue(o, 46, [{ name: 'Chatarra de cobre', qty: '120', price: '3500' }]);
    issued.push({ type: 46, folio: await issue(o) });
    // A traslado interno (5) is addressed to the issuer itself: the receiver is left empty.
    await fillIssue(o, 52, [{ name: 'Estanterías (traslado)', qty: '4' }], { transfer: '5', receiver: false });
    const f52 = await issue(o);
    issued.push({ type: 52, folio: f52 });
    const d52 = await t.db.prisma.document.findFirstOrThrow({ where: { issuerId: issuer.id, type: 52, folio: f52 } });
    expect(d52.receiverRut).toBe(issuer.rut);
    await fillIssue(o, 56, [{ name: 'Intereses por mora', qty: '1', price: '2000' }], {
      refs: [{ type: '33', folio: String(f33), reason: 'Intereses' }],
    });
    issued.push({ type: 56, folio: await issue(o) });
    await fillIssue(o, 61, [{ name: 'Devolución parcial', qty: '1', price: '1000' }], {
      refs: [{ type: '33', folio: String(f33), code: '3', reason: 'Devolución' }],
    });
    issued.push({ type: 61, folio: await issue(o) });

    await page.goto(dash('documentos'));
    const list = (await page.textContent('table.list tbody')) ?? '';
    for (const d of issued) {
      expect(await page.locator(`a[href*="/documentos/${d.type}/${d.folio}?"]`).count(), `${d.type}/${d.folio}`).toBe(
        1,
      );
    }
    expect(list).toContain(RECEIVER.name);
    expect(list).toContain('76.354.771-K');
    await look(page, 'documentos');
  });

  it('opens the PDF of a document inline and as a download', async () => {
    const { page, issuer, dash } = await signedInOwner();
    const d = await issueByApi(issuer, {
      type: 33,
      receiver: RECEIVER,
      items: [{ name: 'Clavos 2" (caja)', qty: 10, price: 1350 }],
    });
    await page.goto(dash(`documentos/${d.type}/${d.folio}?env=sandbox`));
    const src = await page.getAttribute('iframe.pdf', 'src');
    const pdf = await page.request.get(`${base}${src}`);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a:has-text("Descargar PDF")')]);
    expect(download.suggestedFilename()).toBe(`DTE_${issuer.rut}_T33_F${d.folio}.pdf`);
    const xml = await page.request.get(`${base}${src?.replace('/pdf?', '/xml?')}`);
    expect(xml.headers()['content-type']).toContain('application/xml');
  });

  it('never issues twice for one form render (double submit)', async () => {
    const o = await signedInOwner();
    const { page, issuer, dash } = o;
    await fillIssue(o, 39, [{ name: 'Pan amasado', qty: '1', price: '2400' }], { receiver: false });
    const before = await t.db.prisma.document.count({ where: { issuerId: issuer.id } });
    const body = (await page.evaluate(
      `(() => { const d = new URLSearchParams(new FormData(document.querySelector('form[data-issue-form]'))); d.set('action', 'issue'); return d.toString(); })()`,
    )) as string;
    const post = () =>
      page.request.post(dash('emitir'), {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        data: body,
        maxRedirects: 0,
      });
    const [a, b] = await Promise.all([post(), post()]);
    expect(a.headers().location).toBeDefined();
    expect(b.headers().location).toBe(a.headers().location);
    expect(await t.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(before + 1);
  });

  it('filters and searches the list, keeping the filters in the URL', async () => {
    const { page, issuer, dash } = await signedInOwner();
    await issueEightByApi(issuer);
    await page.goto(dash('documentos'));
    await page.selectOption('#f-tipo', '61');
    await Promise.all([page.waitForURL(/tipo_dte=61/), page.click('button:has-text("Filtrar")')]);
    expect(await page.locator('table.list tbody tr').count()).toBe(1);
    await page.goBack();
    await page.goto(dash('documentos?q=aromos'));
    // Boletas without a receiver and the internal guía 52 (to the issuer) are not "Los Aromos":
    // 33, 34, 46, 56, 61.
    expect(await page.locator('table.list tbody tr').count()).toBe(5);
    await page.goto(dash('documentos?q=zzzz-nadie'));
    expect(await page.textContent('main')).toContain('Ningún documento coincide');
    await page.goto(dash('documentos?tipo_dte=99&desde=2026-02-30'));
    expect(await page.textContent('main')).toContain('El tipo de documento no existe.');
  });

  it('edits issuer settings and switches sandbox → live → sandbox after a confirmation', async () => {
    const { page, issuer, dash } = await signedInOwner();
    await page.goto(dash('configuracion'));
    await look(page, 'configuracion');
    await page.fill('#set-giro', 'Ferretería y materiales de construcción');
    await page.fill('#set-acteco', '475201, 12');
    await page.click('button:has-text("Guardar")');
    expect(await page.textContent('#set-acteco-error')).toContain('6 dígitos');
    await page.fill('#set-acteco', '475201');
    await page.fill('#set-sii_office', 'SANTIAGO ORIENTE');
    await page.click('button:has-text("Guardar")');
    expect(await page.textContent('.notice-ok')).toContain('Cambios guardados');
    const saved = await t.db.prisma.issuer.findUniqueOrThrow({ where: { id: issuer.id } });
    expect(saved.giro).toBe('Ferretería y materiales de construcción');
    expect(saved.siiOffice).toBe('SANTIAGO ORIENTE');
    expect(await page.inputValue('#set-sii_office')).toBe('SANTIAGO ORIENTE');
    await page.selectOption('#set-ambiente', '1');
    await page.click('button:has-text("Guardar")');
    expect(await page.textContent('.confirm')).toContain('se enviará al SII');
    await look(page, 'configuracion-confirmar');
    expect((await t.db.prisma.issuer.findUniqueOrThrow({ where: { id: issuer.id } })).siiAmbiente).toBe(0);
    await page.click('button:has-text("Sí, cambiar a producción")');
    expect(await page.textContent('.env')).toBe('PRODUCCIÓN');
    await page.selectOption('#set-ambiente', '0');
    await page.click('button:has-text("Guardar")');
    await page.click('button:has-text("Sí, volver a sandbox")');
    expect(await page.textContent('.env')).toBe('SANDBOX');
  });

  it('shows folios, webhooks and users pages, and switches issuer', async () => {
    const { page, issuer, email, dash } = await signedInOwner();
    const second = await createTestIssuer(t.ctx, { name: 'Segunda Empresa Ltda.', accountId: issuer.accountId });
    // A factura and a boleta exenta: their sandbox ranges (1..1000) are made on the first document.
    await issueByApi(issuer, { type: 33, receiver: RECEIVER, items: [{ name: 'Clavos', qty: 1, price: 1000 }] });
    await issueByApi(issuer, { type: 41, items: [{ name: 'Entrada museo', qty: 1, price: 3000 }] });
    await page.goto(dash('folios'));
    expect(await page.textContent('table.list')).toContain('Factura electrónica');
    await page.selectOption('#req-tipo', '41');
    await page.fill('#req-cantidad', '50');
    await page.click('button:has-text("Solicitar folios")');
    expect(await page.textContent('.notice-ok')).toContain('Folios obtenidos');
    // Sandbox: the next range of type 41 after the automatic 1..1000.
    expect(await page.locator('tr:has-text("Boleta exenta"):has-text("1050")').count()).toBe(1);
    await look(page, 'folios');
    await page.goto(dash('webhooks'));
    expect(await page.textContent('main')).toContain('Aún no hay endpoints');
    await look(page, 'webhooks');
    await page.goto(dash('usuarios'));
    expect(await page.textContent('table.list')).toContain(email);
    await look(page, 'usuarios');
    await page.goto(dash('claves'));
    await look(page, 'claves');
    await page.selectOption('#issuer-switch', second.rut);
    await page.waitForURL(new RegExp(`/dashboard/${second.rut}/claves`));
    expect(await page.textContent('.switcher')).toContain(formatRutDisplay(second.rut));
    await page.goto(`${base}/dashboard/no/existe`);
    await look(page, 'no-encontrada');
  });

  it('shows another account nothing, whatever URL it guesses', async () => {
    const { issuer, dash } = await newAccount();
    // A document and an active key of the issuer, for the stranger to guess at.
    const d = await issueByApi(issuer, {
      type: 33,
      receiver: RECEIVER,
      items: [{ name: 'Clavos', qty: 1, price: 1000 }],
    });
    const { issuer: other, dash: otherDash, page: p } = await signedInOwner('Otra Cuenta SpA');
    expect(p.url()).toContain(other.rut);
    expect(await p.locator('#issuer-switch option').count()).toBe(1);
    for (const path of [
      'documentos',
      `documentos/${d.type}/${d.folio}`,
      `documentos/${d.type}/${d.folio}/pdf`,
      `documentos/${d.type}/${d.folio}/xml`,
      'claves',
      'configuracion',
      'usuarios',
    ]) {
      const res = await p.request.get(dash(path), { maxRedirects: 0 });
      expect(res.status(), path).toBe(404);
      expect(await res.text()).not.toContain('Ñandú');
    }
    const key = await t.db.prisma.apiKey.findFirstOrThrow({ where: { issuerId: issuer.id, revokedAt: null } });
    const csrf = await p.getAttribute('input[name="_csrf"]', 'value');
    const revoke = await p.request.post(otherDash(`claves/${key.id}/revocar`), {
      form: { _csrf: csrf ?? '', confirm: '1' },
      maxRedirects: 0,
    });
    expect(revoke.status()).toBe(404);
    expect((await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeNull();
    const jump = await p.request.get(`${base}/dashboard/ir?rut=${issuer.rut}`, { maxRedirects: 0 });
    expect(jump.status()).toBe(404);
  });

  it('refuses a form without its CSRF token', async () => {
    const { page, issuer, dash } = await signedInOwner();
    // Signed in: a form with its token would be taken (the settings page renders one).
    expect(await page.request.get(dash('configuracion')).then((r) => r.status())).toBe(200);
    const res = await page.request.post(dash('configuracion'), {
      form: { name: 'Hackeada', ambiente: '1' },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    expect((await t.db.prisma.issuer.findUniqueOrThrow({ where: { id: issuer.id } })).name).toBe(
      'Ferretería Ñandú SpA',
    );
  });

  it('gives a viewer the pages but not the actions', async () => {
    const { issuer, email, dash } = await newAccount();
    const viewer = `lector-${email}`;
    await createUser(t.ctx, { accountId: issuer.accountId, email: viewer, role: 'viewer', password: PASSWORD });
    const { page: p } = await newPage();
    await signIn(p, viewer, PASSWORD);
    await p.goto(dash('emitir'));
    expect(await p.textContent('main')).toContain('no emitirlos');
    expect(await p.locator('form[data-issue-form]').count()).toBe(0);
    expect(await p.locator('nav.side a:has-text("Usuarios")').count()).toBe(0);
    const csrf = (await p.getAttribute('input[name="_csrf"]', 'value')) ?? '';
    const post = await p.request.post(dash('claves'), { form: { _csrf: csrf, role: 'owner' }, maxRedirects: 0 });
    expect(post.status()).toBe(403);
    expect((await p.request.get(dash('usuarios'))).status()).toBe(403);
  });

  it('signs out: the session is revoked server-side', async () => {
    const { context, page, dash } = await signedInOwner();
    const before = await fetch(dash('documentos'), {
      headers: {
        cookie: `timbre_session=${(await context.cookies()).find((c) => c.name === 'timbre_session')?.value}`,
      },
      redirect: 'manual',
    });
    expect(before.status).toBe(200); // the cookie opens the dashboard until sign-out
    const session = (await context.cookies()).find((c) => c.name === 'timbre_session');
    await page.goto(dash('documentos'));
    await page.click('.usermenu summary');
    await Promise.all([page.waitForURL(/\/dashboard\/entrar/), page.click('button:has-text("Salir")')]);
    // The old cookie, replayed, opens nothing.
    const replay = await fetch(dash('documentos'), {
      headers: { cookie: `timbre_session=${session?.value}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toContain('/dashboard/entrar');
  });
});
