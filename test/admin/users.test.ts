/**
 * Dashboard people (docs/design.md §10): passwords, sign-in and its rate limit, sessions (idle and
 * absolute expiry, revocation), one-time sign-in links, and the CLI's `user` commands.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSignInToken,
  createUser,
  deactivateUser,
  redeemSignInToken,
  resetPassword,
  resolveSession,
  SESSION_IDLE_MS,
  signIn,
  signOut,
} from '../../src/admin/users.ts';
import { countAttempt, SIGN_IN_LIMITS } from '../../src/admin/sign-in-limit.ts';
import { runCli } from '../../src/cli.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { buildTestApp, createTestIssuer, TEST_MASTER_KEY, type TestApp } from '../helpers/app.ts';

let now = new Date('2026-11-23T12:00:00Z');
let t: TestApp;
let issuer: Issuer;
const PASSWORD = 'una clave bastante larga';

beforeAll(async () => {
  t = await buildTestApp({ clock: () => now });
  issuer = await createTestIssuer(t.ctx);
});
afterAll(async () => t?.close());

const address = (n: number) => `10.0.0.${n}`;

describe('users', () => {
  it('stores only a scrypt hash and refuses short passwords and bad e-mails', async () => {
    const u = await createUser(t.ctx, {
      accountId: issuer.accountId,
      email: ' Ana@Ejemplo.CL ',
      role: 'owner',
      password: PASSWORD,
    });
    expect(u.email).toBe('ana@ejemplo.cl');
    expect(u.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(u.passwordHash).not.toContain(PASSWORD);
    await expect(
      createUser(t.ctx, { accountId: issuer.accountId, email: 'b@ejemplo.cl', role: 'owner', password: 'corta' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'password' }] });
    await expect(
      createUser(t.ctx, { accountId: issuer.accountId, email: 'no-es-correo', role: 'owner', password: PASSWORD }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'email' }] });
    await expect(
      createUser(t.ctx, { accountId: issuer.accountId, email: 'ana@ejemplo.cl', role: 'viewer', password: PASSWORD }),
    ).rejects.toMatchObject({ code: 'USER_EXISTS' });
  });

  it('answers the same for an unknown e-mail and a wrong password; 10 tries lock that e-mail at that address only', async () => {
    await createUser(t.ctx, { rut: issuer.rut, email: 'limite@ejemplo.cl', role: 'editor', password: PASSWORD });
    const unknown = await signIn(t.ctx, { email: 'nadie@ejemplo.cl', password: PASSWORD, address: address(1) }).catch(
      (e) => e,
    );
    const wrong = await signIn(t.ctx, { email: 'limite@ejemplo.cl', password: 'otra cosa', address: address(2) }).catch(
      (e) => e,
    );
    expect(unknown.code).toBe('SIGN_IN_FAILED');
    expect(wrong.code).toBe('SIGN_IN_FAILED');
    expect(wrong.message).toBe(unknown.message);
    for (let i = 1; i < SIGN_IN_LIMITS.pair; i++) {
      await signIn(t.ctx, { email: 'limite@ejemplo.cl', password: 'otra cosa', address: address(2) }).catch(() => {});
    }
    // Even the right password is refused at the guessing address, with the window's remaining time …
    const locked = await signIn(t.ctx, { email: 'limite@ejemplo.cl', password: PASSWORD, address: address(2) }).catch(
      (e) => e,
    );
    expect(locked.code).toBe('SIGN_IN_RATE_LIMITED');
    expect(Number(locked.headers['Retry-After'])).toBeGreaterThan(0);
    expect(Number(locked.headers['Retry-After'])).toBeLessThanOrEqual(900);
    // … the owner at another address still gets in …
    await signIn(t.ctx, { email: 'limite@ejemplo.cl', password: PASSWORD, address: address(99) });
    // … and the guessing address again once the window has passed.
    now = new Date(now.getTime() + 16 * 60_000);
    const opened = await signIn(t.ctx, { email: 'limite@ejemplo.cl', password: PASSWORD, address: address(2) });
    expect(opened.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('guesses spread over many addresses stop at the per-e-mail ceiling', async () => {
    await createUser(t.ctx, { rut: issuer.rut, email: 'techo@ejemplo.cl', role: 'editor', password: PASSWORD });
    // The counting alone (as signIn does it before each check; 100 scrypt checks would take minutes here).
    for (let i = 0; i < SIGN_IN_LIMITS.email; i++) {
      const verdict = await countAttempt(t.ctx, 'techo@ejemplo.cl', address(1000 + Math.floor(i / 5)));
      expect(verdict.allowed).toBe(true);
    }
    await expect(
      signIn(t.ctx, { email: 'techo@ejemplo.cl', password: PASSWORD, address: address(5000) }),
    ).rejects.toMatchObject({ code: 'SIGN_IN_RATE_LIMITED' });
  });

  it('ends a session after 12 h idle, after 7 days in any case, and on sign-out', async () => {
    await createUser(t.ctx, {
      accountId: issuer.accountId,
      email: 'sesion@ejemplo.cl',
      role: 'viewer',
      password: PASSWORD,
    });
    const a = await signIn(t.ctx, { email: 'sesion@ejemplo.cl', password: PASSWORD, address: address(3) });
    expect((await resolveSession(t.ctx, a.token))?.issuers.map((i) => i.rut)).toEqual([issuer.rut]);
    now = new Date(now.getTime() + SESSION_IDLE_MS + 60_000);
    expect(await resolveSession(t.ctx, a.token)).toBeNull();

    const b = await signIn(t.ctx, { email: 'sesion@ejemplo.cl', password: PASSWORD, address: address(3) });
    // Used every 11 hours: never idle, yet closed once 7 days (168 h) have passed since sign-in.
    for (let hours = 11; hours <= 165; hours += 11) {
      now = new Date(now.getTime() + 11 * 3600_000);
      expect(await resolveSession(t.ctx, b.token), `after ${hours} h`).not.toBeNull();
    }
    now = new Date(now.getTime() + 11 * 3600_000);
    expect(await resolveSession(t.ctx, b.token)).toBeNull();

    const c = await signIn(t.ctx, { email: 'sesion@ejemplo.cl', password: PASSWORD, address: address(3) });
    await signOut(t.ctx, c.session.id);
    expect(await resolveSession(t.ctx, c.token)).toBeNull();
  });

  it('closes every session on password reset and on deactivation', async () => {
    await createUser(t.ctx, {
      accountId: issuer.accountId,
      email: 'cierre@ejemplo.cl',
      role: 'editor',
      password: PASSWORD,
    });
    const a = await signIn(t.ctx, { email: 'cierre@ejemplo.cl', password: PASSWORD, address: address(4) });
    await resetPassword(t.ctx, { email: 'cierre@ejemplo.cl', password: 'otra clave muy larga' });
    expect(await resolveSession(t.ctx, a.token)).toBeNull();
    const b = await signIn(t.ctx, {
      email: 'cierre@ejemplo.cl',
      password: 'otra clave muy larga',
      address: address(4),
    });
    await deactivateUser(t.ctx, 'cierre@ejemplo.cl');
    expect(await resolveSession(t.ctx, b.token)).toBeNull();
    await expect(
      signIn(t.ctx, { email: 'cierre@ejemplo.cl', password: 'otra clave muy larga', address: address(5) }),
    ).rejects.toMatchObject({ code: 'SIGN_IN_FAILED' });
  });

  it('opens a session once with a sign-in link', async () => {
    const u = await createUser(t.ctx, {
      accountId: issuer.accountId,
      email: 'enlace@ejemplo.cl',
      role: 'owner',
      password: PASSWORD,
    });
    const token = await createSignInToken(t.ctx, u.id);
    const first = await redeemSignInToken(t.ctx, token);
    expect(first && (await resolveSession(t.ctx, first.token))?.user.email).toBe('enlace@ejemplo.cl');
    expect(await redeemSignInToken(t.ctx, token)).toBeNull();
    const late = await createSignInToken(t.ctx, u.id);
    now = new Date(now.getTime() + 25 * 3600_000);
    expect(await redeemSignInToken(t.ctx, late)).toBeNull();
  });
});

describe('cli user', () => {
  async function cli(argv: string[], stdin?: string) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      env: {
        DATABASE_URL: t.db.url,
        TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
        TIMBRE_DATA_DIR: t.config.TIMBRE_DATA_DIR,
        PUBLIC_BASE_URL: 'https://timbre.example',
      },
      stdout: (s) => {
        stdout += s;
      },
      stderr: (s) => {
        stderr += s;
      },
      ...(stdin !== undefined && { readStdin: async () => stdin }),
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  }

  it('creates, lists, resets and deactivates users', async () => {
    const created = await cli(
      [
        'user',
        'create',
        '--rut',
        issuer.rut,
        '--email',
        'cli@ejemplo.cl',
        '--role',
        'owner',
        '--password-stdin',
        '--json',
      ],
      `${PASSWORD}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ email: 'cli@ejemplo.cl', role: 'owner' });
    expect(created.json().password).toBeUndefined();
    expect(created.json().sign_in_url).toMatch(/^https:\/\/timbre\.example\/dashboard\/enlace\/[A-Za-z0-9_-]{43}$/);
    now = new Date();
    await signIn(t.ctx, { email: 'cli@ejemplo.cl', password: PASSWORD, address: address(6) });

    const generated = await cli([
      'user',
      'create',
      '--account',
      issuer.accountId,
      '--email',
      'gen@ejemplo.cl',
      '--role',
      'viewer',
      '--json',
    ]);
    expect(generated.code, generated.stderr).toBe(0);
    await signIn(t.ctx, { email: 'gen@ejemplo.cl', password: generated.json().password, address: address(6) });

    const list = await cli(['user', 'list', '--rut', issuer.rut, '--json']);
    expect(list.json().users.map((u: { email: string }) => u.email)).toContain('cli@ejemplo.cl');

    const reset = await cli(
      ['user', 'reset-password', '--email', 'cli@ejemplo.cl', '--password-stdin'],
      'nueva clave larguísima',
    );
    expect(reset.code, reset.stderr).toBe(0);
    await signIn(t.ctx, { email: 'cli@ejemplo.cl', password: 'nueva clave larguísima', address: address(6) });

    const off = await cli(['user', 'deactivate', '--email', 'cli@ejemplo.cl', '--json']);
    expect(off.json()).toMatchObject({ email: 'cli@ejemplo.cl', active: false });

    const missing = await cli(['user', 'create', '--email', 'x@ejemplo.cl', '--role', 'owner']);
    expect(missing.code).toBe(2);
    const empty = await cli(['user', 'reset-password', '--email', 'gen@ejemplo.cl', '--password-stdin'], '');
    expect(empty.code).toBe(2);
  });
});
