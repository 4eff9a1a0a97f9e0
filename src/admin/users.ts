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
 * - Sign-in: unknown e-mail, inactive user and wrong password answer the same SIGN_IN_FAILED
 *   (and take the same scrypt time). Failures are counted in Postgres (shared by every
 *   instance): 10 per e-mail or 30 per client address within 15 minutes → SIGN_IN_RATE_LIMITED.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { isUniqueViolation } from '../db/database.ts';
import { AppError, zodError } from '../errors.ts';
import { isEmailAddress } from '../dte/email-address.ts';
import { ruleIssue } from '../rules.ts';
import type { Issuer, Role, Session, User } from '../generated/prisma/client.ts';
import { ROLES } from './api-keys.ts';
import { findIssuerOrThrow } from './issuers.ts';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

const SCRYPT = { N: 2 ** 15, r: 8, p: 1 };
const SCRYPT_MAXMEM = 64 * 1024 * 1024;
export const MIN_PASSWORD_LENGTH = 10;
export const SESSION_IDLE_MS = 12 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600 * 1000;
const SIGN_IN_LINK_MS = 24 * 3600 * 1000;
const TOUCH_RESOLUTION_MS = 60 * 1000;
const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_EMAIL = 10;
export const MAX_FAILURES_PER_ADDRESS = 30;

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, { ...SCRYPT, maxmem: SCRYPT_MAXMEM });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT_MAXMEM,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const emailSchema = z.string().trim().toLowerCase().refine(isEmailAddress, ruleIssue('email.invalid'));
const passwordSchema = z
  .string()
  .refine((p) => p.length >= MIN_PASSWORD_LENGTH, ruleIssue('password.too_short', { min: MIN_PASSWORD_LENGTH }))
  .refine((p) => p.length <= 200, ruleIssue('string.too_long', { max: 200 }));

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface CreateUserInput {
  accountId?: string;
  rut?: string;
  email: string;
  role: string;
  password: string;
}

export async function createUser(ctx: AppContext, input: CreateUserInput): Promise<User> {
  const parsed = z
    .object({ email: emailSchema, role: z.enum(ROLES, `must be one of ${ROLES.join(', ')}`), password: passwordSchema })
    .safeParse(input);
  if (!parsed.success) throw zodError(parsed.error.issues);
  let accountId = input.accountId;
  if (input.rut) accountId = (await findIssuerOrThrow(ctx, input.rut, { includeInactive: true })).accountId;
  if (!accountId || !/^[0-9a-f-]{36}$/i.test(accountId)) {
    throw new AppError('ACCOUNT_NOT_FOUND', 'Give the account (--account ID) or one of its issuers (--rut R).');
  }
  const account = await ctx.db.prisma.account.findUnique({ where: { id: accountId } });
  if (!account) throw new AppError('ACCOUNT_NOT_FOUND', `No account with id ${accountId}.`);
  const passwordHash = await hashPassword(parsed.data.password);
  try {
    return await ctx.db.prisma.user.create({
      data: { accountId, email: parsed.data.email, role: parsed.data.role as Role, passwordHash },
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('USER_EXISTS', `A user with e-mail ${parsed.data.email} exists.`);
    throw e;
  }
}

async function findUserOrThrow(ctx: AppContext, email: string): Promise<User> {
  const user = await ctx.db.prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
  if (!user) throw new AppError('USER_NOT_FOUND', `No user with e-mail ${normalizeEmail(email)}.`);
  return user;
}

/** New password; every session of the user ends (whoever knew the old one is signed out). */
export async function resetPassword(ctx: AppContext, input: { email: string; password: string }): Promise<User> {
  const user = await findUserOrThrow(ctx, input.email);
  const parsed = passwordSchema.safeParse(input.password);
  if (!parsed.success) throw zodError(parsed.error.issues.map((i) => ({ ...i, path: ['password'] })));
  const passwordHash = await hashPassword(input.password);
  return ctx.db.prisma.$transaction(async (tx) => {
    await tx.session.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: ctx.clock() } });
    return tx.user.update({ where: { id: user.id }, data: { passwordHash } });
  });
}

