/**
 * E-mail to the receiver on a sandbox issuer, through a real SMTP server in-process
 * (`smtp-server`), the message parsed with `mailparser`: recipients, "[SANDBOX]" subject, the
 * PDF and the intercambio envelope whose Carátula names the receiver and whose signatures
 * xmlsec1 verifies; retries after an SMTP failure; `email` in list entries; emision_email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { type MailCatcher, startMailCatcher } from '../helpers/events.ts';
import { eventually } from '../helpers/live.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';

let t: TestApp;
let mail: MailCatcher;
let rut: string;
let auth: Record<string, string>;

beforeAll(async () => {
  mail = await startMailCatcher();
  t = await buildTestApp({
    env: {
      JOBS_ENABLED: 'true',
      SMTP_URL: mail.url,
      MAIL_FROM: 'Facturas <facturas@timbre.test>',
      EMAIL_RETRY_BASE_MS: '100',
      WEBHOOK_POLL_MS: '50',
    },
  });
  const issuer = await createTestIssuer(t.ctx);
  rut = issuer.rut;
  auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'owner')}` };
});

afterAll(async () => {
  await t?.close();
  await mail?.close();
});

async function listEntry(folio: number) {
  const res = await t.app.inject({ method: 'GET', url: `/api/${rut}/emisiones?q=${folio}`, headers: auth });
  return res.json().data.find((d: { folio: number }) => d.folio === folio);
}

describe('e-mail to the receiver (sandbox)', () => {
  it('is sent at issue with the PDF and a signed intercambio envelope addressed to the receiver', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/${rut}/emitir`, headers: auth, payload: factura() });
    expect(res.statusCode, res.body).toBe(200);
    const { folio } = res.json();
    const msg = await eventually(async () => mail.messages.find((m) => m.subject?.includes(`N° ${folio} `)));
    expect(msg.subject).toMatch(/^\[SANDBOX\] FACTURA ELECTRÓNICA N° \d+ de /);
    expect((msg.to as { text: string }).text).toBe(RECEIVER.email);
    expect(msg.from?.text).toContain('facturas@timbre.test');
    const names = msg.attachments.map((a) => a.filename);
    expect(names).toEqual([`DTE_${rut}_T33_F${folio}.pdf`, `EnvioDTE_${rut}_T33_F${folio}.xml`]);
    const pdf = msg.attachments[0]?.content as Buffer;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const envelope = msg.attachments[1]?.content as Buffer;
    const text = envelope.toString('latin1');
    expect(text).toContain(`<RutReceptor>${RECEIVER.rut}</RutReceptor>`);
    expect(text).toContain(`<RutEmisor>${rut}</RutEmisor>`);
    // The envelope's SetDTE signature verifies, the XSD accepts it, and the DTE inside is the
    // stored signed DTE, byte for byte, whose own signature verifies when cut out.
    expect(xmlsecVerify(envelope, { nodeXpath: "/*/*[local-name()='Signature']" }).ok).toBe(true);
    expect(xmllint(envelope, 'EnvioDTE_v10.xsd').ok).toBe(true);
    const dte = /<DTE [\s\S]*?<\/DTE>/.exec(text)?.[0] ?? '';
    const stored = await t.ctx.db.prisma.document.findFirstOrThrow({ where: { folio, type: 33, issuer: { rut } } });
    expect((await signedXmlOf(t.ctx, stored)).toString('latin1')).toContain(dte);
    expect(xmlsecVerify(Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${dte}`, 'latin1')).ok).toBe(true);

    const entry = await eventually(async () => {
      const e = await listEntry(folio);
      return e?.email.status === 'sent' ? e : null;
    });
    expect(entry.email).toMatchObject({ status: 'sent', to: [RECEIVER.email] });
    expect(entry.email.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const events = await t.app.inject({ method: 'GET', url: `/api/${rut}/events?type=email.sent`, headers: auth });
    expect(events.json().data[0].data).toMatchObject({ type: 33, folio, to: [RECEIVER.email] });
  });

  it('an SMTP failure is retried through the queue', async () => {
    mail.failNext(1);
    const before = mail.messages.length;
    const res = await t.app.inject({ method: 'POST', url: `/api/${rut}/emitir`, headers: auth, payload: factura() });
    const { folio } = res.json();
    await eventually(async () => mail.messages.slice(before).find((m) => m.subject?.includes(`N° ${folio} `)));
    // The SMTP server has the message a moment before the row says so.
    const row = await eventually(async () => {
      const r = await t.ctx.db.prisma.emailMessage.findFirstOrThrow({ where: { document: { folio, type: 33 } } });
      return r.state === 'sent' ? r : null;
    });
    expect(row).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('emision_email sends again to other addresses; a document without receiver e-mail is "none"', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/emitir`,
      headers: auth,
      payload: factura({ receiver: { ...RECEIVER, email: undefined } }),
    });
    const { folio } = res.json();
    expect((await listEntry(folio)).email).toEqual({ status: 'none', to: [], at: null });
    const noTo = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/emision_email`,
      headers: auth,
      payload: { type: 33, folio },
    });
    expect(noTo.statusCode).toBe(422);
    expect(noTo.json().code).toBe('EMAIL_NO_RECIPIENT');
    const badTo = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/emision_email`,
      headers: auth,
      payload: { type: 33, folio, to: ['not-an-address'] },
    });
    expect(badTo.statusCode).toBe(400);
    expect(badTo.json().details[0].path).toBe('to[0]');
    const send = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/emision_email`,
      headers: auth,
      payload: { type: 33, folio, to: ['contabilidad@cliente.cl', 'gerencia@cliente.cl'] },
    });
    expect(send.statusCode, send.body).toBe(200);
    expect(send.json()).toMatchObject({ ok: true, email: { status: 'pending' } });
    const msg = await eventually(async () => mail.messages.find((m) => m.subject?.includes(`N° ${folio} `)));
    expect((msg.to as { text: string }).text).toBe('contabilidad@cliente.cl, gerencia@cliente.cl');
    const viewer = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'viewer')}` };
    const denied = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/emision_email`,
      headers: viewer,
      payload: { type: 33, folio },
    });
    expect(denied.statusCode).toBe(403);
  });

  it('without SMTP_URL, emision_email is a 422 saying e-mail is off', async () => {
    const off = await buildTestApp({ shareDatabaseOf: t });
    try {
      const res = await off.app.inject({
        method: 'POST',
        url: `/api/${rut}/emision_email`,
        headers: auth,
        payload: { type: 33, folio: 1 },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('EMAIL_DISABLED');
    } finally {
      await off.close();
    }
  });
});
