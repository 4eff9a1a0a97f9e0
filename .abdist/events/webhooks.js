/**
 * Webhook endpoints of an issuer (docs/design.md §9): the use cases behind `/api/{rut}/webhooks…` and
 * the dashboard. The secret (`whsec_` + base64 of 32 random bytes) is returned once, by
 * `createEndpoint`, and stored only as an AES-256-GCM envelope (db/secrets.ts).
 */
import { randomBytes } from 'node:crypto';
import { AppError, validationError } from '../errors.js';
import { environmentOf } from '../admin/environment.js';
import { attemptDelivery, claimDeliveries } from './deliveries.js';
import { findEvent, recordEvent } from './record.js';
import { checkTarget } from './ssrf.js';
export const MAX_ENDPOINTS = 10;
function endpointView(e) {
    return {
        id: e.id,
        url: e.url,
        events: e.events,
        description: e.description,
        enabled: e.enabled,
        created_at: e.createdAt.toISOString(),
        disabled_at: e.disabledAt?.toISOString() ?? null,
        failing_since: e.failingSince?.toISOString() ?? null,
    };
}
export async function listEndpoints(ctx, issuer) {
    const rows = await ctx.db.prisma.webhookEndpoint.findMany({
        where: { issuerId: issuer.id },
        orderBy: { createdAt: 'asc' },
    });
    return rows.map(endpointView);
}
async function findEndpoint(ctx, issuer, id) {
    const row = /^[0-9a-f-]{36}$/i.test(id)
        ? await ctx.db.prisma.webhookEndpoint.findFirst({ where: { id, issuerId: issuer.id } })
        : null;
    if (!row)
        throw new AppError('WEBHOOK_NOT_FOUND', `No webhook endpoint ${id} for ${issuer.rut}.`);
    return row;
}
export async function createEndpoint(ctx, issuer, input) {
    let url;
    try {
        url = new URL(input.url);
    }
    catch {
        throw validationError('url', 'url.not_absolute');
    }
    const blocked = await checkTarget(url, {
        allowPrivate: ctx.config.TIMBRE_WEBHOOKS_ALLOW_PRIVATE,
        live: environmentOf(issuer) === 'live',
    });
    if (blocked) {
        throw new AppError('WEBHOOK_URL_BLOCKED', `url: ${blocked.message}.`, { details: [blocked] });
    }
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const created = await ctx.db.prisma.$transaction(async (tx) => {
        // Serialise creations per issuer so the limit holds under concurrent requests.
        await tx.$queryRaw `SELECT id FROM issuers WHERE id = ${issuer.id}::uuid FOR UPDATE`;
        const count = await tx.webhookEndpoint.count({ where: { issuerId: issuer.id } });
        if (count >= MAX_ENDPOINTS)
            throw new AppError('WEBHOOK_LIMIT_REACHED');
        return tx.webhookEndpoint.create({
            data: {
                issuerId: issuer.id,
                url: url.toString(),
                events: [...new Set(input.events ?? [])],
                description: input.description ?? '',
                secretEncrypted: new Uint8Array(ctx.db.secrets.seal(secret)),
            },
        });
    });
    ctx.log.info({ endpoint: created.id, issuer: issuer.rut }, 'webhook endpoint created');
    return { ...endpointView(created), secret };
}
/** Deletes an endpoint; its pending deliveries and their log go with it. */
export async function deleteEndpoint(ctx, issuer, id) {
    const endpoint = await findEndpoint(ctx, issuer, id);
    await ctx.db.prisma.webhookEndpoint.delete({ where: { id: endpoint.id } });
}
/**
 * Sends a `ping` event to one endpoint now and answers how it went (the attempt is in the
 * delivery log like any other; a failed ping is retried like any other event).
 */
