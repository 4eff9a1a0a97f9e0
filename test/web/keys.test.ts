/**
 * The dashboard's API-key page without a browser: it counts the account's active keys and
 * revokes through the admin use cases (src/admin/api-keys.ts), so a key of another account is
 * not found and a revoked key stops authenticating.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.ts';
import { createUser } from '../../src/admin/users.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';

let t: TestApp;
const PASSWORD = 'contraseña suficientemente larga';

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

function cookieOf(setCookie: string | string[] | undefined, name: string): string {
  const found = ([] as string[]).concat(setCookie ?? []).find((c) => c.startsWith(`${name}=`)) ?? '';
  return found.split(';')[0] ?? '';
}

async function signIn(email: string): Promise<string> {
  const page = await t.app.inject({ method: 'GET', url: '/dashboard/entrar' });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/entrar',
    headers: {
      cookie: cookieOf(page.headers['set-cookie'], 'timbre_csrf'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }).toString(),
  });
  expect(res.statusCode).toBe(303);
  return cookieOf(res.headers['set-cookie'], 'timbre_session');
}

describe('dashboard: API keys', () => {
  it('counts the account’s active keys and revokes only its own', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const other = await createTestIssuer(t.ctx);
    await createUser(t.ctx, { rut: issuer.rut, email: 'claves@empresa.cl', role: 'owner', password: PASSWORD });
    const cookie = await signIn('claves@empresa.cl');
    const { record } = await createApiKey(t.ctx, { rut: issuer.rut, role: 'viewer' });
    const { record: foreign } = await createApiKey(t.ctx, { rut: other.rut, role: 'owner' });

    const page = await t.app.inject({ method: 'GET', url: `/dashboard/${issuer.rut}/claves`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Hay 1 de 5 claves activas en la cuenta');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const revoke = (id: string, confirm: boolean) =>
      t.app.inject({
        method: 'POST',
        url: `/dashboard/${issuer.rut}/claves/${id}/revocar`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, ...(confirm && { confirm: '1' }) }).toString(),
      });

    expect((await revoke(foreign.id, true)).statusCode).toBe(404);
    expect((await revoke('not-a-key', true)).statusCode).toBe(404);
    const asked = await revoke(record.id, false);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain(`¿Revocar la clave <code>${record.prefix}…</code>?`);
    const done = await revoke(record.id, true);
    expect(done.statusCode).toBe(303);
    const after = await t.app.inject({ method: 'GET', url: `/dashboard/${issuer.rut}/claves`, headers: { cookie } });
    expect(after.body).toContain('Hay 0 de 5 claves activas en la cuenta');
    const foreignRow = await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: foreign.id } });
    expect(foreignRow.revokedAt).toBeNull();
  });
});
