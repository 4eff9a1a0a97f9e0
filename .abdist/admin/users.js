/**
 * Dashboard people (docs/design.md §10): users of an account, passwords, server-side sessions,
 * one-time sign-in links and the sign-in rate limit. The CLI (`user create|reset-password|
 * list|deactivate`) and the dashboard (src/web/) both call these.
 *
 * - Passwords: scrypt from node:crypto (N=2^15, r=8, p=1, 16-byte salt, 32-byte hash), stored
 *   as "scrypt$N$r$p$salt$hash". At least 10 characters; nothing else is imposed.
 * - Sessions: the cookie carries 32 random bytes; only their SHA-256 is stored. A session ends
 *   after 12 h without use or 7 days after sign-in, on sign-out, when the user is deactivated
 *   or their password is reset. `lastSeenAt` is written at most once a minute.
 * - Sign-in: unknown e-mail, inactive user, a user without a password and a wrong password answer
 *   the same SIGN_IN_FAILED (and take the same scrypt time). Every attempt is counted before its
 *   password is checked (src/admin/sign-in-limit.ts, docs/sign-in.md) → SIGN_IN_RATE_LIMITED.
 * - One-time links (only their SHA-256 stored, single use, expiring): `sign_in` (first-start
 *   banner, CLI), `reset` (forgotten password, 1 h) and `invitation` (a new user, 7 days); the
 *   last two lead to choosing a password, and work while sign-in is locked.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { z } from 'zod';
import { isUniqueViolation } from '../db/database.js';
import { AppError, zodError } from '../errors.js';
import { isEmailAddress } from '../dte/email-address.js';
import { ruleIssue } from '../rules.js';
import { ROLES } from './api-keys.js';
import { clearAttemptsOf, countAttempt, forgetOldAttempts, giveBackAttempt } from './sign-in-limit.js';
import { findIssuerOrThrow } from './issuers.js';
const scrypt = promisify(scryptCb);
const SCRYPT = { N: 2 ** 15, r: 8, p: 1 };
const SCRYPT_MAXMEM = 64 * 1024 * 1024;
export const MIN_PASSWORD_LENGTH = 10;
export const SESSION_IDLE_MS = 12 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600 * 1000;
const TOUCH_RESOLUTION_MS = 60 * 1000;
/** How long each kind of one-time link lasts. */
export const LINK_LIFETIME_MS = {
    sign_in: 24 * 3600 * 1000,
    reset: 3600 * 1000,
    invitation: 7 * 24 * 3600 * 1000,
};
async function hashPassword(password) {
    const salt = randomBytes(16);
    const hash = await scrypt(password, salt, 32, { ...SCRYPT, maxmem: SCRYPT_MAXMEM });
    return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}
async function verifyPassword(ctx, password, stored) {
    ctx.caches.passwordChecks += 1;
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !hash)
        return false;
    const expected = Buffer.from(hash, 'base64url');
    const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
        N: Number(n),
        r: Number(r),
        p: Number(p),
        maxmem: SCRYPT_MAXMEM,
    });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
}
const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const emailSchema = z.string().trim().toLowerCase().refine(isEmailAddress, ruleIssue('email.invalid'));
const passwordSchema = z
    .string()
    .refine((p) => p.length >= MIN_PASSWORD_LENGTH, ruleIssue('password.too_short', { min: MIN_PASSWORD_LENGTH }))
    .refine((p) => p.length <= 200, ruleIssue('string.too_long', { max: 200 }));