export async function deactivateUser(
  ctx: AppContext,
  email: string,
  scope: { accountId?: string } = {},
): Promise<User> {
  const user = await findUserOrThrow(ctx, email);
  if (scope.accountId && user.accountId !== scope.accountId) throw new AppError('USER_NOT_FOUND');
  return ctx.db.prisma.$transaction(async (tx) => {
    await tx.session.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: ctx.clock() } });
    return tx.user.update({ where: { id: user.id }, data: { active: false } });
  });
}

export async function listUsers(ctx: AppContext, accountId?: string): Promise<User[]> {
  return ctx.db.prisma.user.findMany({
    where: accountId ? { accountId } : {},
    orderBy: [{ createdAt: 'asc' }, { email: 'asc' }],
  });
}

export function userView(u: User) {
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

export interface OpenedSession {
  /** The cookie value; shown only to the browser. */
  token: string;
  session: Session;
}

async function openSession(ctx: AppContext, user: User): Promise<OpenedSession> {
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
export async function signIn(
  ctx: AppContext,
  input: { email: string; password: string; address: string },
): Promise<OpenedSession> {
  const email = normalizeEmail(input.email).slice(0, 254);
  const keys = [`email:${email}`, `ip:${input.address}`];
  const since = new Date(ctx.clock().getTime() - SIGN_IN_WINDOW_MS);
  const [byEmail, byAddress] = await Promise.all(
    keys.map((key) => ctx.db.prisma.signInFailure.count({ where: { key, createdAt: { gte: since } } })),
  );
  if ((byEmail ?? 0) >= MAX_FAILURES_PER_EMAIL || (byAddress ?? 0) >= MAX_FAILURES_PER_ADDRESS) {
    throw new AppError('SIGN_IN_RATE_LIMITED', undefined, { headers: { 'Retry-After': '900' } });
  }
  const user = email ? await ctx.db.prisma.user.findUnique({ where: { email } }) : null;
  // An unknown e-mail is compared against a throwaway hash, so both answers take as long.
  ctx.caches.dummyPasswordHash ??= hashPassword(randomBytes(16).toString('hex'));
  const dummy = ctx.caches.dummyPasswordHash;
  const ok = await verifyPassword(input.password.slice(0, 200), user?.passwordHash ?? (await dummy));
  if (!user?.active || !ok) {
    await ctx.db.prisma.signInFailure.createMany({ data: keys.map((key) => ({ key, createdAt: ctx.clock() })) });
    // Old failures are of no use; dropping them here keeps the table small without a job.
    await ctx.db.prisma.signInFailure.deleteMany({ where: { createdAt: { lt: since } } });
    throw new AppError('SIGN_IN_FAILED');
  }
  return openSession(ctx, user);
}

/** A single-use sign-in link token for the user (the first-start banner prints one). */
export async function createSignInToken(ctx: AppContext, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await ctx.db.prisma.signInToken.create({
    data: { userId, tokenHash: sha256(token), expiresAt: new Date(ctx.clock().getTime() + SIGN_IN_LINK_MS) },
  });
  return token;
}

/** Redeems a sign-in link once: marks it used and opens a session; null when not usable. */
export async function redeemSignInToken(ctx: AppContext, token: string): Promise<OpenedSession | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const now = ctx.clock();
  const taken = await ctx.db.prisma.signInToken.updateManyAndReturn({
    where: { tokenHash: sha256(token), usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  const row = taken[0];
  if (!row) return null;
  const user = await ctx.db.prisma.user.findUnique({ where: { id: row.userId } });
  if (!user?.active) return null;
  return openSession(ctx, user);
}

export interface SignedIn {
  session: Session;
  user: User;
  /** The account's active issuers, oldest first: all the user may see. */
  issuers: Issuer[];
}

/** The session behind a cookie value, or null (unknown, expired, idle, revoked, user inactive). */
export async function resolveSession(ctx: AppContext, token: string): Promise<SignedIn | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await ctx.db.prisma.session.findUnique({ where: { tokenHash: sha256(token) }, include: { user: true } });
  const now = ctx.clock();
  if (!row || row.revokedAt || !row.user.active) return null;
  if (row.expiresAt <= now || now.getTime() - row.lastSeenAt.getTime() > SESSION_IDLE_MS) return null;
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

export async function signOut(ctx: AppContext, sessionId: string): Promise<void> {
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
} as const satisfies Record<string, readonly Role[]>;

export function may(user: Pick<User, 'role'>, action: keyof typeof CAN): boolean {
  return (CAN[action] as readonly Role[]).includes(user.role);
}
