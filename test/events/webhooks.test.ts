/**
 * Events and webhooks through the API on a sandbox issuer: every delivery is verified by the
 * `standardwebhooks` package's Webhook.verify (not Timbre's code); retries, the delivery log,
 * redelivery, ping, the SSRF guard, roles and the once-only events.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDeliveries, SECRET_UNREADABLE } from '../../src/events/deliveries.ts';
import { recordEvent } from '../../src/events/record.ts';
import { scanTimeEvents } from '../../src/issuing/time-events.ts';
import { importCertificate } from '../../src/admin/certificates.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/events.ts';
import { eventually } from '../helpers/live.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';
import { manualClock } from '../helpers/time.ts';

let t: TestApp;
let rut: string;
let auth: Record<string, string>;
let editor: Record<string, string>;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  t = await buildTestApp({
    env: {
      JOBS_ENABLED: 'true',
      TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE_MS: '100,200',
      WEBHOOK_POLL_MS: '50',
    },
  });
  const issuer = await createTestIssuer(t.ctx);
  rut = issuer.rut;
  auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'owner')}` };
  editor = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'editor')}` };
});

afterAll(async () => {
  await t?.close();
  for (const r of receivers) await r.close();
});

/** A receiver of the test's own (closed after the file). */
async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
}

/** A new issuer with an owner key, and an endpoint of its own pointing at a receiver of its own. */
async function issuerWithEndpoint() {
  const issuer = await createTestIssuer(t.ctx);
  const headers = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut, 'owner')}` };
  const rx = await receiver();
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${issuer.rut}/webhooks`,
    headers,
    payload: { url: rx.url },
  });
  expect(res.statusCode, res.body).toBe(200);
  const { id, secret } = res.json() as { id: string; secret: string };
  rx.setSecret(secret);
  const issue = async (body: Record<string, unknown>) => {
    const doc = await t.app.inject({ method: 'POST', url: `/api/${issuer.rut}/emitir`, headers, payload: body });
    expect(doc.statusCode, doc.body).toBe(200);
    return doc.json() as { folio: number; type: number };
  };
  return { rut: issuer.rut, auth: headers, rx, endpointId: id, issue };
}