function normalizeEmail(email) {
    return email.trim().toLowerCase();
}
export async function createUser(ctx, input) {
    const parsed = z
        .object({
        email: emailSchema,
        role: z.enum(ROLES, `must be one of ${ROLES.join(', ')}`),
        password: passwordSchema.optional(),
    })
        .safeParse(input);
    if (!parsed.success)
        throw zodError(parsed.error.issues);
    let accountId = input.accountId;
    if (input.rut)
        accountId = (await findIssuerOrThrow(ctx, input.rut, { includeInactive: true })).accountId;
    if (!accountId || !/^[0-9a-f-]{36}$/i.test(accountId)) {
        throw new AppError('ACCOUNT_NOT_FOUND', 'Give the account (--account ID) or one of its issuers (--rut R).');
    }
    const account = await ctx.db.prisma.account.findUnique({ where: { id: accountId } });
    if (!account)
        throw new AppError('ACCOUNT_NOT_FOUND', `No account with id ${accountId}.`);
    const passwordHash = parsed.data.password === undefined ? null : await hashPassword(parsed.data.password);
    try {
        return await ctx.db.prisma.user.create({
            data: { accountId, email: parsed.data.email, role: parsed.data.role, passwordHash },
        });
    }
    catch (e) {
        if (isUniqueViolation(e))
            throw new AppError('USER_EXISTS', `A user with e-mail ${parsed.data.email} exists.`);
        throw e;
    }
}
async function findUserOrThrow(ctx, email) {
    const user = await ctx.db.prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
    if (!user)
        throw new AppError('USER_NOT_FOUND', `No user with e-mail ${normalizeEmail(email)}.`);
    return user;
}
/** New password; every session of the user ends (whoever knew the old one is signed out). */
export async function resetPassword(ctx, input) {
    const user = await findUserOrThrow(ctx, input.email);
    const parsed = passwordSchema.safeParse(input.password);
    if (!parsed.success)
        throw zodError(parsed.error.issues.map((i) => ({ ...i, path: ['password'] })));
    const passwordHash = await hashPassword(input.password);
    return ctx.db.prisma.$transaction(async (tx) => {
        await tx.session.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: ctx.clock() } });
        return tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    });
}
export async function deactivateUser(ctx, email, scope = {}) {
    const user = await findUserOrThrow(ctx, email);
    if (scope.accountId && user.accountId !== scope.accountId)
        throw new AppError('USER_NOT_FOUND');
    return ctx.db.prisma.$transaction(async (tx) => {
        await tx.session.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: ctx.clock() } });
        return tx.user.update({ where: { id: user.id }, data: { active: false } });
    });
}
/** An account's user, by e-mail; another account's answers like an unknown one. */
async function userOfAccount(ctx, email, accountId) {
    const user = await findUserOrThrow(ctx, email);
    if (user.accountId !== accountId)
        throw new AppError('USER_NOT_FOUND');
    return user;
}
/** Gives a deactivated user back their access (they sign in with their password or a new link). */
export async function reactivateUser(ctx, email, scope) {
    const user = await userOfAccount(ctx, email, scope.accountId);
    return ctx.db.prisma.user.update({ where: { id: user.id }, data: { active: true } });
}
/** A user's new role; their sessions stay, and read the new role on their next request. */
export async function setUserRole(ctx, input, scope) {
    const role = z.enum(ROLES).safeParse(input.role);
    if (!role.success)
        throw zodError([{ code: 'custom', path: ['role'], message: `must be one of ${ROLES.join(', ')}` }]);
    const user = await userOfAccount(ctx, input.email, scope.accountId);
    return ctx.db.prisma.user.update({ where: { id: user.id }, data: { role: role.data } });
}
export async function listUsers(ctx, accountId) {
    return ctx.db.prisma.user.findMany({
        where: accountId ? { accountId } : {},
        orderBy: [{ createdAt: 'asc' }, { email: 'asc' }],
    });
}
export function userView(u) {
    return {
        id: u.id,
        account_id: u.accountId,
        email: u.email,
        role: u.role,
        active: u.active,
        last_sign_in_at: u.lastSignInAt?.toISOString() ?? null,
        created_at: u.createdAt.toISOString(),
    };
}
async function openSession(ctx, user) {
    const token = randomBytes(32).toString('base64url');
    const now = ctx.clock();
    const session = await ctx.db.prisma.$transaction(async (tx) => {
        await tx.user.update({ where: { id: user.id }, data: { lastSignInAt: now } });
        return tx.session.create({
            data: {
                userId: user.id,
                tokenHash: sha256(token),
                csrfToken: randomBytes(24).toString('base64url'),
                createdAt: now,
                lastSeenAt: now,
                expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
            },
        });
    });
    return { token, session };
}
/** E-mail and password → a session; the same SIGN_IN_FAILED whatever was wrong. */
export async function signIn(ctx, input) {
    const email = normalizeEmail(input.email).slice(0, 254);
    // Counted before anything is checked: an attempt over the limit checks no password at all.
    const attempt = await countAttempt(ctx, email, input.address);
    if (!attempt.allowed) {
        throw new AppError('SIGN_IN_RATE_LIMITED', undefined, {
            headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
        });
    }
    const user = email ? await ctx.db.prisma.user.findUnique({ where: { email } }) : null;
    const ok = await checkPassword(ctx, input.password, user?.passwordHash ?? null);
    if (!user?.active || !ok) {
        await forgetOldAttempts(ctx);
        throw new AppError('SIGN_IN_FAILED');
    }
    await giveBackAttempt(ctx, attempt.keys);
    return openSession(ctx, user);
}
/**
 * A password against a stored hash. No hash (unknown e-mail, a user who has none yet) is compared
 * against a throwaway hash, so every answer takes as long.
 */
