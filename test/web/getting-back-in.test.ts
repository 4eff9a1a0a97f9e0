/**
 * Getting back in and sign-in that holds in a real browser:
 * playwright-core driving Debian's chromium against the app on a random port, e-mail captured
 * by an in-process SMTP server (test/helpers/events.ts). A forgotten password reset by e-mail;
 * a used link offering a new one; an invitation instead of an owner-chosen password, with the
 * least-privilege default; role change, deactivation and reactivation; creating and changing
 * one's own password; a login-CSRF page on another port of the same host refused; a malformed
 * cookie ignored on the sign-in page. axe-core on each new page.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ParsedMail } from 'mailparser';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSignInToken, createUser } from '../../src/admin/users.ts';
import { type MailCatcher, startMailCatcher } from '../helpers/events.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'una frase nueva y bastante larga';

let t: TestApp;
let mail: MailCatcher;
let base: string;
let browser: Browser;
const browserErrors: string[] = [];
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  mail = await startMailCatcher();
  t = await buildTestApp({ env: { SMTP_URL: mail.url } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}, 120_000);

afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
  expect(browserErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await mail?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ locale: 'es-CL' });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) browserErrors.push(m.text());
  });
  page.on('pageerror', (e) => browserErrors.push(e.message));
  return page;
}

async function axe(p: Page): Promise<void> {
  await p.evaluate(AXE);
  const violations = (await p.evaluate(
    `axe.run({ resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  )) as string[];
  expect(violations, p.url()).toEqual([]);
}

/** The next e-mail to `to` (after the `seen` first ones), waiting for it. */
async function mailTo(to: string, seen = 0): Promise<ParsedMail> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = mail.messages.filter((m) => m.to && JSON.stringify(m.to).includes(to));
    if (found.length > seen) return found[seen] as ParsedMail;
    if (Date.now() > deadline) throw new Error(`no e-mail to ${to}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The link of a password e-mail, on this test's server (PUBLIC_BASE_URL is another host). */
function linkIn(m: ParsedMail): string {
  const url = /https?:\/\/\S+\/dashboard\/contrasena\/[A-Za-z0-9_-]+/.exec(m.text ?? '')?.[0];
  if (!url) throw new Error(`no link in: ${m.text}`);
  return base + new URL(url).pathname;
}

async function signIn(p: Page, email: string, password: string): Promise<void> {
  await p.goto(`${base}/dashboard/entrar`);
  await p.fill('#email', email);
  await p.fill('#password', password);
  await Promise.all([p.waitForURL(/\/dashboard\/[^/]+\/documentos/), p.click('button:has-text("Entrar")')]);
}

async function signOut(p: Page): Promise<void> {
  await p.click('.usermenu summary');
  await Promise.all([p.waitForURL(/\/dashboard\/entrar/), p.click('button:has-text("Salir")')]);
}

let accounts = 0;
async function newAccount() {
  const issuer = await createTestIssuer(t.ctx, { name: 'Ferretería Ñandú SpA', ambiente: 0 });
  const email = `duena${++accounts}@volver.cl`;
  await createUser(t.ctx, { accountId: issuer.accountId, email, role: 'owner', password: PASSWORD });
  return { issuer, email, dash: (path: string) => `${base}/dashboard/${issuer.rut}/${path}` };
}

describe('getting back in', { timeout: 180_000 }, () => {
  it('a forgotten password is reset by e-mail; the used link offers a new one; an unknown address gets the same answer', async () => {
    const { email } = await newAccount();
    const page = await newPage();
    await page.goto(`${base}/dashboard/entrar`);
    await page.click('a:has-text("¿Olvidaste tu contraseña?")');
    await axe(page);
    await page.fill('#forgot-email', email.toUpperCase());
    await Promise.all([page.waitForURL(/enviado=1/), page.click('button:has-text("Enviar enlace")')]);
    const answer = await page.textContent('main');
    expect(answer).toContain('Si el correo corresponde a un usuario activo');

    const message = await mailTo(email);
    expect(message.subject).toBe('Restablecer tu contraseña de Timbre');
    const link = linkIn(message);
    // Only the hash is stored.
    const token = link.split('/').pop() ?? '';
    const rows = await t.db.prisma.signInToken.findMany({ where: { purpose: 'reset' } });
    expect(rows.some((r) => r.tokenHash.includes(token))).toBe(false);

    await page.goto(link);
    expect(await page.textContent('h1')).toBe('Elige una contraseña nueva');
    await axe(page);
    await page.fill('#pw-new', NEW_PASSWORD);
    await page.fill('#pw-confirm', 'otra cosa distinta');
    await page.click('button:has-text("Guardar y entrar")');
    expect(await page.textContent('#pw-confirm-error')).toContain('no coinciden');
    await page.fill('#pw-new', NEW_PASSWORD);
    await page.fill('#pw-confirm', NEW_PASSWORD);
    await Promise.all([page.waitForURL(/\/documentos/), page.click('button:has-text("Guardar y entrar")')]);

    // The link is spent: its page says so and offers a new one by e-mail.
    await page.goto(link);
    expect(await page.textContent('h1')).toBe('Enlace no válido');
    await axe(page);
    await page.fill('#forgot-email', email);
    await Promise.all([page.waitForURL(/enviado=1/), page.click('button:has-text("Enviar un enlace nuevo")')]);
    expect(linkIn(await mailTo(email, 1))).not.toBe(link);

    // The old password no longer opens; the new one does.
    await page.goto(`${base}/dashboard`);
    await signOut(page);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.click('button:has-text("Entrar")');
    expect(await page.textContent('main')).toContain('El correo o la contraseña no son correctos.');
    await signIn(page, email, NEW_PASSWORD);

    // An address that is nobody's: the same page, and no e-mail.
    const before = mail.messages.length;
    const other = await newPage();
    await other.goto(`${base}/dashboard/olvide`);
    await other.fill('#forgot-email', 'nadie@volver.cl');
    await Promise.all([other.waitForURL(/enviado=1/), other.click('button:has-text("Enviar enlace")')]);
    expect(await other.textContent('main')).toBe(answer);
    await new Promise((r) => setTimeout(r, 500));
    expect(mail.messages.length).toBe(before);
  });

  it('a user who came in by a one-time link creates a password from the user menu, then changes it giving the current one', async () => {
    const { issuer } = await newAccount();
    const user = await createUser(t.ctx, { accountId: issuer.accountId, email: 'enlace@volver.cl', role: 'viewer' });
    const page = await newPage();
    await page.goto(`${base}/dashboard/enlace/${await createSignInToken(t.ctx, user.id)}`);
    await Promise.all([page.waitForURL(/\/documentos/), page.click('button:has-text("Entrar al panel")')]);
    await page.click('.usermenu summary');
    await page.click('a:has-text("Crear contraseña")');
    await axe(page);
    expect(await page.locator('#pw-current').count()).toBe(0);
    await page.fill('#pw-new', PASSWORD);
    await page.fill('#pw-confirm', PASSWORD);
    await page.click('button:has-text("Crear contraseña")');
    expect(await page.textContent('.notice')).toContain('Contraseña guardada.');
    expect(await page.textContent('h1')).toBe('Cambiar contraseña');
    await page.fill('#pw-current', 'no es la actual');
    await page.fill('#pw-new', NEW_PASSWORD);
    await page.fill('#pw-confirm', NEW_PASSWORD);
    await page.click('button:has-text("Cambiar contraseña")');
    expect(await page.textContent('#pw-current-error')).toContain('La contraseña actual no es correcta.');
    await page.fill('#pw-current', PASSWORD);
    await page.fill('#pw-new', NEW_PASSWORD);
    await page.fill('#pw-confirm', NEW_PASSWORD);
    await page.click('button:has-text("Cambiar contraseña")');
    expect(await page.textContent('.notice')).toContain('Contraseña guardada.');
    await signOut(page);
    await signIn(page, 'enlace@volver.cl', NEW_PASSWORD);
  });

  it('adding a user sends an invitation (Editor by default, the role kept on an error); role change, deactivation, reactivation', async () => {
    const { email, dash } = await newAccount();
    const owner = await newPage();
    await signIn(owner, email, PASSWORD);
    await owner.goto(dash('usuarios'));
    expect(await owner.locator('#u-password').count()).toBe(0);
    expect(await owner.inputValue('#u-role')).toBe('editor');
    await owner.fill('#u-email', email); // taken: USER_EXISTS
    await owner.selectOption('#u-role', 'viewer');
    await owner.click('button:has-text("Invitar usuario")');
    expect(await owner.textContent('#u-email-error')).toContain('Ya existe un usuario con ese correo.');
    expect(await owner.inputValue('#u-role')).toBe('viewer');
    await owner.fill('#u-email', 'invitada@volver.cl');
    await Promise.all([owner.waitForURL(/ok=creado/), owner.click('button:has-text("Invitar usuario")')]);
    await axe(owner);
    expect(await owner.textContent('tbody')).toContain('Invitado');

    const invitation = await mailTo('invitada@volver.cl');
    expect(invitation.subject).toBe('Te invitaron a Timbre');
    expect(invitation.text).toContain(email);
    const guest = await newPage();
    await guest.goto(linkIn(invitation));
    expect(await guest.textContent('h1')).toBe('Crea tu contraseña');
    await guest.fill('#pw-new', NEW_PASSWORD);
    await guest.fill('#pw-confirm', NEW_PASSWORD);
    await Promise.all([guest.waitForURL(/\/documentos/), guest.click('button:has-text("Guardar y entrar")')]);
    await guest.click('.usermenu summary');
    expect(await guest.textContent('.usermenu')).toContain('Rol: Lector');

    // Role change: the guest's next page reads the new role.
    await owner.goto(dash('usuarios'));
    const row = owner.locator('tr', { hasText: 'invitada@volver.cl' });
    await row.locator('select').selectOption('editor');
    await Promise.all([owner.waitForURL(/ok=rol/), row.locator('button:has-text("Cambiar rol")').click()]);
    await guest.reload();
    await guest.click('.usermenu summary');
    expect(await guest.textContent('.usermenu')).toContain('Rol: Editor');

    // Deactivation ends the guest's session; reactivation lets them sign in again.
    await owner.locator('tr', { hasText: 'invitada@volver.cl' }).locator('button:has-text("Desactivar")').click();
    await Promise.all([owner.waitForURL(/ok=desactivado/), owner.click('button:has-text("Sí, desactivar")')]);
    await guest.reload();
    expect(guest.url()).toContain('/dashboard/entrar');
    await owner.locator('tr', { hasText: 'invitada@volver.cl' }).locator('button:has-text("Reactivar")').click();
    await owner.waitForURL(/ok=reactivado/);
    expect(await owner.textContent('.notice')).toContain('Usuario reactivado');
    await signIn(guest, 'invitada@volver.cl', NEW_PASSWORD);
  });
});

describe('sign-in that holds', { timeout: 180_000 }, () => {
  it('a login-CSRF page on another port of the same host cannot sign the victim into the attacker’s account', async () => {
    const { email } = await newAccount(); // the attacker's own account
    // A valid (cookie, token) pair, fetched from the dashboard by the attacker's server.
    const form = await fetch(`${base}/dashboard/entrar`);
    const nonce = /timbre_csrf=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    expect(nonce && token).toBeTruthy();
    const attacker: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html lang="es"><body>
<form id="f" method="post" action="${base}/dashboard/entrar">
<input type="hidden" name="_csrf" value="${token}"><input type="hidden" name="email" value="${email}">
<input type="hidden" name="password" value="${PASSWORD}"></form>
<script>document.cookie = 'timbre_csrf=${nonce}; path=/dashboard'; document.getElementById('f').submit();</script>
</body></html>`);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    try {
      const victim = await newPage();
      const port = (attacker.address() as AddressInfo).port;
      await Promise.all([victim.waitForURL(`${base}/dashboard/entrar`), victim.goto(`http://127.0.0.1:${port}/`)]);
      await victim.waitForLoadState();
      expect(await victim.textContent('main')).toContain('El formulario expiró');
      const cookies = await victim.context().cookies(base);
      expect(cookies.map((c) => c.name)).not.toContain('timbre_session');
    } finally {
      await new Promise<void>((r) => attacker.close(() => r()));
    }
  });

  it('a malformed cookie set by another application on the host is ignored on the sign-in page', async () => {
    const { email } = await newAccount();
    const page = await newPage();
    const url = new URL(base);
    await page.context().addCookies([
      { name: 'promo', value: '100%', domain: url.hostname, path: '/' },
      { name: 'a', value: '%E0%A4%A', domain: url.hostname, path: '/' },
    ]);
    const res = await page.goto(`${base}/dashboard/entrar`);
    expect(res?.status()).toBe(200);
    await signIn(page, email, PASSWORD);
  });
});
