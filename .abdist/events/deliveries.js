/**
 * Webhook deliveries per the Standard Webhooks specification (standardwebhooks.com, docs/design.md §9).
 *
 * Each (event, endpoint) pair is one `webhook_deliveries` row, written with the event. Workers
 * of every instance claim due rows with a lease, so at most one attempt per delivery is in flight;
 * a claim takes rows only while the endpoint has fewer than WEBHOOK_ENDPOINT_CONCURRENCY
 * attempts in flight (claims are serialised by an advisory lock so the bound holds across
 * instances), so one slow receiver never holds up the others. Each attempt is one POST, no
 * redirects followed, WEBHOOK_TIMEOUT_MS (10 s) at most, through the SSRF guard; a 2xx is
 * delivered, anything else is logged and retried after the next delay of
 * WEBHOOK_RETRY_SCHEDULE_MS (the last delay repeating) until WEBHOOK_DISABLE_AFTER_MS (3 days)
 * after the event; an endpoint that has failed without a success for that long is disabled
 * and a `webhook.disabled` event is written. State lives in PostgreSQL, so restarts lose nothing.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Prisma } from '../generated/prisma/client.js';
import { eventPayloads, recordEvent } from './record.js';
import { BlockedTargetError, guardedLookup, isBlockedAddress } from './ssrf.js';
/** Claims of all instances take turns on this advisory lock (key chosen for this use only). */
const CLAIM_LOCK = 0x7469_6d62; // "timb"
const MAX_RESPONSE_BYTES = 64 * 1024;
/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed with the secret's bytes>`. */
export function signPayload(secret, id, timestamp, body) {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
/** One POST of a signed payload; never follows redirects, never throws. */
export async function postWebhook(ctx, target, event) {
    const started = performance.now();
    const done = (status, error) => ({
        status,
        error,
        latencyMs: Math.round(performance.now() - started),
    });
    const allowPrivate = ctx.config.TIMBRE_WEBHOOKS_ALLOW_PRIVATE;
    let url;
    try {
        url = new URL(target.url);
    }
    catch {
        return done(null, 'invalid URL');
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal never goes through `lookup`: check it here.
    if (!allowPrivate && isIP(host) && isBlockedAddress(host))
        return done(null, `blocked: ${host} is not a public address`);
    const timestamp = Math.floor(ctx.clock().getTime() / 1000);
    const headers = {
        'content-type': 'application/json',
        'user-agent': 'Timbre-Webhooks/1',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signPayload(target.secret, event.id, timestamp, event.body),
        'content-length': String(Buffer.byteLength(event.body)),
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
        const req = client.request(url, { method: 'POST', headers, lookup: guardedLookup(allowPrivate), timeout: ctx.config.WEBHOOK_TIMEOUT_MS }, (res) => {
            let read = 0;
            res.on('data', (chunk) => {
                read += chunk.length;
                if (read > MAX_RESPONSE_BYTES)
                    res.destroy();
            });
            const finish = () => {
                const status = res.statusCode ?? null;
                const ok = status !== null && status >= 200 && status < 300;
                const redirect = status !== null && status >= 300 && status < 400;
                resolve(done(status, ok ? null : redirect ? `redirect to ${res.headers.location ?? '?'} not followed` : `HTTP ${status}`));
            };
            res.on('end', finish);
            res.on('close', finish);
            res.on('error', finish);
        });
        const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${ctx.config.WEBHOOK_TIMEOUT_MS} ms`)), ctx.config.WEBHOOK_TIMEOUT_MS);
        req.on('timeout', () => req.destroy(new Error(`no answer within ${ctx.config.WEBHOOK_TIMEOUT_MS} ms`)));
        req.on('error', (err) => {
            clearTimeout(deadline);
            resolve(done(null, err instanceof BlockedTargetError ? `blocked: ${err.message}` : err.message));
        });
        req.on('close', () => clearTimeout(deadline));
        req.end(event.body);
    });
}
/** Delay before attempt `attempt + 1` (attempt 1 just failed). */
export function retryDelay(schedule, attempt) {
    return schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 60_000;
}
/**
 * Takes due deliveries (lease) while respecting the per-endpoint bound. `deliveryId` (manual
 * actions) claims that one only, even before it is due.
 */
export async function claimDeliveries(ctx, limit, deliveryId) {
    const now = ctx.clock();
    const lease = new Date(now.getTime() + ctx.config.WEBHOOK_TIMEOUT_MS + 60_000);
    const bound = ctx.config.WEBHOOK_ENDPOINT_CONCURRENCY;
    // Two index-friendly branches (state, next_run_at): due pending rows, and rows whose
    // worker died mid-attempt (lease expired). A manual claim names its row.
    const due = deliveryId
        ? Prisma.sql `SELECT id, endpoint_id, next_run_at FROM webhook_deliveries
        WHERE id = ${deliveryId}::uuid AND (state = 'pending' OR (state = 'sending' AND lease_until < ${now}))`
        : Prisma.sql `(SELECT id, endpoint_id, next_run_at FROM webhook_deliveries
          WHERE state = 'pending' AND next_run_at <= ${now} ORDER BY next_run_at LIMIT ${limit * 4}::int)
        UNION ALL
        (SELECT id, endpoint_id, next_run_at FROM webhook_deliveries
          WHERE state = 'sending' AND lease_until < ${now} LIMIT ${limit * 4}::int)`;
    const ids = await ctx.db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw `SELECT pg_advisory_xact_lock(${CLAIM_LOCK}::int)`;
        return tx.$queryRaw `
      WITH inflight AS (
        SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries
         WHERE state = 'sending' AND lease_until > ${now} GROUP BY endpoint_id
      ), candidates AS (
        SELECT c.id, c.next_run_at, coalesce(i.n, 0) +
               row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_run_at, c.id) AS slot
          FROM (${due}) c LEFT JOIN inflight i ON i.endpoint_id = c.endpoint_id
      ), chosen AS (
        SELECT id FROM candidates WHERE slot <= ${bound}::int ORDER BY next_run_at LIMIT ${limit}::int
      )
      UPDATE webhook_deliveries w SET state = 'sending', lease_until = ${lease}, attempts = attempts + 1
        FROM chosen WHERE w.id = chosen.id
       RETURNING w.id::text`;
    });
    if (ids.length === 0)
        return [];
    return ctx.db.prisma.webhookDelivery.findMany({
        where: { id: { in: ids.map((r) => r.id) } },
        include: { event: true, endpoint: true },
    });
}
/** The attempt's error when the endpoint's signing secret cannot be decrypted. */
export const SECRET_UNREADABLE = 'signing secret cannot be decrypted (wrong TIMBRE_MASTER_KEY?); not sent';
/**
 * The endpoint's signing secret, or null when it cannot be decrypted (a changed master key, a
 * damaged row). Nothing is sent then: a payload signed with an empty key would reach the
 * receiver as if it came from us. The failure is logged without the secret or the error's text
 * (which could quote key material) and the attempt fails like any other, so it is retried on the
 * usual schedule (a restart with the right key delivers it) until the window closes.
 */
function openSecret(ctx, d) {
    try {
        return ctx.db.secrets.open(Buffer.from(d.endpoint.secretEncrypted)).toString('utf8');
    }
    catch {
        ctx.log.error({ endpoint: d.endpoint.id, delivery: d.id, issuer: d.issuerId }, 'webhook signing secret cannot be decrypted; the attempt fails and nothing is sent');
        return null;
    }
}
/** Attempts one claimed delivery and records the outcome (log row, state, endpoint health). */
export async function attemptDelivery(ctx, d) {
    const secret = d.endpoint.enabled ? openSecret(ctx, d) : null;
    const body = JSON.stringify((await eventPayloads(ctx, [d.event]))[0]);
    const result = !d.endpoint.enabled
        ? { status: null, latencyMs: 0, error: 'endpoint disabled' }
        : secret === null
            ? { status: null, latencyMs: 0, error: SECRET_UNREADABLE }
            : await postWebhook(ctx, { url: d.endpoint.url, secret }, { id: d.event.id, body });
    const now = ctx.clock();
    const delivered = result.error === null;
    const giveUpAt = d.event.createdAt.getTime() + ctx.config.WEBHOOK_DISABLE_AFTER_MS;
    // The last attempt is made at the end of the window, so retries span all of it (≥ 3 days).
    const next = new Date(Math.min(now.getTime() + retryDelay(ctx.config.WEBHOOK_RETRY_SCHEDULE_MS, d.attempts), giveUpAt));
    const giveUp = !delivered && (!d.endpoint.enabled || now.getTime() >= giveUpAt);
    await ctx.db.prisma.$transaction(async (tx) => {
        await tx.webhookAttempt.create({
            data: {
                issuerId: d.issuerId,
                deliveryId: d.id,
                attempt: d.attempts,
                status: result.status,
                latencyMs: result.latencyMs,
                error: result.error,
                createdAt: now,
            },
        });
        await tx.webhookDelivery.update({
            where: { id: d.id },
            data: delivered
                ? { state: 'delivered', deliveredAt: now, leaseUntil: null }
                : { state: giveUp ? 'failed' : 'pending', nextRunAt: next, leaseUntil: null },
        });
        if (!d.endpoint.enabled)
            return;
        if (delivered) {
            if (d.endpoint.failingSince) {
                await tx.webhookEndpoint.update({ where: { id: d.endpoint.id }, data: { failingSince: null } });
            }
            return;
        }
        await tx.webhookEndpoint.updateMany({
            where: { id: d.endpoint.id, failingSince: null },
            data: { failingSince: now },
        });
        const since = d.endpoint.failingSince ?? now;
        // Failing for the whole window: measured from the first failure, or — when this delivery
        // just used up its window — the endpoint has not answered 2xx since its first attempt.
        const firstAttempt = giveUp
            ? await tx.webhookAttempt.findFirst({ where: { deliveryId: d.id }, orderBy: { attempt: 'asc' } })
            : null;
        const failedThroughout = firstAttempt !== null && since.getTime() <= firstAttempt.createdAt.getTime();
        if (failedThroughout || now.getTime() - since.getTime() >= ctx.config.WEBHOOK_DISABLE_AFTER_MS) {
            const disabled = await tx.webhookEndpoint.updateMany({
                where: { id: d.endpoint.id, enabled: true },
                data: { enabled: false, disabledAt: now },
            });
            if (disabled.count === 1) {
                ctx.log.warn({ endpoint: d.endpoint.id }, 'webhook endpoint disabled after failing for the whole retry window');
                await recordEvent(tx, {
                    issuerId: d.issuerId,
                    type: 'webhook.disabled',
                    data: {
                        endpoint_id: d.endpoint.id,
                        url: d.endpoint.url,
                        failing_since: since.toISOString(),
                        last_error: result.error,
                    },
                }, now);
            }
        }
    });
    return result;
}
