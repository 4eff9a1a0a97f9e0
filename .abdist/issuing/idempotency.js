/**
 * Idempotency-Key storage (Postgres, per issuer, kept 24 h). The first request with a key
 * claims it (`in_progress`), runs, and records its response; a retry with the same key and
 * the same body gets that response again; with a different body, 409. A concurrent duplicate
 * waits for the first to finish (bounded), then replays it, or gets 409 — never a second
 * folio. If the first process died mid-request, a claim older than the lock timeout is taken
 * over — unless a document was already committed under it, in which case that document is
 * the answer.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A claim older than this (on the app's clock, like the 24 h window) belonged to a dead process. */
const STALE_LOCK_MS = 60_000;
/**
 * How long a concurrent duplicate sleeps waiting for the first request: real elapsed time
 * (`performance.now()`), because it bounds this request's own wait, not a window of the key.
 */
const WAIT_MS = 15_000;
export function requestFingerprint(endpoint, body) {
    return createHash('sha256')
        .update(`${endpoint}\n${canonicalJson(body)}`)
        .digest('hex');
}
/** JSON with sorted object keys, so that key order does not change the fingerprint. */
function canonicalJson(v) {
    if (Array.isArray(v))
        return `[${v.map(canonicalJson).join(',')}]`;
    if (v && typeof v === 'object') {
        return `{${Object.keys(v)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
            .join(',')}}`;
    }
    return JSON.stringify(v) ?? 'null';
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export async function claimIdempotencyKey(ctx, input) {
    const { prisma } = ctx.db;
    const deadline = performance.now() + WAIT_MS;
    for (;;) {
        const now = ctx.clock();
        await prisma.idempotencyKey.deleteMany({
            where: { issuerId: input.issuerId, key: input.key, expiresAt: { lt: now } },
        });
        const inserted = await prisma.idempotencyKey.createManyAndReturn({
            data: [
                {
                    issuerId: input.issuerId,
                    key: input.key,
                    endpoint: input.endpoint,
                    requestHash: input.requestHash,
                    status: 'in_progress',
                    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
                },
            ],
            skipDuplicates: true,
        });
        if (inserted[0])
            return { kind: 'claimed', record: inserted[0] };
        const existing = await prisma.idempotencyKey.findUnique({
            where: { issuerId_key: { issuerId: input.issuerId, key: input.key } },
        });
        if (!existing)
            continue; // expired and deleted in between: try again
        if (existing.endpoint !== input.endpoint || existing.requestHash !== input.requestHash) {
            throw new AppError('IDEMPOTENCY_KEY_REUSED', `The Idempotency-Key "${input.key}" was already used with a different request; use a new key for a new request.`);
        }
        if (existing.status === 'done' && existing.responseStatus !== null) {
            return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
        }
        if (now.getTime() - existing.lockedAt.getTime() > STALE_LOCK_MS) {
            // The process that claimed it is gone. Take the claim over atomically.
            const taken = await prisma.idempotencyKey.updateMany({
                where: { id: existing.id, status: 'in_progress', lockedAt: existing.lockedAt },
                data: { lockedAt: now },
            });
            if (taken.count === 1) {
                const record = { ...existing, lockedAt: now };
                return existing.documentId
                    ? { kind: 'recovered', record, documentId: existing.documentId }
                    : { kind: 'claimed', record };
            }
            continue;
        }
        if (performance.now() > deadline) {
            throw new AppError('IDEMPOTENCY_IN_PROGRESS', undefined, { headers: { 'Retry-After': '2' } });
        }
        await sleep(100);
    }
}
export async function completeIdempotencyKey(ctx, id, status, body) {
    await ctx.db.prisma.idempotencyKey.update({
        where: { id },
        data: { status: 'done', responseStatus: status, responseBody: body },
    });
}
/** The request failed in a way that must not be replayed (5xx, 429): free the key. */
async function releaseIdempotencyKey(ctx, id) {
    await ctx.db.prisma.idempotencyKey.deleteMany({ where: { id, status: 'in_progress' } });
}
/**
 * Which answers a key keeps and replays: every answer but a 5xx (our failure) and a 429 (try
 * later), which free the key so that the same request may run again. A 4xx is kept: the same
 * request sent again gets the same refusal, even if what refused it has changed since (it is
 * a new request, with a new key, that sees the new state).
 */
export function isReplayable(status) {
    return status < 500 && status !== 429;
}
/** Records the answer of a claimed key: kept for replay, or the key freed (`isReplayable`). */
export async function finishIdempotencyKey(ctx, id, status, body) {
    if (isReplayable(status))
        await completeIdempotencyKey(ctx, id, status, body);
    else
        await releaseIdempotencyKey(ctx, id);
}
/**
 * The whole protocol around one call, for callers that are not an API route (the dashboard's
 * forms; the API applies the same steps in two hooks, src/http/idempotency.ts): claim the key;
 * replay a recorded answer; rebuild the answer from a document committed by a request that
 * died (`recover`); else `run` with the claim's id and record its answer. `run` throwing frees
 * the key (a 5xx) and the error goes on.
 */
export async function runIdempotent(ctx, input, run, recover) {
    const claim = await claimIdempotencyKey(ctx, input);
    if (claim.kind === 'replay')
        return { status: claim.status, body: claim.body, replayed: true };
    if (claim.kind === 'recovered') {
        const body = await recover(claim.documentId);
        await completeIdempotencyKey(ctx, claim.record.id, 200, body);
        return { status: 200, body, replayed: true };
    }
    let answer;
    try {
        answer = await run(claim.record.id);
    }
    catch (err) {
        await releaseIdempotencyKey(ctx, claim.record.id);
        throw err;
    }
    await finishIdempotencyKey(ctx, claim.record.id, answer.status, answer.body);
    return { ...answer, replayed: false };
}