// Each test has its own issuer, endpoint and receiver: no test needs another's deliveries.
describe('webhook endpoints', () => {
  it('creates an endpoint: the secret is whsec_ with ≥ 24 bytes, shown once', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const rut = issuer.rut;
    const auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'owner')}` };
    const rx = await receiver();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/webhooks`,
      headers: auth,
      payload: { url: rx.url, description: 'ERP' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ok: true, url: rx.url, events: [], description: 'ERP', enabled: true });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const endpointId: string = body.id;
    const secret: string = body.secret;

    const list = await t.app.inject({ method: 'GET', url: `/api/${rut}/webhooks`, headers: auth });
    expect(list.json().data).toHaveLength(1);
    expect(list.body).not.toContain(secret.slice(6, 20));
    // Stored encrypted: the secret's text is nowhere in the row.
    const row = await t.ctx.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
    expect(Buffer.from(row.secretEncrypted).toString('latin1')).not.toContain(secret.slice(6, 20));
  });

  it('an editor key may not manage webhooks; a bad URL or event type is a 400 naming the field', async () => {
    const rx = await receiver();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/webhooks`,
      headers: editor,
      payload: { url: rx.url },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN_ROLE');
    const bad = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/webhooks`,
      headers: auth,
      payload: { url: 'nope' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('url');
    const badType = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/webhooks`,
      headers: auth,
      payload: { url: rx.url, events: ['document.eaten'] },
    });
    expect(badType.statusCode).toBe(400);
    expect(badType.body).toContain('events');
    // None of the three was created.
    const list = await t.app.inject({ method: 'GET', url: `/api/${rut}/webhooks`, headers: auth });
    expect(list.json().data.filter((e: { url: string }) => e.url === rx.url || e.url === 'nope')).toEqual([]);
  });

  it('issuing delivers document.issued, signed per Standard Webhooks, with the list entry as data', async () => {
    const { rut, auth, rx, issue } = await issuerWithEndpoint();
    const { folio } = await issue(factura());
    const hit = await eventually(async () =>
      rx.received.find((r) => r.verified?.type === 'document.issued' && r.verified.data.folio === folio),
    );
    expect(hit.error).toBeNull();
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['webhook-id']).toBe(hit.verified?.id);
    expect(hit.verified?.data).toMatchObject({
      type: 33,
      folio,
      env: 'sandbox',
      estado_sii: 'local',
      receiver: { rut: RECEIVER.rut },
      email: { status: 'disabled', to: [RECEIVER.email] },
    });
    // The same payload in the events list.
    const events = await t.app.inject({ method: 'GET', url: `/api/${rut}/events?type=document.issued`, headers: auth });
    expect(events.statusCode).toBe(200);
    expect(events.json().data[0]).toEqual(JSON.parse(hit.body));
  });

  it('a receiver that answers 500 twice gets the event on the third attempt; the log shows all three', async () => {
    const { rut, auth, rx, issue } = await issuerWithEndpoint();
    rx.answers.push(500, 500);
    const before = rx.received.length;
    const { folio } = await issue(factura());
    const ok = await eventually(async () => {
      const hits = rx.received.slice(before).filter((r) => r.verified?.data.folio === folio);
      return hits.length >= 3 ? hits : null;
    });
    expect(new Set(ok.map((h) => h.headers['webhook-id'])).size).toBe(1); // same id on every retry
    const eventId = String(ok[0]?.headers['webhook-id']);
    const log = await eventually(async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/${rut}/events/${eventId}/deliveries`, headers: auth });
      const d = res.json().data[0];
      return d?.state === 'delivered' ? d : null;
    });
    expect(log.log.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
    expect(log.attempts).toBe(3);
  });

  it('redeliver sends the event again with the same webhook-id; unknown ids are 404', async () => {
    const { rut, auth, rx, issue } = await issuerWithEndpoint();
    const { folio } = await issue(factura());
    const first = await eventually(async () =>
      rx.received.find((r) => r.verified?.type === 'document.issued' && r.verified.data.folio === folio),
    );
    const eventId = String(first.headers['webhook-id']);
    // Redelivery follows the first delivery's outcome being recorded.
    await eventually(async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/${rut}/events/${eventId}/deliveries`, headers: auth });
      return res.json().data[0]?.state === 'delivered';
    });
    const before = rx.received.length;
    const res = await t.app.inject({ method: 'POST', url: `/api/${rut}/events/${eventId}/redeliver`, headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, queued: 1 });
    const again = await eventually(async () =>
      rx.received.slice(before).find((r) => r.headers['webhook-id'] === eventId),
    );
    expect(again.verified).not.toBeNull();
    const missing = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/events/00000000-0000-0000-0000-000000000000/redeliver`,
      headers: auth,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('EVENT_NOT_FOUND');
  });

  it('test sends a ping now and answers the status', async () => {
    const { rut, auth, rx, endpointId } = await issuerWithEndpoint();
    const res = await t.app.inject({ method: 'POST', url: `/api/${rut}/webhooks/${endpointId}/test`, headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, delivered: true, status: 200, error: null });
    expect(rx.received).toHaveLength(1);
    expect(rx.received.at(-1)?.verified?.type).toBe('ping');
  });

  it('a secret that cannot be decrypted sends nothing: the attempt fails with a clear reason and is retried', async () => {
    const { rut, auth, rx, endpointId, issue } = await issuerWithEndpoint();
    const secret = await t.ctx.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
    // As after a change of master key: the envelope no longer opens.
    const broken = Buffer.from(secret.secretEncrypted);
    broken[broken.length - 1] = (broken[broken.length - 1] ?? 0) ^ 0xff;
    await t.ctx.db.prisma.webhookEndpoint.update({
      where: { id: endpointId },
      data: { secretEncrypted: new Uint8Array(broken) },
    });
    const ping = await t.app.inject({ method: 'POST', url: `/api/${rut}/webhooks/${endpointId}/test`, headers: auth });
    expect(ping.statusCode, ping.body).toBe(200);
    expect(ping.json()).toMatchObject({ delivered: false, status: null, error: SECRET_UNREADABLE });

    const { folio } = await issue(factura());
    const eventId = await eventually(async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/${rut}/events?type=document.issued`, headers: auth });
      return res.json().data.find((e: { data: { folio: number } }) => e.data.folio === folio)?.id as string;
    });
    // Retried on the schedule (100, 200 ms here), every attempt failing with the same reason.
    const failed = await eventually(async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/${rut}/events/${eventId}/deliveries`, headers: auth });
      const d = res.json().data[0];
      return d?.log.length >= 2 ? d : null;
    });
    expect(failed.state).not.toBe('delivered');
    expect(new Set(failed.log.map((a: { error: string }) => a.error))).toEqual(new Set([SECRET_UNREADABLE]));
    expect(rx.received).toHaveLength(0); // never sent, signed or not

    // With the secret readable again (the right key back), the next retry delivers, verified.
    await t.ctx.db.prisma.webhookEndpoint.update({
      where: { id: endpointId },
      data: { secretEncrypted: secret.secretEncrypted },
    });
    const hit = await eventually(async () => rx.received.find((r) => r.verified?.data.folio === folio));
    expect(hit.error).toBeNull();
  });

  it('another issuer sees neither the endpoint nor the events', async () => {
    const { rut, auth, endpointId, issue } = await issuerWithEndpoint();
    await issue(factura());
    const other = await createTestIssuer(t.ctx);
    const key = { authorization: `Bearer ${await createTestKey(t.ctx, other.rut, 'owner')}` };
    const list = await t.app.inject({ method: 'GET', url: `/api/${other.rut}/webhooks`, headers: key });
    expect(list.json().data).toEqual([]);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/${other.rut}/webhooks/${endpointId}`, headers: key });
    expect(del.statusCode).toBe(404);
    const cross = await t.app.inject({ method: 'GET', url: `/api/${rut}/events`, headers: key });
    expect(cross.statusCode).toBe(403);
    // The endpoint is still there for its issuer.
    const own = await t.app.inject({ method: 'GET', url: `/api/${rut}/webhooks`, headers: auth });
    expect(own.json().data.map((e: { id: string }) => e.id)).toEqual([endpointId]);
  });
});

describe('SSRF guard', () => {
  it('refuses loopback, private and link-local targets without TIMBRE_WEBHOOKS_ALLOW_PRIVATE', async () => {
    const strict = await buildTestApp({ env: {}, shareDatabaseOf: t });
    try {
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://10.1.2.3/x',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]/x',
        'http://localhost/x',
      ]) {
        const res = await strict.app.inject({
          method: 'POST',
          url: `/api/${rut}/webhooks`,
          headers: auth,
          payload: { url },
        });
        expect(res.statusCode, url).toBe(422);
        expect(res.json()).toMatchObject({ code: 'WEBHOOK_URL_BLOCKED', details: [{ path: 'url' }] });
      }
    } finally {
      await strict.close();
    }
  });
});

describe('once-only events', () => {
  it('folios.low fires once per crossing; folios.exhausted when none are left', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const key = { authorization: `Bearer ${await createTestKey(t.ctx, issuer.rut, 'owner')}` };
    // A 30-folio sandbox range; default threshold max(10 % of 30, 20) = 20.
    const range = await t.app.inject({
      method: 'POST',
      url: `/api/${issuer.rut}/folios_sii`,
      headers: key,
      payload: { tipo_dte: 34, cantidad: 12 },
    });
    expect(range.statusCode, range.body).toBe(200);
    const issue34 = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: key,
        payload: { type: 34, receiver: RECEIVER, items: [{ name: 'Asesoría', qty: 1, price: 1000 }] },
      });
    for (let i = 0; i < 12; i++) expect((await issue34()).statusCode).toBe(200);
    const events = await t.app.inject({ method: 'GET', url: `/api/${issuer.rut}/events?limit=100`, headers: key });
    const types = events.json().data.map((e: { type: string }) => e.type);
    expect(types.filter((x: string) => x === 'folios.low')).toHaveLength(1);
    expect(types.filter((x: string) => x === 'folios.exhausted')).toHaveLength(1);
    expect(types.filter((x: string) => x === 'document.issued')).toHaveLength(12);
    const low = events.json().data.find((e: { type: string }) => e.type === 'folios.low');
    expect(low.data).toMatchObject({ type: 34, env: 'sandbox', threshold: 20 });
  });

  it('a dedupe key writes its event once, whatever the number of writers', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const write = () =>
      t.ctx.db.prisma.$transaction((tx) =>
        recordEvent(
          tx,
          { issuerId: issuer.id, type: 'caf.expiring', data: {}, dedupeKey: `test:${issuer.id}` },
          new Date(),
        ),
      );
    const ids = await Promise.all([write(), write(), write(), write()]);
    expect(ids.filter(Boolean)).toHaveLength(1);
  });

  it('certificate.expiring at 30, 7 and 1 days and certificate.expired fire once each across repeated scans', async () => {
    const issuer = await createTestIssuer(t.ctx);
    const { p12, password } = generateTestCertificate({ holderRut: '13185095-6', name: 'FIRMA', validDays: 60 });
    const cert = await importCertificate(t.ctx, { rut: issuer.rut, p12, password });
    const notAfter = cert.notAfter.getTime();
    const day = 24 * 3600 * 1000;
    for (const daysBefore of [40, 29, 28, 6.5, 6, 0.5, 0.4, -1, -2]) {
      const at = new Date(notAfter - daysBefore * day);
      await scanTimeEvents({ ...t.ctx, clock: () => at });
    }
    const rows = await t.ctx.db.prisma.event.findMany({
      where: { issuerId: issuer.id, type: { startsWith: 'certificate.' } },
      orderBy: { createdAt: 'asc' },
    });
    expect(rows.map((r) => `${r.type}:${(r.data as { threshold_days?: number }).threshold_days ?? ''}`)).toEqual([
      'certificate.expiring:30',
      'certificate.expiring:7',
      'certificate.expiring:1',
      'certificate.expired:',
    ]);
  });
});

describe('an endpoint that keeps failing', () => {
  it('is retried until the window closes, then disabled, and the issuer is told by webhook.disabled', async () => {
    const failing = await startWebhookReceiver();
    // A 2 s window stands in for the 3 days (same code path, WEBHOOK_DISABLE_AFTER_MS).
    const app = await buildTestApp({
      env: {
        JOBS_ENABLED: 'true',
        TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_SCHEDULE_MS: '300',
        WEBHOOK_DISABLE_AFTER_MS: '2000',
        WEBHOOK_POLL_MS: '50',
      },
    });
    try {
      failing.answers.push(...Array(100).fill(503));
      const issuer = await createTestIssuer(app.ctx);
      const key = { authorization: `Bearer ${await createTestKey(app.ctx, issuer.rut, 'owner')}` };
      const created = await app.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/webhooks`,
        headers: key,
        payload: { url: failing.url },
      });
      const id = created.json().id;
      await app.app.inject({ method: 'POST', url: `/api/${issuer.rut}/emitir`, headers: key, payload: factura() });
      const disabled = await eventually(async () => {
        const list = await app.app.inject({ method: 'GET', url: `/api/${issuer.rut}/webhooks`, headers: key });
        const e = list.json().data[0];
        return e.enabled === false ? e : null;
      });
      expect(disabled).toMatchObject({ id, enabled: false });
      expect(disabled.failing_since).not.toBeNull();
      expect(failing.received.length).toBeGreaterThanOrEqual(3);
      const events = await app.app.inject({
        method: 'GET',
        url: `/api/${issuer.rut}/events?type=webhook.disabled`,
        headers: key,
      });
      expect(events.json().data[0].data).toMatchObject({ endpoint_id: id, url: failing.url });
      const deliveries = await app.ctx.db.prisma.webhookDelivery.findMany({ where: { endpointId: id } });
      expect(deliveries.every((d) => d.state === 'failed')).toBe(true);
    } finally {
      await app.close();
      await failing.close();
    }
  });
});

