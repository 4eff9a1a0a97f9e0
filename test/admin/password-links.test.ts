/**
 * Reset and invitation links (docs/sign-in.md): single use even when used twice at once,
 * expiring, stored only as a hash, not interchangeable with a sign-in link, working while the
 * e-mail is locked out (and ending the lock), and a bounded number of live reset links.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../src/admin/sign-in-limit.ts';
import {
  createResetLink,
  createSignInToken,
  createUser,
  peekPasswordLink,
  redeemSignInToken,
  setPasswordByLink,
  signIn,
} from '../../src/admin/users.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';

let now = new Date('2026-11-25T12:00:00Z');
let t: TestApp;
let issuer: Issuer;
const PASSWORD = 'una clave bastante larga';
const NEW_PASSWORD = 'otra clave bastante larga';

beforeAll(async () => {
  t = await buildTestApp({ clock: () => now });
  issuer = await createTestIssuer(t.ctx);
});
afterAll(async () => t?.close());

describe('password links', () => {
  it('a reset link works once, even when used twice at once, and ends the other sessions', async () => {
    await createUser(t.ctx, { rut: issuer.rut, email: 'una-vez@ejemplo.cl', role: 'editor', password: PASSWORD });
    const before = await signIn(t.ctx, { email: 'una-vez@ejemplo.cl', password: PASSWORD, address: '10.1.0.1' });
    const link = await createResetLink(t.ctx, 'Una-Vez@Ejemplo.cl');
    if (!link) throw new Error('no link');
    const rows = await t.db.prisma.signInToken.findMany({ where: { userId: link.user.id } });
    expect(rows.map((r) => r.tokenHash)).not.toContain(link.token);
    expect((await peekPasswordLink(t.ctx, link.token))?.purpose).toBe('reset');
    const both = await Promise.all([
      setPasswordByLink(t.ctx, { token: link.token, password: NEW_PASSWORD }),
      setPasswordByLink(t.ctx, { token: link.token, password: 'la de quien llegó segundo' }),
    ]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(await peekPasswordLink(t.ctx, link.token)).toBeNull();
    const old = await t.db.prisma.session.findUniqueOrThrow({ where: { id: before.session.id } });
    expect(old.revokedAt).not.toBeNull();
    const winner = both[0] ? NEW_PASSWORD : 'la de quien llegó segundo';
    await signIn(t.ctx, { email: 'una-vez@ejemplo.cl', password: winner, address: '10.1.0.1' });
  });

  it('a too-short password leaves the link usable; an expired link and a sign-in link are refused', async () => {
    await createUser(t.ctx, { rut: issuer.rut, email: 'vence@ejemplo.cl', role: 'editor', password: PASSWORD });
    const link = await createResetLink(t.ctx, 'vence@ejemplo.cl');
    if (!link) throw new Error('no link');
    await expect(setPasswordByLink(t.ctx, { token: link.token, password: 'corta' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(await peekPasswordLink(t.ctx, link.token)).not.toBeNull();
    now = new Date(now.getTime() + 3600_000 + 1);
    expect(await peekPasswordLink(t.ctx, link.token)).toBeNull();
    expect(await setPasswordByLink(t.ctx, { token: link.token, password: NEW_PASSWORD })).toBeNull();
    // A sign-in link is not a reset link, nor the other way round.
    const signInToken = await createSignInToken(t.ctx, link.user.id);
    expect(await setPasswordByLink(t.ctx, { token: signInToken, password: NEW_PASSWORD })).toBeNull();
    const reset = await createResetLink(t.ctx, 'vence@ejemplo.cl');
    expect(await redeemSignInToken(t.ctx, reset?.token ?? '')).toBeNull();
  });

  it('works while the e-mail is locked out, and ends the lock', async () => {
    await createUser(t.ctx, { rut: issuer.rut, email: 'bloqueada@ejemplo.cl', role: 'owner', password: PASSWORD });
    const attacker = '198.51.100.20';
    for (let i = 0; i < SIGN_IN_LIMITS.pair; i++) {
      await signIn(t.ctx, { email: 'bloqueada@ejemplo.cl', password: 'adivina', address: attacker }).catch(() => {});
    }
    await expect(
      signIn(t.ctx, { email: 'bloqueada@ejemplo.cl', password: PASSWORD, address: attacker }),
    ).rejects.toMatchObject({ code: 'SIGN_IN_RATE_LIMITED' });
    const link = await createResetLink(t.ctx, 'bloqueada@ejemplo.cl');
    const opened = await setPasswordByLink(t.ctx, { token: link?.token ?? '', password: NEW_PASSWORD });
    expect(opened?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The lock on the e-mail was cleared with the new password.
    await signIn(t.ctx, { email: 'bloqueada@ejemplo.cl', password: NEW_PASSWORD, address: attacker });
  });

  it('gives no link for an unknown or inactive e-mail, and at most 5 live ones per user', async () => {
    expect(await createResetLink(t.ctx, 'nadie@ejemplo.cl')).toBeNull();
    expect(await createResetLink(t.ctx, 'no es correo')).toBeNull();
    await createUser(t.ctx, { rut: issuer.rut, email: 'muchas@ejemplo.cl', role: 'viewer', password: PASSWORD });
    const links = [];
    for (let i = 0; i < 6; i++) links.push(await createResetLink(t.ctx, 'muchas@ejemplo.cl'));
    expect(links.filter(Boolean)).toHaveLength(5);
  });

  it('an invited user has no password until they choose one through the invitation', async () => {
    const user = await createUser(t.ctx, { rut: issuer.rut, email: 'invitado@ejemplo.cl', role: 'editor' });
    expect(user.passwordHash).toBeNull();
    await expect(
      signIn(t.ctx, { email: 'invitado@ejemplo.cl', password: '', address: '10.1.0.9' }),
    ).rejects.toMatchObject({ code: 'SIGN_IN_FAILED' });
    const token = await createSignInToken(t.ctx, user.id, 'invitation');
    expect((await peekPasswordLink(t.ctx, token))?.purpose).toBe('invitation');
    expect(await setPasswordByLink(t.ctx, { token, password: NEW_PASSWORD })).not.toBeNull();
    await signIn(t.ctx, { email: 'invitado@ejemplo.cl', password: NEW_PASSWORD, address: '10.1.0.9' });
  });
});
