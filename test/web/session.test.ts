/**
 * The dashboard's HTTP contract without a browser: cookie attributes (Secure when
 * PUBLIC_BASE_URL is https), CSRF on the public forms, the Content-Security-Policy, escaping,
 * and the first-start demo's one-time sign-in link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemo } from '../../src/admin/demo.ts';
import { createUser } from '../../src/admin/users.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';

let t: TestApp;
const PASSWORD = 'contraseña suficientemente larga';

beforeAll(async () => {
  t = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://timbre.example' } });
});
afterAll(async () => t?.close());

function cookieOf(setCookie: string | string[] | undefined, name: string): string | undefined {
  return ([] as string[]).concat(setCookie ?? []).find((c) => c.startsWith(`${name}=`));
}

async function signInForm() {
  const page = await t.app.inject({ method: 'GET', url: '/dashboard/entrar' });
  const csrfCookie = cookieOf(page.headers['set-cookie'], '__Host-timbre_csrf') ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return { page, csrf, cookie: csrfCookie.split(';')[0] ?? '' };
}

describe('dashboard session', () => {
  it('sets an HttpOnly, SameSite=Lax, Secure session cookie and a strict CSP', async () => {
    const issuer = await createTestIssuer(t.ctx, { name: 'Empresa <script>alert(1)</script>' });
    await createUser(t.ctx, { rut: issuer.rut, email: 'u@empresa.cl', role: 'owner', password: PASSWORD });
    const { page, csrf, cookie } = await signInForm();
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("style-src 'self'");
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page.body).not.toMatch(/\sstyle=/);
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/entrar',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: csrf,
        email: 'u@empresa.cl',
        password: PASSWORD,
        next: '//evil.example/',
      }).toString(),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard');
    const session = cookieOf(res.headers['set-cookie'], 'timbre_session') ?? '';
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; Path=\/dashboard/);
    const docs = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${issuer.rut}/documentos`,
      headers: { cookie: session.split(';')[0] ?? '' },
    });
    expect(docs.statusCode).toBe(200);
    // The issuer's name is text, never markup.
    expect(docs.body).toContain('Empresa &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(docs.body).not.toContain('<script>alert(1)');
  });

  it('refuses the sign-in form without its CSRF token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/entrar',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=u%40empresa.cl&password=x',
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toContain('text/html');
  });

  it('the first-start demo creates an owner user and a one-time link that signs in once', async () => {
    const demo = await ensureDemo(t.ctx);
    expect(demo.signInToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const landing = await t.app.inject({ method: 'GET', url: `/dashboard/enlace/${demo.signInToken}` });
    expect(landing.statusCode).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(landing.body)?.[1] ?? '';
    const cookie = (cookieOf(landing.headers['set-cookie'], '__Host-timbre_csrf') ?? '').split(';')[0] ?? '';
    const redeem = () =>
      t.app.inject({
        method: 'POST',
        url: '/dashboard/enlace',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, token: demo.signInToken ?? '' }).toString(),
      });
    const first = await redeem();
    expect(first.statusCode).toBe(303);
    const session = (cookieOf(first.headers['set-cookie'], 'timbre_session') ?? '').split(';')[0] ?? '';
    const home = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: session } });
    expect(home.headers.location).toBe(`/dashboard/${demo.rut}/documentos`);
    const again = await redeem();
    expect(again.statusCode).toBe(410);
  });

  it('ignores malformed cookies (another application on the host): sign-in page, sign-in, a signed-in page, a POST', async () => {
    const issuer = await createTestIssuer(t.ctx);
    await createUser(t.ctx, { rut: issuer.rut, email: 'galletas@empresa.cl', role: 'owner', password: PASSWORD });
    for (const bad of ['a=%E0%A4%A', 'promo=100%']) {
      const form = await t.app.inject({ method: 'GET', url: '/dashboard/entrar', headers: { cookie: bad } });
      expect(form.statusCode, `${bad}: sign-in page`).toBe(200);
      const csrfCookie = (cookieOf(form.headers['set-cookie'], '__Host-timbre_csrf') ?? '').split(';')[0] ?? '';
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/dashboard/entrar',
        headers: { cookie: `${bad}; ${csrfCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, email: 'galletas@empresa.cl', password: PASSWORD }).toString(),
      });
      expect(signIn.statusCode, `${bad}: sign-in`).toBe(303);
      const session = (cookieOf(signIn.headers['set-cookie'], 'timbre_session') ?? '').split(';')[0] ?? '';
      expect(session).toMatch(/^timbre_session=./);
      // The bad cookie before and after the session's: the session still counts.
      const cookie = `${bad}; ${session}; ${bad.replace(/^\w+/, 'otra')}`;
      const docs = await t.app.inject({
        method: 'GET',
        url: `/dashboard/${issuer.rut}/documentos`,
        headers: { cookie },
      });
      expect(docs.statusCode, `${bad}: a signed-in page`).toBe(200);
      const token = /name="_csrf" value="([^"]+)"/.exec(docs.body)?.[1] ?? '';
      const out = await t.app.inject({
        method: 'POST',
        url: '/dashboard/salir',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: token }).toString(),
      });
      expect(out.statusCode, `${bad}: a POST`).toBe(303);
      const after = await t.app.inject({
        method: 'GET',
        url: `/dashboard/${issuer.rut}/documentos`,
        headers: { cookie },
      });
      expect(after.statusCode, `${bad}: signed out`).toBe(303);
    }
  });

  it("has the API's security headers with its own policy (src/http/security-headers.ts): sign-in, a signed-in page, a file", async () => {
    const issuer = await createTestIssuer(t.ctx);
    await createUser(t.ctx, { rut: issuer.rut, email: 'cabeceras@empresa.cl', role: 'owner', password: PASSWORD });
    const { page, csrf, cookie } = await signInForm();
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/dashboard/entrar',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, email: 'cabeceras@empresa.cl', password: PASSWORD }).toString(),
    });
    const session = (cookieOf(signIn.headers['set-cookie'], 'timbre_session') ?? '').split(';')[0] ?? '';
    const docs = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${issuer.rut}/documentos`,
      headers: { cookie: session },
    });
    const css = await t.app.inject({ method: 'GET', url: '/dashboard/static/style.css' });
    const policy = (value: unknown) =>
      String(value)
        .split(';')
        .map((d) => d.trim())
        .filter(Boolean)
        .sort();
    for (const res of [page, signIn, docs, css]) {
      expect(res.statusCode).toBeLessThan(400);
      expect(policy(res.headers['content-security-policy'])).toEqual(
        [
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "img-src 'self' data:",
          "connect-src 'self'",
          "form-action 'self'",
          "frame-src 'self'",
          "frame-ancestors 'self'",
          "base-uri 'none'",
        ].sort(),
      );
      expect(res.headers['referrer-policy']).toBe('same-origin');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['strict-transport-security']).toBeDefined();
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
    }
    for (const res of [page, signIn, docs]) expect(res.headers['cache-control']).toBe('no-store');
  });

  it('lists the preview endpoint in the OpenAPI description', async () => {
    const spec = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(spec.json().paths['/api/{rut}/preview']?.post?.operationId).toBe('previewDocument');
  });
});