async function checkPassword(ctx, password, stored) {
    ctx.caches.dummyPasswordHash ??= hashPassword(randomBytes(16).toString('hex'));
    const dummy = ctx.caches.dummyPasswordHash;
    const ok = await verifyPassword(ctx, password.slice(0, 200), stored ?? (await dummy));
    return ok && stored !== null;
}
/** A single-use link token for the user (the first-start banner prints a `sign_in` one). */
export async function createSignInToken(ctx, userId, purpose = 'sign_in') {
    const token = randomBytes(32).toString('base64url');
    await ctx.db.prisma.signInToken.create({
        data: {
            userId,
            purpose,
            tokenHash: sha256(token),
            expiresAt: new Date(ctx.clock().getTime() + LINK_LIFETIME_MS[purpose]),
        },
    });
    return token;
}
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,100}$/;
/** Redeems a `sign_in` link once: marks it used and opens a session; null when not usable. */
export async function redeemSignInToken(ctx, token) {
    if (!TOKEN_SHAPE.test(token))
        return null;
    const now = ctx.clock();
    const taken = await ctx.db.prisma.signInToken.updateManyAndReturn({
        where: { tokenHash: sha256(token), purpose: 'sign_in', usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
    });
    const row = taken[0];
    if (!row)
        return null;
    const user = await ctx.db.prisma.user.findUnique({ where: { id: row.userId } });
    if (!user?.active)
        return null;
    return openSession(ctx, user);
}
/** The user a `reset` or `invitation` link is for, without using it (the page that shows the form). */
export async function peekPasswordLink(ctx, token) {
    if (!TOKEN_SHAPE.test(token))
        return null;
    const row = await ctx.db.prisma.signInToken.findUnique({
        where: { tokenHash: sha256(token) },
        include: { user: true },
    });
    if (!row || row.usedAt || row.expiresAt <= ctx.clock() || row.purpose === 'sign_in' || !row.user.active)
        return null;
    return { user: row.user, purpose: row.purpose };
}
/**
 * Sets a password through a `reset` or `invitation` link: the password is validated first (a
 * too-short one leaves the link usable), then the link is taken once (a conditional UPDATE:
 * of two concurrent uses one wins), every other session of the user ends, the e-mail's sign-in
 * lock is cleared, and a session opens. Null when the link is not usable.
 */
export async function setPasswordByLink(ctx, input) {
    const parsed = passwordSchema.safeParse(input.password);
    if (!parsed.success)
        throw zodError(parsed.error.issues.map((i) => ({ ...i, path: ['password'] })));
    if (!TOKEN_SHAPE.test(input.token))
        return null;
    const passwordHash = await hashPassword(input.password);
    const now = ctx.clock();
    const user = await ctx.db.prisma.$transaction(async (tx) => {
        const taken = await tx.signInToken.updateManyAndReturn({
            where: {
                tokenHash: sha256(input.token),
                purpose: { in: ['reset', 'invitation'] },
                usedAt: null,
                expiresAt: { gt: now },
            },
            data: { usedAt: now },
        });
        const row = taken[0];
        if (!row)
            return null;
        const owner = await tx.user.findUnique({ where: { id: row.userId } });
        if (!owner?.active)
            return null;
        await tx.session.updateMany({ where: { userId: owner.id, revokedAt: null }, data: { revokedAt: now } });
        // Any other reset link of the user dies with this one.
        await tx.signInToken.updateMany({
            where: { userId: owner.id, usedAt: null, purpose: { in: ['reset', 'invitation'] } },
            data: { usedAt: now },
        });
        return tx.user.update({ where: { id: owner.id }, data: { passwordHash } });
    });
    if (!user)
        return null;
    await clearAttemptsOf(ctx, user.email);
    return openSession(ctx, user);
}
/**
 * A signed-in user sets their password: one who has none creates it; one who has one must give
 * it (a borrowed, unlocked browser must not be enough to take the account). Their other sessions end.
 */
export async function changeOwnPassword(ctx, input) {
    const user = await ctx.db.prisma.user.findUnique({ where: { id: input.userId } });
    if (!user?.active)
        throw new AppError('UNAUTHENTICATED');
    if (user.passwordHash !== null) {
        // Guessing the current password from a borrowed session counts like sign-in attempts.
        const attempt = await countAttempt(ctx, user.email, input.address);
        if (!attempt.allowed) {
            throw new AppError('SIGN_IN_RATE_LIMITED', undefined, {
                headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
            });
        }
        if (!(await checkPassword(ctx, input.current, user.passwordHash)))
            throw new AppError('CURRENT_PASSWORD_WRONG');
        await giveBackAttempt(ctx, attempt.keys);
    }
    const parsed = passwordSchema.safeParse(input.password);
    if (!parsed.success)
        throw zodError(parsed.error.issues.map((i) => ({ ...i, path: ['password'] })));
    const passwordHash = await hashPassword(input.password);
    await ctx.db.prisma.$transaction(async (tx) => {
        await tx.session.updateMany({
            where: { userId: user.id, revokedAt: null, id: { not: input.sessionId } },
            data: { revokedAt: ctx.clock() },
        });
        await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    });
}
/** Live reset links per user: asking again and again does not flood their mailbox. */
const MAX_LIVE_RESET_LINKS = 5;
/**
 * "¿Olvidaste tu contraseña?": a `reset` link for an active user with that e-mail, or null
 * (unknown e-mail, inactive user, too many requests for it). The caller answers the same either way.
 */
export async function createResetLink(ctx, emailText) {
    const email = normalizeEmail(emailText).slice(0, 254);
    if (!isEmailAddress(email))
        return null;
    const user = await ctx.db.prisma.user.findUnique({ where: { email } });
    if (!user?.active)
        return null;
    const live = await ctx.db.prisma.signInToken.count({
        where: { userId: user.id, purpose: 'reset', usedAt: null, expiresAt: { gt: ctx.clock() } },
    });
    if (live >= MAX_LIVE_RESET_LINKS)
        return null;
    return { user, token: await createSignInToken(ctx, user.id, 'reset') };
}
/** The session behind a cookie value, or null (unknown, expired, idle, revoked, user inactive). */
export async function resolveSession(ctx, token) {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token))
        return null;
    const row = await ctx.db.prisma.session.findUnique({ where: { tokenHash: sha256(token) }, include: { user: true } });
    const now = ctx.clock();
    if (!row || row.revokedAt || !row.user.active)
        return null;
    if (row.expiresAt <= now || now.getTime() - row.lastSeenAt.getTime() > SESSION_IDLE_MS)
        return null;
    if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_RESOLUTION_MS) {
        await ctx.db.prisma.session.update({ where: { id: row.id }, data: { lastSeenAt: now } });
    }
    const issuers = await ctx.db.prisma.issuer.findMany({
        where: { accountId: row.user.accountId, active: true },
        orderBy: { createdAt: 'asc' },
    });
    const { user, ...session } = row;
    return { session, user, issuers };
}
export async function signOut(ctx, sessionId) {
    await ctx.db.prisma.session.updateMany({
        where: { id: sessionId, revokedAt: null },
        data: { revokedAt: ctx.clock() },
    });
}
/** What each role may do in the dashboard, mirroring the API: viewers read, editors issue. */
export const CAN = {
    issue: ['owner', 'editor'],
    folios: ['owner', 'editor'],
    certificate: ['owner'],
    settings: ['owner'],
    keys: ['owner'],
    users: ['owner'],
    webhooks: ['owner'],
};
export function may(user, action) {
    return CAN[action].includes(user.role);
}
