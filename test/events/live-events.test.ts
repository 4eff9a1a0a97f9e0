/**
 * End to end in live against the local SII simulator: a document is issued, the SII decides,
 * and a local receiver gets `document.issued` then the verdict as signed webhooks (verified with
 * `standardwebhooks`), the receiver's e-mail arrives after acceptance with both attachments, and
 * a receiver that answers 500 twice gets the event on the third attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiiSimulator } from '../../src/sii-simulator/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { type MailCatcher, startMailCatcher, startWebhookReceiver, type WebhookReceiver } from '../helpers/events.ts';
import { createLiveIssuer, eventually, type LiveIssuer, startLiveApp, startSimulator } from '../helpers/live.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';
import { xmlsecVerify } from '../helpers/verify.ts';
import { eventPayloads } from '../../src/events/record.ts';

let sim: SiiSimulator;
let t: TestApp;
let live: LiveIssuer;
let rx: WebhookReceiver;
let mail: MailCatcher;

beforeAll(async () => {
  let url: string;
  ({ sim, url } = await startSimulator());
  rx = await startWebhookReceiver();
  mail = await startMailCatcher();
  t = await startLiveApp(sim, url, {
    env: {
      TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE_MS: '100,200',
      WEBHOOK_POLL_MS: '50',
      SMTP_URL: mail.url,
    },
  });
  live = await createLiveIssuer(t, sim, [33]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${live.rut}/webhooks`,
    headers: live.auth,
    payload: {
      url: rx.url,
      events: ['document.issued', 'document.accepted', 'document.accepted_with_objections', 'document.rejected'],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  rx.setSecret(res.json().secret);
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  await rx?.close();
  await mail?.close();
});

async function issue(body: Record<string, unknown>): Promise<number> {
  const res = await t.app.inject({ method: 'POST', url: `/api/${live.rut}/emitir`, headers: live.auth, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().folio;
}

function hooksOf(folio: number) {
  return rx.received.filter((r) => r.verified?.data.folio === folio && r.verified.data.type === 33);
}

async function verdict(folio: number, type: string) {
  return eventually(async () => hooksOf(folio).find((h) => h.verified?.type === type), 30_000);
}

describe('live events end to end', () => {
  it('issued, then accepted, as verified webhooks; the e-mail follows the acceptance', async () => {
    const folio = await issue(factura());
    const accepted = await verdict(folio, 'document.accepted');
    const issued = hooksOf(folio).find((h) => h.verified?.type === 'document.issued');
    expect(issued?.error).toBeNull();
    expect(accepted.error).toBeNull();
    expect(issued?.verified?.data).toMatchObject({ env: 'live', estado_sii: 'pendiente' });
    expect(accepted.verified?.data).toMatchObject({ estado_sii: 'aceptado', email: { status: 'pending' } });
    expect(String(issued?.verified?.created_at) <= String(accepted.verified?.created_at)).toBe(true);
    // Exactly one announcement of each.
    const types = hooksOf(folio).map((h) => h.verified?.type);
    expect(types.filter((x) => x === 'document.accepted')).toHaveLength(1);

    const msg = await eventually(async () => mail.messages.find((m) => m.subject?.includes(`N° ${folio} `)), 30_000);
    expect(msg.subject?.startsWith('[SANDBOX]')).toBe(false);
    expect((msg.to as { text: string }).text).toBe(RECEIVER.email);
    expect(msg.attachments.map((a) => a.contentType.split(';')[0])).toEqual(['application/pdf', 'application/xml']);
    const envelope = msg.attachments[1]?.content as Buffer;
    expect(envelope.toString('latin1')).toContain(`<RutReceptor>${RECEIVER.rut}</RutReceptor>`);
    expect(xmlsecVerify(envelope, { nodeXpath: "/*/*[local-name()='Signature']" }).ok).toBe(true);
  });

  it('a rejection arrives as document.rejected with the SII code; no e-mail is sent', async () => {
    const folio = await issue(factura({ receiver: { ...RECEIVER, rut: '11111111-1' } }));
    const rejected = await verdict(folio, 'document.rejected');
    expect(rejected.verified?.data).toMatchObject({ estado_sii: 'rechazado' });
    const sii = rejected.verified?.data.sii as { estado: string; glosa: string };
    expect(`${sii.estado} ${sii.glosa}`).toMatch(/RCH|rechaz/i);
    const row = await t.ctx.db.prisma.emailMessage.findFirstOrThrow({ where: { document: { folio, type: 33 } } });
    expect(row.state).toBe('cancelled');
  });

  it('reparos arrive as document.accepted_with_objections', async () => {
    const folio = await issue(factura({ receiver: { ...RECEIVER, rut: '22222222-2' } }));
    const hook = await verdict(folio, 'document.accepted_with_objections');
    expect(hook.verified?.data).toMatchObject({ estado_sii: 'aceptado_con_reparos' });
  });

  it('a receiver that answers 500 twice gets the acceptance on the third attempt', async () => {
    const rx2 = await startWebhookReceiver();
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${live.rut}/webhooks`,
        headers: live.auth,
        payload: { url: rx2.url, events: ['document.accepted'] },
      });
      rx2.setSecret(res.json().secret);
      // 500 twice for this document's acceptance only: other documents of the file (pending ones
      // the jobs retry, in any test order) are accepted too and must not use up the failures.
      let folio = -1;
      let failures = 0;
      rx2.respond = (hook) => (hook.verified?.data.folio === folio && failures++ < 2 ? 500 : undefined);
      folio = await issue(factura({ receiver: { ...RECEIVER, email: undefined } }));
      const hits = await eventually(async () => {
        const h = rx2.received.filter((r) => r.verified?.data.folio === folio);
        return h.length >= 3 ? h : null;
      }, 30_000);
      expect(hits.map((h) => h.verified?.type)).toEqual([
        'document.accepted',
        'document.accepted',
        'document.accepted',
      ]);
      expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
      const eventId = String(hits[0]?.headers['webhook-id']);
      const log = await eventually(async () => {
        const r = await t.app.inject({
          method: 'GET',
          url: `/api/${live.rut}/events/${eventId}/deliveries`,
          headers: live.auth,
        });
        const d = r.json().data.find((x: { url: string }) => x.url === rx2.url);
        return d?.state === 'delivered' ? d : null;
      });
      expect(log.log.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
    } finally {
      await rx2.close();
    }
  });

  it('a document the SII has not received 15 min after issue: document.submission_delayed, once', async () => {
    sim.setFault({ kind: 'down', paths: ['/cgi_dte/UPL/DTEUpload'] });
    try {
      const folio = await issue(factura({ receiver: { ...RECEIVER, email: undefined } }));
      const doc = await t.ctx.db.prisma.document.findFirstOrThrow({
        where: { issuerId: live.issuer.id, type: 33, folio },
      });
      expect(doc.estadoSii).toBe('pendiente');
      const later = new Date(doc.createdAt.getTime() + 16 * 60_000);
      const { scanTimeEvents } = await import('../../src/issuing/time-events.ts');
      await scanTimeEvents({ ...t.ctx, clock: () => later });
      await scanTimeEvents({ ...t.ctx, clock: () => new Date(later.getTime() + 60_000) });
      const rows = await t.ctx.db.prisma.event.findMany({
        where: { documentId: doc.id, type: 'document.submission_delayed' },
      });
      expect(rows).toHaveLength(1);
      // Stored without what the document row gives back; read (and delivered) whole.
      expect((await eventPayloads(t.ctx, rows))[0]?.data).toMatchObject({
        folio,
        estado_sii: 'pendiente',
        env: 'live',
      });
      // Not yet 15 min: nothing for a fresh one.
      const fresh = await issue(factura({ receiver: { ...RECEIVER, email: undefined } }));
      await scanTimeEvents(t.ctx);
      const freshDoc = await t.ctx.db.prisma.document.findFirstOrThrow({
        where: { issuerId: live.issuer.id, type: 33, folio: fresh },
      });
      const none = await t.ctx.db.prisma.event.count({
        where: { type: 'document.submission_delayed', documentId: freshDoc.id },
      });
      expect(none).toBe(0);
    } finally {
      sim.clearFaults();
    }
  });
});
