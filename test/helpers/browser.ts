/**
 * A dashboard in Chromium for a test file: the app listening on a random port, Debian's
 * chromium (/usr/bin/chromium) driven by playwright-core, pages watched for CSP and script
 * errors, screenshots at 1280 and 390 px into test-artifacts/screenshots/.
 * (test/web/dashboard.test.ts has its own copy of this, with axe-core checks.)
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { buildTestApp, createTestIssuer, type TestApp } from './app.ts';

const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const BROWSER_PASSWORD = 'correct horse battery staple';

export interface BrowserHarness {
  t: TestApp;
  base: string;
  browser: Browser;
  /** Errors of the pages opened so far (CSP refusals, script errors); `check()` empties it. */
  errors: string[];
  contexts: BrowserContext[];
}

export async function startBrowserHarness(env: Record<string, string> = {}): Promise<BrowserHarness> {
  const t = await buildTestApp({ env });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  mkdirSync(SHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  return { t, base: `http://127.0.0.1:${address.port}`, browser, errors: [], contexts: [] };
}

export async function stopBrowserHarness(h: BrowserHarness | undefined): Promise<void> {
  await h?.browser.close();
  await h?.t.close();
}

/** Closes the test's contexts and fails on any CSP or script error of its pages. */
export async function afterBrowserTest(h: BrowserHarness): Promise<void> {
  for (const c of h.contexts.splice(0)) await c.close();
  expect(h.errors.splice(0)).toEqual([]);
}

async function newPage(h: BrowserHarness): Promise<Page> {
  const context = await h.browser.newContext({ locale: 'es-CL', timezoneId: 'America/Santiago' });
  h.contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) h.errors.push(m.text());
  });
  page.on('pageerror', (e) => h.errors.push(e.message));
  return page;
}

export async function screenshot(p: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: 900 });
    await p.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 900 });
}

let accounts = 0;

/** A new account with a sandbox issuer, its owner signed in in a browser context of its own. */
export async function signedInOwner(h: BrowserHarness, name = 'Ferretería Ñandú SpA') {
  const issuer = await createTestIssuer(h.t.ctx, { name, ambiente: 0 });
  const email = `everyday${++accounts}-${issuer.rut}@ferreteria.cl`.toLowerCase();
  await createUser(h.t.ctx, { accountId: issuer.accountId, email, role: 'owner', password: BROWSER_PASSWORD });
  const page = await newPage(h);
  await page.goto(`${h.base}/dashboard/entrar`);
  await page.fill('#email', email);
  await page.fill('#password', BROWSER_PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/[^/]+\//), page.click('button:has-text("Entrar")')]);
  return { issuer, email, page, dash: (path: string) => `${h.base}/dashboard/${issuer.rut}/${path}` };
}