describe('a slow receiver', () => {
  it('a delivery whose worker died mid-attempt waits for its lease, then another instance delivers it once (restarts lose nothing)', async () => {
    const env = {
      TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_MS: '5000', // lease: the timeout + 60 s
      WEBHOOK_POLL_MS: '50',
    };
    // The first instance runs no jobs: it writes events and their delivery rows, nothing more.
    const first = await buildTestApp({ env: { ...env, JOBS_ENABLED: 'false' } });
    const issuer = await createTestIssuer(first.ctx);
    const key = { authorization: `Bearer ${await createTestKey(first.ctx, issuer.rut, 'owner')}` };
    const rx = await receiver();
    const created = await first.app.inject({
      method: 'POST',
      url: `/api/${issuer.rut}/webhooks`,
      headers: key,
      payload: { url: rx.url },
    });
    expect(created.statusCode, created.body).toBe(200);
    rx.setSecret(created.json().secret);
    const issue = async () => {
      const res = await first.app.inject({
        method: 'POST',
        url: `/api/${issuer.rut}/emitir`,
        headers: key,
        payload: factura(),
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().folio as number;
    };
    const gotFolio = (folio: number) =>
      rx.received.filter((r) => r.verified?.type === 'document.issued' && r.verified.data.folio === folio);

    // A worker claims the first document's delivery and dies before it answers: the row stays
    // 'sending' under the worker's lease.
    const folio1 = await issue();
    const claimed = await claimDeliveries(first.ctx, 10);
    expect(claimed.map((d) => d.event.type)).toEqual(['document.issued']);
    const folio2 = await issue();

    // A new instance with jobs, on the same database (a restart), delivers what is due and
    // passes over the leased row: one attempt per delivery in flight, even across instances.
    const clock = manualClock();
    await buildTestApp({ env: { ...env, JOBS_ENABLED: 'true' }, clock, shareDatabaseOf: first });
    await eventually(async () => gotFolio(folio2).length === 1);
    expect(gotFolio(folio1)).toHaveLength(0);
    // The receiver counts a hit before it answers: wait for that delivery's answer to be
    // recorded, or the clock jump below would also expire its lease (seen through PgBouncer:
    // delivered twice, which is what an expired lease means, not what this test is about).
    await eventually(
      async () =>
        (await first.db.prisma.webhookDelivery.count({ where: { state: 'sending', id: { not: claimed[0]!.id } } })) ===
        0,
    );

    // Once the lease has run out the delivery is taken up again, and arrives once.
    clock.advance(66_000);
    await eventually(async () => gotFolio(folio1).length === 1);
    expect(gotFolio(folio1)[0]!.error).toBeNull();
    // The receiver counts the hit before it answers; the row says delivered once the answer is back.
    const row = await eventually(async () => {
      const r = await first.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: claimed[0]!.id } });
      return r.state === 'delivered' && r;
    });
    expect(row).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(gotFolio(folio2)).toHaveLength(1);
  });

  it('gets at most WEBHOOK_ENDPOINT_CONCURRENCY attempts at once and does not hold up another endpoint', async () => {
    // The slow receiver holds every request until released: no timing in the assertions.
    let inFlight = 0;
    let maxInFlight = 0;
    let slowDone = 0;
    let release = false;
    const held: Array<() => void> = [];
    const slow = createServer((req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      req.resume();
      const answer = () => {
        inFlight--;
        slowDone++;
        res.end('ok');
      };
      if (release) answer();
      else held.push(answer);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const fast = await startWebhookReceiver();
    const app = await buildTestApp({
      env: {
        JOBS_ENABLED: 'true',
        TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOK_ENDPOINT_CONCURRENCY: '2',
        WEBHOOK_TIMEOUT_MS: '60000',
        WEBHOOK_POLL_MS: '50',
      },
    });
    try {
      const issuer = await createTestIssuer(app.ctx);
      const key = { authorization: `Bearer ${await createTestKey(app.ctx, issuer.rut, 'owner')}` };
      const port = (slow.address() as AddressInfo).port;
      for (const url of [`http://127.0.0.1:${port}/slow`, fast.url]) {
        const res = await app.app.inject({
          method: 'POST',
          url: `/api/${issuer.rut}/webhooks`,
          headers: key,
          payload: { url },
        });
        if (url === fast.url) fast.setSecret(res.json().secret);
      }
      const docs = 8;
      await Promise.all(
        Array.from({ length: docs }, () =>
          app.app.inject({ method: 'POST', url: `/api/${issuer.rut}/emitir`, headers: key, payload: factura() }),
        ),
      );
      // The fast endpoint gets everything while the slow one holds its first two.
      await eventually(async () => fast.received.length >= docs);
      await eventually(async () => inFlight === 2);
      expect(slowDone).toBe(0);
      release = true;
      for (const answer of held.splice(0)) answer();
      await eventually(async () => slowDone >= docs, 30_000);
      expect(maxInFlight).toBeLessThanOrEqual(2);
      expect(maxInFlight).toBeGreaterThanOrEqual(1);
      expect(fast.received.every((r) => r.verified !== null)).toBe(true);
    } finally {
      await app.close();
      await fast.close();
      slow.close();
    }
  });
});
