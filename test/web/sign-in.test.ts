/**
 * Sign-in that holds, over HTTP without a browser: 20 concurrent attempts
 * for one e-mail check at most 10 passwords and the right one does not get in once locked; the
 * refusal carries Retry-After; the pre-session CSRF token is signed, expiring and bound to the
 * browser's cookie, and a POST from another origin is refused; the dashboard's 405 and 404 are
 * Spanish HTML pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';

let t: TestApp;
let now = new Date('2026-11-25T12:00:00Z');
const PASSWORD = 'contraseña suficientemente larga';

beforeAll(async () => {
  t = await buildTestApp({ clock: () => now });
});
afterAll(async () => t?.close());

function cookieOf(setCookie: string | string[] | undefined, name: string): string {
  const c = ([] as string[]).concat(setCookie ?? []).find((x) => x.startsWith(`${name}=`)) ?? '';
  return c.split(';')[0] ?? '';
}

async function signInForm() {
  const page = await t.app.inject({ method: 'GET', url: '/dashboard/entrar' });
  return {
    csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '',
    cookie: cookieOf(page.headers['set-cookie'], 'timbre_csrf'),
  };
}

function post(form: { csrf: string; cookie: string }, fields: Record<string, string>, headers = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/entrar',
    headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams({ _csrf: form.csrf, ...fields }).toString(),
  });
}

describe('sign-in under a burst', { timeout: 180_000 }, () => {
  it('20 concurrent sign-ins for one e-mail check at most 10 passwords; the right one is refused once locked', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const email = 'rafaga@empresa.cl';
    await createUser(t.ctx, { rut: issuer.rut, email, role: 'owner', password: PASSWORD });
    const form = await signInForm();
    const before = t.ctx.caches.passwordChecks;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(form, { email, password: i === 19 ? PASSWORD : `adivina ${i}` })),
    );
    const checked = t.ctx.caches.passwordChecks - before;
    expect(checked).toBeLessThanOrEqual(10);
    // Each checked attempt answered 401, or 303 if it was the right password among the first 10.
    const signedIn = answers.filter((a) => a.statusCode === 303).length;
    expect(signedIn).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.statusCode === 401)).toHaveLength(checked - signedIn);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(refused).toHaveLength(20 - checked);
    for (const r of refused) {
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(900);
      expect(r.body).toContain('Demasiados intentos');
    }
    // Now locked: the right password, alone, is refused without being checked …
    const right = await post(form, { email, password: PASSWORD });
    expect(right.statusCode).toBe(429);
    expect(t.ctx.caches.passwordChecks - before).toBe(checked);
    // … at this address; the owner elsewhere gets in, and here again after the window.
    const elsewhere = await post(form, { email, password: PASSWORD }, { 'x-forwarded-for': '203.0.113.9' });
    expect([303, 429]).toContain(elsewhere.statusCode); // 303 only when the app trusts X-Forwarded-For
    now = new Date(now.getTime() + 15 * 60_000 + 1);
    const later = await post(await signInForm(), { email, password: PASSWORD });
    expect(later.statusCode).toBe(303);
  });
});

describe('login CSRF', { timeout: 180_000 }, () => {
  it('refuses a sign-in POST from another origin of the same host, even with a valid token and cookie', async () => {
    const issuer = await createTestIssuer(t.ctx);
    await createUser(t.ctx, { rut: issuer.rut, email: 'atacante@empresa.cl', role: 'owner', password: PASSWORD });
    const form = await signInForm();
    const fields = { email: 'atacante@empresa.cl', password: PASSWORD };
    const host = { host: 'localhost:3000' };
    for (const headers of [
      { ...host, origin: 'http://localhost:8080', 'sec-fetch-site': 'same-site' },
      { ...host, origin: 'http://localhost:8080' },
      { ...host, 'sec-fetch-site': 'cross-site' },
      { ...host, origin: 'null' },
    ]) {
      const res = await post(form, fields, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['set-cookie'] ?? '').not.toContain('timbre_session=');
    }
    const same = await post(form, fields, {
      ...host,
      origin: 'http://localhost:3000',
      'sec-fetch-site': 'same-origin',
    });
    expect(same.statusCode).toBe(303);
  });

  it('refuses a planted double-submit pair, a forged, another browser’s and an expired token', async () => {
    const issuer = await createTestIssuer(t.ctx);
    await createUser(t.ctx, { rut: issuer.rut, email: 'token@empresa.cl', role: 'owner', password: PASSWORD });
    const fields = { email: 'token@empresa.cl', password: PASSWORD };
    const form = await signInForm();
    const other = await signInForm();
    const nonce = form.cookie.split('=')[1] ?? '';
    // The old scheme: any value the attacker planted as the cookie and repeated in the form.
    expect((await post({ csrf: nonce, cookie: form.cookie }, fields)).statusCode).toBe(403);
    const [expires] = form.csrf.split('.');
    expect((await post({ csrf: `${expires}.${'A'.repeat(43)}`, cookie: form.cookie }, fields)).statusCode).toBe(403);
    expect((await post({ csrf: other.csrf, cookie: form.cookie }, fields)).statusCode).toBe(403);
    now = new Date(now.getTime() + 2 * 3600_000 + 1);
    expect((await post(form, fields)).statusCode).toBe(403);
    expect((await post(await signInForm(), fields)).statusCode).toBe(303);
  });

  it('uses a __Host- cookie over https', async () => {
    const https = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://timbre.example' } });
    try {
      const page = await https.app.inject({ method: 'GET', url: '/dashboard/entrar' });
      const set = ([] as string[]).concat(page.headers['set-cookie'] ?? []).join('\n');
      expect(set).toMatch(/^__Host-timbre_csrf=[A-Za-z0-9_-]{32}; Path=\/; HttpOnly; Secure; SameSite=Lax$/m);
    } finally {
      await https.close();
    }
  });
});

describe('error pages', { timeout: 180_000 }, () => {
  it('answers GET /dashboard/salir with a Spanish 405 page, and an unknown page with a Spanish 404 page', async () => {
    const salir = await t.app.inject({ method: 'GET', url: '/dashboard/salir', headers: { accept: 'text/html' } });
    expect(salir.statusCode).toBe(405);
    expect(salir.headers.allow).toBe('POST');
    expect(salir.headers['content-type']).toContain('text/html');
    expect(salir.body).toContain('Esa acción no está disponible en esta página.');
    expect(salir.body).toContain('lang="es-CL"');
    // Any other method too, without a CSRF token (a 405 changes nothing).
    const put = await t.app.inject({ method: 'PUT', url: '/dashboard/entrar' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, POST');
    expect(put.headers['content-type']).toContain('text/html');
    const { cookie } = await dashboardSession(t, await createTestIssuer(t.ctx));
    const missing = await t.app.inject({ method: 'GET', url: '/dashboard/no/existe/aqui', headers: { cookie } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('text/html');
    expect(missing.body).toContain('Página no encontrada');
  });
});

describe('invitation without e-mail', { timeout: 180_000 }, () => {
  it('shows the owner the invitation link once when the server has no SMTP_URL; the link sets the password', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const { headers, csrf } = await dashboardSession(t, issuer);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/usuarios`,
      headers,
      payload: new URLSearchParams({ _csrf: csrf, email: 'sin-correo@empresa.cl', role: 'viewer' }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('este servidor no tiene correo configurado');
    const path = /http:\/\/timbre\.test(\/dashboard\/contrasena\/[A-Za-z0-9_-]{43})/.exec(res.body)?.[1] ?? '';
    expect(path).not.toBe('');
    // A reload of that answer creates nothing new.
    const again = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/usuarios`,
      headers,
      payload: new URLSearchParams({ _csrf: csrf, email: 'sin-correo@empresa.cl', role: 'viewer' }).toString(),
    });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('Ya existe un usuario con ese correo.');
    expect(again.body).toMatch(/<option value="viewer" selected>/);
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.body).toContain('Crea tu contraseña');
    const csrfCookie = cookieOf(page.headers['set-cookie'], 'timbre_csrf');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const set = await t.app.inject({
      method: 'POST',
      url: '/dashboard/contrasena',
      headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: token,
        token: path.split('/').pop() ?? '',
        password: PASSWORD,
        confirm: PASSWORD,
      }).toString(),
    });
    expect(set.statusCode).toBe(303);
    expect(cookieOf(set.headers['set-cookie'], 'timbre_session')).toMatch(/^timbre_session=./);
  });
});