export async function testEndpoint(ctx, issuer, id) {
    const endpoint = await findEndpoint(ctx, issuer, id);
    const now = ctx.clock();
    const eventId = await ctx.db.prisma.$transaction((tx) => recordEvent(tx, {
        issuerId: issuer.id,
        type: 'ping',
        endpointId: endpoint.id,
        data: { endpoint_id: endpoint.id, url: endpoint.url },
        // Attempted right below; the workers take it only if this request dies first.
        deliverAt: new Date(now.getTime() + 60_000),
    }, now));
    const delivery = await ctx.db.prisma.webhookDelivery.findFirstOrThrow({
        where: { eventId: eventId, endpointId: endpoint.id },
    });
    const [claimed] = await claimDeliveries(ctx, 1, delivery.id);
    const result = claimed ? await attemptDelivery(ctx, claimed) : null;
    return {
        event_id: eventId,
        delivered: result !== null && result.error === null,
        status: result?.status ?? null,
        latency_ms: result?.latencyMs ?? null,
        error: result ? result.error : 'the delivery is already in flight',
    };
}
/**
 * Sends an event again to every enabled endpoint that subscribes to it (and to those it
 * already went to): failed and delivered deliveries become due now; one in flight is left alone.
 */
export async function redeliverEvent(ctx, issuer, eventId) {
    const event = await findEvent(ctx, issuer, eventId);
    const now = ctx.clock();
    const endpoints = await ctx.db.prisma.webhookEndpoint.findMany({ where: { issuerId: issuer.id, enabled: true } });
    const targets = endpoints.filter((e) => event.type === 'ping' || e.events.length === 0 || e.events.includes(event.type));
    let queued = 0;
    for (const e of targets) {
        const existing = await ctx.db.prisma.webhookDelivery.findUnique({
            where: { eventId_endpointId: { eventId: event.id, endpointId: e.id } },
        });
        if (!existing) {
            if (event.type === 'ping')
                continue; // a ping belongs to the endpoint it tested
            await ctx.db.prisma.webhookDelivery.create({
                data: { issuerId: issuer.id, eventId: event.id, endpointId: e.id, nextRunAt: now },
            });
            queued++;
        }
        else if (existing.state !== 'sending') {
            await ctx.db.prisma.webhookDelivery.update({
                where: { id: existing.id },
                data: { state: 'pending', nextRunAt: now },
            });
            queued++;
        }
    }
    ctx.jobs?.nudge();
    return { event_id: event.id, queued };
}
/** The delivery log of one event: per endpoint, every attempt. */
export async function deliveriesOfEvent(ctx, issuer, eventId) {
    const event = await findEvent(ctx, issuer, eventId);
    const rows = await ctx.db.prisma.webhookDelivery.findMany({
        where: { eventId: event.id },
        include: { endpoint: true, log: { orderBy: { attempt: 'asc' } } },
        orderBy: { createdAt: 'asc' },
    });
    return rows.map((d) => ({
        endpoint_id: d.endpointId,
        url: d.endpoint.url,
        state: d.state,
        attempts: d.attempts,
        next_attempt_at: d.state === 'pending' ? d.nextRunAt.toISOString() : null,
        delivered_at: d.deliveredAt?.toISOString() ?? null,
        log: d.log.map((a) => ({
            attempt: a.attempt,
            status: a.status,
            latency_ms: a.latencyMs,
            error: a.error,
            at: a.createdAt.toISOString(),
        })),
    }));
}
/**
 * The issuer's latest delivery attempts, newest first, across events and endpoints (the
 * dashboard's delivery log; `deliveriesOfEvent` is the same log for one event).
 */
export async function recentAttempts(ctx, issuer, limit = 50) {
    const rows = await ctx.db.prisma.webhookAttempt.findMany({
        where: { issuerId: issuer.id },
        orderBy: [{ createdAt: 'desc' }, { attempt: 'desc' }],
        take: limit,
        include: { delivery: { include: { event: { select: { type: true } }, endpoint: { select: { url: true } } } } },
    });
    return rows.map((a) => ({
        event_id: a.delivery.eventId,
        event_type: a.delivery.event.type,
        endpoint_id: a.delivery.endpointId,
        url: a.delivery.endpoint.url,
        attempt: a.attempt,
        status: a.status,
        latency_ms: a.latencyMs,
        error: a.error,
        at: a.createdAt.toISOString(),
    }));
}
