/** A dashboard session without a browser: sign in through the form with app.inject. */
import { expect } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import type { TestApp } from './app.ts';

const PASSWORD = 'contraseña suficientemente larga';
let users = 0;

function cookieOf(setCookie: string | string[] | undefined, name: string): string {
  const c = ([] as string[]).concat(setCookie ?? []).find((x) => x.startsWith(`${name}=`)) ?? '';
  return c.split(';')[0] ?? '';
}

/**
 * A new user of `issuer` (an owner unless `role` says otherwise), signed in: its session cookie, its CSRF token and the headers of a
 * form POST made with them.
 */
export async function dashboardSession(t: TestApp, issuer: Issuer, role: 'owner' | 'editor' | 'viewer' = 'owner') {
  const email = `duena${++users}-${issuer.rut}@dashboard.cl`.toLowerCase();
  await createUser(t.ctx, { rut: issuer.rut, email, role, password: PASSWORD });
  const form = await t.app.inject({ method: 'GET', url: '/dashboard/entrar' });
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/entrar',
    headers: {
      cookie: cookieOf(form.headers['set-cookie'], 'timbre_csrf'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({
      _csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '',
      email,
      password: PASSWORD,
    }).toString(),
  });
  expect(res.statusCode).toBe(303);
  const cookie = cookieOf(res.headers['set-cookie'], 'timbre_session');
  const page = await t.app.inject({ method: 'GET', url: `/dashboard/${issuer.rut}/emitir`, headers: { cookie } });
  expect(page.statusCode).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const headers = { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-token': csrf };
  return { cookie, csrf, headers };
}
