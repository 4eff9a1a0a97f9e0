/**
 * API keys: `timbre_<40 base62 chars>` (≈238 bits). Only the SHA-256 of the key is stored,
 * with a short display prefix; the key is shown once, at creation. At most 5 active keys per
 * account (docs/api.md §8), enforced under a row lock on the account so that two concurrent
 * creations cannot both take the fifth slot.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError, validationError } from '../errors.js';
import { changing } from './changes.js';
import { findIssuerOrThrow } from './issuers.js';
const KEY_PREFIX = 'timbre';
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 5;
export const ROLES = ['owner', 'editor', 'viewer'];
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 40;
/** The shape of a well-formed key; anything else is refused before touching the database. */
const KEY_PATTERN = /^timbre_[0-9A-Za-z]{40}$/;
function randomBody() {
    // Rejection sampling keeps every character uniformly distributed (256 is not a multiple of 62).
    let out = '';
    while (out.length < BODY_LENGTH) {
        for (const b of randomBytes(64)) {
            if (b < 248 && out.length < BODY_LENGTH)
                out += BASE62[b % 62];
        }
    }
    return out;
}
function hashKey(key) {
    return createHash('sha256').update(key, 'utf8').digest('hex');
}
function displayPrefix(key) {
    return key.slice(0, KEY_PREFIX.length + 1 + 6);
}
/** A key's name says what it is for; longer names are refused, never cut. */
export const MAX_KEY_NAME_LENGTH = 60;
export async function createApiKey(ctx, input) {
    if (!ROLES.includes(input.role)) {
        throw validationError('role', 'value.not_allowed', { allowed: ROLES.join(', ') });
    }
    const name = (input.name ?? '').trim();
    if ([...name].length > MAX_KEY_NAME_LENGTH) {
        throw validationError('name', 'string.too_long', { max: MAX_KEY_NAME_LENGTH });
    }
    const issuer = await findIssuerOrThrow(ctx, input.rut, { includeInactive: true });
    const key = `${KEY_PREFIX}_${randomBody()}`;
    const record = await changing(ctx, { kind: 'api_keys', issuerId: issuer.id }, async (tx) => {
        await tx.$queryRaw `SELECT id FROM accounts WHERE id = ${issuer.accountId}::uuid FOR UPDATE`;
        const active = await tx.apiKey.count({ where: { accountId: issuer.accountId, revokedAt: null } });
        if (active >= MAX_ACTIVE_KEYS_PER_ACCOUNT) {
            throw new AppError('KEY_LIMIT_REACHED', `The account already has ${active} active API keys (the limit is ${MAX_ACTIVE_KEYS_PER_ACCOUNT}); revoke one with \`key revoke --id ID\` first.`);
        }
        return tx.apiKey.create({
            data: {
                accountId: issuer.accountId,
                issuerId: issuer.id,
                role: input.role,
                prefix: displayPrefix(key),
                hash: hashKey(key),
                name,
            },
        });
    });
    return { record, key, issuer };
}
/**
 * One API key by id, or KEY_NOT_FOUND. `scope.accountId` (the dashboard): a key of another
 * account is answered as not found.
 */
export async function findApiKey(ctx, id, scope = {}) {
    const key = /^[0-9a-f-]{36}$/i.test(id) ? await ctx.db.prisma.apiKey.findUnique({ where: { id } }) : null;
    if (!key || (scope.accountId && key.accountId !== scope.accountId))
        throw new AppError('KEY_NOT_FOUND', `No API key with id ${id}.`);
    return key;
}
/** `scope.accountId` (the dashboard): a key of another account is answered as not found. */
export async function revokeApiKey(ctx, id, scope = {}) {
    const existing = await findApiKey(ctx, id, scope);
    if (existing.revokedAt)
        return existing;
    return changing(ctx, { kind: 'api_keys', issuerId: existing.issuerId }, (tx) => tx.apiKey.update({ where: { id }, data: { revokedAt: ctx.clock() } }));
}
export async function listApiKeys(ctx, rut) {
    const issuer = await findIssuerOrThrow(ctx, rut, { includeInactive: true });
    return ctx.db.prisma.apiKey.findMany({ where: { issuerId: issuer.id }, orderBy: { createdAt: 'asc' } });
}
/** Every key of the account with its issuer, active ones first, each group oldest first. */
export async function listAccountApiKeys(ctx, accountId) {
    const keys = await ctx.db.prisma.apiKey.findMany({
        where: { accountId },
        include: { issuer: { select: { rut: true, name: true } } },
        orderBy: { createdAt: 'asc' },
    });
    return [...keys.filter((k) => !k.revokedAt), ...keys.filter((k) => k.revokedAt)];
}
/** The account's active keys, against MAX_ACTIVE_KEYS_PER_ACCOUNT. */
export async function countActiveApiKeys(ctx, accountId) {
    return ctx.db.prisma.apiKey.count({ where: { accountId, revokedAt: null } });
}
export function apiKeyView(k, issuerRut) {
    return {
        id: k.id,
        prefix: k.prefix,
        name: k.name,
        role: k.role,
        ...(issuerRut ? { rut: issuerRut } : {}),
        status: k.revokedAt ? 'revoked' : 'active',
        created_at: k.createdAt.toISOString(),
        revoked_at: k.revokedAt?.toISOString() ?? null,
        last_used_at: k.lastUsedAt?.toISOString() ?? null,
    };
}
/** Interval below which last_used_at is not rewritten: no database write per request. */
const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;
/**
 * Looks a presented key up by its hash. Returns null for malformed, unknown or revoked keys
 * (the caller answers 401 without saying which). Records last use at most once an hour, off
 * the request path.
 */
export async function authenticateApiKey(ctx, presented) {
    if (!KEY_PATTERN.test(presented))
        return null;
    const hash = hashKey(presented);
    // Active keys are cached while the change feed is heard (src/caches.ts): a revocation or an
    // issuer change anywhere drops them at once; unknown and revoked keys are never cached.
    let entry = ctx.caches.apiKey(hash);
    if (!entry) {
        const snapshot = ctx.caches.snapshot();
        const row = await ctx.db.prisma.apiKey.findUnique({ where: { hash }, include: { issuer: true } });
        if (!row || row.revokedAt)
            return null;
        entry = { id: row.id, role: row.role, issuer: row.issuer, lastUsedAt: row.lastUsedAt };
        ctx.caches.rememberApiKey(hash, entry, snapshot);
    }
    const now = ctx.clock();
    if (!entry.lastUsedAt || now.getTime() - entry.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
        entry.lastUsedAt = now;
        const id = entry.id;
        ctx.db.prisma.apiKey.update({ where: { id }, data: { lastUsedAt: now } }).catch((err) => {
            ctx.log.warn({ err, key_id: id }, 'could not record API key use');
        });
    }
    return { id: entry.id, role: entry.role, issuer: entry.issuer };
}
