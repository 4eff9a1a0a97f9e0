/**
 * The intercambio mailbox against a real IMAP server (Dovecot, test/helpers/dovecot.ts): the
 * simulator's supplier e-mails a factura into the company's mailbox (IMAP APPEND), the reader
 * takes it through the receiver's checks, it is listed, and the signed RespuestaDTE is e-mailed
 * back to the supplier (captured by an SMTP catcher) and accepted by xmllint and xmlsec1.
 * Also: a tampered factura, a read that died half-way, two instances on one mailbox, poison
 * messages, and a mailbox that is down, then up.
 */
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueEmails } from '../../src/issuing/document-email.ts';
import { EMAIL_READERS } from '../../src/jobs.ts';
import { PROCESSED_KEYWORD, readDueMailboxes, readMailbox } from '../../src/receiving/mailbox-reader.ts';
import {
  appendToMailbox,
  composeSupplierMail,
  SUPPLIER,
  SUPPLIER_EMAIL,
  type Supplier,
  standInSupplier,
} from '../../src/sii-simulator/supplier.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/simulator.ts';
import { buildTestApp, createTestKey, createTestTenant, type TestApp } from '../helpers/app.ts';
import { replaceOnce } from '../helpers/dte-pipeline.ts';
import { dashboardSession } from '../helpers/dashboard.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type MailCatcher, startMailCatcher } from '../helpers/events.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';
import { zip } from '../helpers/zip.ts';

let t: TestApp;
let supplier: Supplier;
let imap: Dovecot;
let smtp: MailCatcher;
let sim: SiiSimulator;
let folders = 0;

/** Bound for a message read from the mailbox in these tests (the poison test goes past it). */
const MAX_MESSAGE_BYTES = 400_000;

beforeAll(async () => {
  supplier = standInSupplier();
  imap = await startDovecot();
  smtp = await startMailCatcher();
  sim = createSiiSimulator();
  await sim.listen();
  t = await buildTestApp({
    env: {
      TIMBRE_EXTRA_CAF_KEYS: `${supplier.siiPublicKeyPem}\n${sim.cafPublicKeyPem}`,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Timbre <dte@empresa.test>',
      MAILBOX_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES),
    },
  });
});

afterAll(async () => {
  await sim?.close();
  await smtp?.close();
  await imap?.stop();
});

/** A client of the test server, for what a person (or the supplier) does in the mailbox. */
async function withImap<T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> {
  const c = new ImapFlow({
    host: imap.host,
    port: imap.port,
    secure: false,
    auth: { user: imap.user, pass: imap.password },
    logger: false,
  });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.logout();
  }
}

/** A tenant whose mailbox is a new folder of the test server (each test its own). */
async function tenantWithMailbox(app = t) {
  const tenant = await createTestTenant(app);
  const folder = `T${process.pid}x${++folders}`;
  await withImap((c) => c.mailboxCreate(folder));
  const res = await tenant.api.inject({
    method: 'PUT',
    url: `/api/${tenant.rut}/buzon`,
    payload: { host: imap.host, port: imap.port, tls: 'none', user: imap.user, password: imap.password, folder },
  });
  expect(res.statusCode).toBe(200);
  return { ...tenant, folder };
}

const target = (folder: string) => ({
  host: imap.host,
  port: imap.port,
  tls: 'none' as const,
  user: imap.user,
  password: imap.password,
  folder,
});

async function deliver(
  folder: string,
  rut: string,
  attachments: { filename: string; content: Buffer; contentType?: string }[],
) {
  const raw = await composeSupplierMail({ to: `dte@${rut}.test`, attachments });
  return appendToMailbox(target(folder), raw);
}

/** Makes the issuer's mailbox due now and runs the reader once, as the jobs would. */
async function readNow(issuerId: string, app = t) {
  await app.db.prisma.receivedMailbox.update({ where: { issuerId }, data: { nextRunAt: new Date(0) } });
  await readDueMailboxes(app.ctx);
}

/** Sends every due e-mail (other tests' answers may be due too: one batch may not reach this one's). */
async function sendAllEmails() {
  while ((await sendDueEmails(t.ctx, EMAIL_READERS)) > 0) {}
}

async function envelopesOf(issuerId: string) {
  return t.db.prisma.receivedEnvelope.findMany({ where: { issuerId }, orderBy: { number: 'asc' } });
}

describe('a factura e-mailed by the simulated supplier', () => {
  it('lands, is listed with its checks passed, and the supplier gets a signed RecepcionEnvio by e-mail', async () => {
    const { issuer, rut, api, folder } = await tenantWithMailbox();
    const probe = await api.inject({ method: 'POST', url: `/api/${rut}/buzon/probar` });
    expect(probe.json()).toMatchObject({ ok: true, connected: true, messages: 0 });

    const envelope = supplier.envelope(rut, [supplier.dte(rut, 21)]);
    await deliver(folder, rut, [{ filename: `EnvioDTE_${SUPPLIER.rut}_21.xml`, content: envelope }]);
    await readNow(issuer.id);

    const list = (await api.get(`/api/${rut}/recibidos`)).json();
    expect(list.total).toBe(1);
    expect(list.data[0]).toMatchObject({ type: 33, folio: 21 });
    const [row] = await envelopesOf(issuer.id);
    expect(row).toMatchObject({ source: 'mailbox', estadoRecepEnv: 0 });
    expect(Buffer.from(row!.xml).equals(envelope)).toBe(true);
    const message = await t.db.prisma.receivedMailboxMessage.findFirstOrThrow({ where: { issuerId: issuer.id } });
    expect(message).toMatchObject({ outcome: 'received', fromAddress: SUPPLIER_EMAIL });
    expect(message.messageId).toMatch(/^<.+>$/);

    // Flagged on the server.
    const flags = await withImap(async (c) => {
      await c.mailboxOpen(folder);
      const m = await c.fetchOne('1', { flags: true });
      return m ? m.flags : undefined;
    });
    expect([...(flags ?? [])]).toEqual(expect.arrayContaining(['\\Seen', PROCESSED_KEYWORD]));

    // The answer, e-mailed to the message's From.
    await sendAllEmails();
    const mail = smtp.messages.find((m) => m.attachments.some((a) => a.filename?.includes(`_${row!.number}.xml`)));
    expect(mail?.to).toMatchObject({ value: [{ address: SUPPLIER_EMAIL }] });
    const answer = mail!.attachments[0]!.content;
    expect(Buffer.from(row!.respuestaXml!).equals(answer)).toBe(true);
    expect(xmllint(answer, 'RespuestaEnvioDTE_v10.xsd')).toMatchObject({ ok: true });
    expect(xmlsecVerify(answer, { idAttrs: ['Resultado', 'http://www.sii.cl/SiiDte:Resultado'] })).toMatchObject({
      ok: true,
    });
    expect(answer.toString('latin1')).toContain('<EstadoRecepEnv>0</EstadoRecepEnv>');

    // The settings show how reading goes, never the password.
    const settings = await api.get(`/api/${rut}/buzon`);
    expect(settings.json()).toMatchObject({ ok: true, messages_read: 1, last_error: null, folder });
    expect(settings.body).not.toContain(imap.password);
  });

  it('tampered: refused with Error de Firma and its reason, answered with code 2; nothing stored', async () => {
    const { issuer, rut, api, folder } = await tenantWithMailbox();
    const envelope = supplier.envelope(rut, [supplier.dte(rut, 22)]);
    const total = /<MntTotal>(\d+)<\/MntTotal>/.exec(envelope.toString('latin1'))![1]!;
    const tampered = replaceOnce(
      envelope,
      `<MntTotal>${total}</MntTotal>`,
      `<MntTotal>${Number(total) - 1}</MntTotal>`,
    );
    await deliver(folder, rut, [{ filename: 'envio.xml', content: tampered }]);
    await readNow(issuer.id);
    expect((await api.get(`/api/${rut}/recibidos`)).json().total).toBe(0);
    const [row] = await envelopesOf(issuer.id);
    expect(row).toMatchObject({ estadoRecepEnv: 2, reason: expect.stringContaining('firma del SetDTE no verifica') });
    await sendAllEmails();
    const mail = smtp.messages.find((m) => m.attachments.some((a) => a.filename?.includes(`_${row!.number}.xml`)));
    expect(mail!.attachments[0]!.content.toString('latin1')).toContain('<EstadoRecepEnv>2</EstadoRecepEnv>');
  });

  it('zipped, as text/plain with an upper-case .XML inside: received', async () => {
    const { issuer, rut, folder } = await tenantWithMailbox();
    const envelope = supplier.envelope(rut, [supplier.dte(rut, 23)]);
    const archive = zip([
      { name: 'LEEME.txt', bytes: Buffer.from('hola') },
      { name: 'ENVIO_DTE_23.XML', bytes: envelope },
    ]);
    await deliver(folder, rut, [{ filename: 'facturas.ZIP', content: archive, contentType: 'text/plain' }]);
    await readNow(issuer.id);
    const rows = await envelopesOf(issuer.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ estadoRecepEnv: 0, fileName: 'ENVIO_DTE_23.XML' });
  });
});

describe("the simulator's control endpoint", () => {
  it('POST /sim/supplier-dte e-mails a factura into the mailbox (and a tampered one, refused)', async () => {
    const { issuer, rut, api, folder } = await tenantWithMailbox();
    const send = (extra: Record<string, unknown>) =>
      fetch(`${sim.url}/sim/supplier-dte`, {
        method: 'POST',
        body: JSON.stringify({ to_rut: rut, mailbox: target(folder), ...extra }),
      });
    const sent = await send({ folio: 71 });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ uid: 1, folio: 71 });
    expect((await send({ folio: 72, tamper: true })).status).toBe(200);
    await readNow(issuer.id);
    const list = (await api.get(`/api/${rut}/recibidos`)).json();
    expect(list.data.map((d: { folio: number }) => d.folio)).toEqual([71]);
    expect((await envelopesOf(issuer.id)).map((e) => e.estadoRecepEnv)).toEqual([0, 2]);
  });
});

describe('exactly once', () => {
  it('a read that died after receiving, before recording and flagging: the next read receives nothing twice and loses nothing', async () => {
    const { issuer, rut, folder } = await tenantWithMailbox();
    for (const folio of [31, 32]) {
      await deliver(folder, rut, [
        { filename: `f${folio}.xml`, content: supplier.envelope(rut, [supplier.dte(rut, folio)]) },
      ]);
    }
    await readNow(issuer.id);
    expect(await envelopesOf(issuer.id)).toHaveLength(2);
    // Undo everything after the envelopes' transactions: the message rows, the mark, the flags.
    await t.db.prisma.receivedMailboxMessage.deleteMany({ where: { issuerId: issuer.id } });
    await t.db.prisma.receivedMailbox.update({ where: { issuerId: issuer.id }, data: { lastUid: 0 } });
    await withImap(async (c) => {
      await c.mailboxOpen(folder);
      await c.messageFlagsRemove('1:*', ['\\Seen', PROCESSED_KEYWORD]);
    });
    await deliver(folder, rut, [{ filename: 'f33.xml', content: supplier.envelope(rut, [supplier.dte(rut, 33)]) }]);
    await readNow(issuer.id);
    const rows = await envelopesOf(issuer.id);
    expect(rows.map((r) => r.estadoRecepEnv)).toEqual([0, 0, 0]);
    expect(await t.db.prisma.receivedMailboxMessage.count({ where: { issuerId: issuer.id } })).toBe(3);
    const mailbox = await t.db.prisma.receivedMailbox.findUniqueOrThrow({ where: { issuerId: issuer.id } });
    expect(mailbox.lastUid).toBe(3n);
  });

  it('two instances reading one mailbox at once: each message once', async () => {
    const second = await buildTestApp({
      shareDatabaseOf: t,
      env: { TIMBRE_EXTRA_CAF_KEYS: supplier.siiPublicKeyPem, MAILBOX_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES) },
    });
    const { issuer, rut, folder } = await tenantWithMailbox();
    for (let folio = 41; folio <= 45; folio++) {
      await deliver(folder, rut, [
        { filename: `f${folio}.xml`, content: supplier.envelope(rut, [supplier.dte(rut, folio)]) },
      ]);
    }
    await t.db.prisma.receivedMailbox.update({ where: { issuerId: issuer.id }, data: { nextRunAt: new Date(0) } });
    await Promise.all([readDueMailboxes(t.ctx), readDueMailboxes(second.ctx), readDueMailboxes(t.ctx)]);
    let mailbox = await t.db.prisma.receivedMailbox.findUniqueOrThrow({ where: { issuerId: issuer.id } });
    expect(mailbox.lastUid).toBe(5n);
    expect((await envelopesOf(issuer.id)).map((r) => r.estadoRecepEnv)).toEqual([0, 0, 0, 0, 0]);

    // Past the lease: both read at once as if each held it (a lease that expired under a slow
    // reader); the attachments' unique keys are the net.
    for (let folio = 46; folio <= 48; folio++) {
      await deliver(folder, rut, [
        { filename: `f${folio}.xml`, content: supplier.envelope(rut, [supplier.dte(rut, folio)]) },
      ]);
    }
    const lease = new Date(Date.now() + 60_000);
    await t.db.prisma.receivedMailbox.update({ where: { issuerId: issuer.id }, data: { leaseUntil: lease } });
    await Promise.all([readMailbox(t.ctx, mailbox.id, lease), readMailbox(second.ctx, mailbox.id, lease)]);
    mailbox = await t.db.prisma.receivedMailbox.findUniqueOrThrow({ where: { issuerId: issuer.id } });
    expect(mailbox.lastUid).toBe(8n);
    const rows = await envelopesOf(issuer.id);
    expect(rows.map((r) => r.estadoRecepEnv)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await t.db.prisma.receivedDocument.count({ where: { issuerId: issuer.id } })).toBe(8);
    expect(await t.db.prisma.receivedMailboxMessage.count({ where: { issuerId: issuer.id } })).toBe(8);
  });
});

describe('poison and outages', () => {
  it('malformed MIME, a message past the size bound, a zip bomb, no DTE: recorded, and the mailbox moves on', async () => {
    const { issuer, rut, api, folder } = await tenantWithMailbox();
    const raw = (text: string) => appendToMailbox(target(folder), Buffer.from(text.replace(/\n/g, '\r\n')));
    await raw(
      'From: x@y.test\nSubject: roto\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: application/xml\nContent-Transfer-Encoding: base64\nContent-Disposition: attachment; filename="a.xml"\n\n%%%%no base64%%%%\n',
    );
    await deliver(folder, rut, [{ filename: 'grande.xml', content: Buffer.alloc(MAX_MESSAGE_BYTES, 'A') }]);
    const bomb = zip([
      {
        name: 'bomba.xml',
        bytes: Buffer.concat([Buffer.from('<EnvioDTE>'), Buffer.alloc(60_000_000)]),
        declaredSize: 100,
      },
    ]);
    await deliver(folder, rut, [{ filename: 'bomba.zip', content: bomb }]);
    await deliver(folder, rut, [
      { filename: 'nota.pdf', content: Buffer.from('%PDF-1.4'), contentType: 'application/pdf' },
    ]);
    await deliver(folder, rut, [{ filename: 'ok.xml', content: supplier.envelope(rut, [supplier.dte(rut, 51)]) }]);
    await readNow(issuer.id);

    const messages = await t.db.prisma.receivedMailboxMessage.findMany({
      where: { issuerId: issuer.id },
      orderBy: { uid: 'asc' },
    });
    expect(messages.map((m) => m.outcome)).toEqual(['skipped', 'refused', 'refused', 'skipped', 'received']);
    expect(messages[1]!.reason).toContain('el máximo es');
    expect(messages[2]!.reason).toContain('descomprimido excede');
    expect((await api.get(`/api/${rut}/recibidos`)).json().total).toBe(1);
    const mailbox = await t.db.prisma.receivedMailbox.findUniqueOrThrow({ where: { issuerId: issuer.id } });
    expect(mailbox).toMatchObject({ lastUid: 5n, lastError: null });
  });

  it('a mailbox that is down: the error recorded, retried later, then read when it is up', async () => {
    const { issuer, rut, api, folder } = await tenantWithMailbox();
    await deliver(folder, rut, [{ filename: 'f61.xml', content: supplier.envelope(rut, [supplier.dte(rut, 61)]) }]);
    await imap.stop();
    try {
      const before = Date.now();
      await readNow(issuer.id);
      const down = await t.db.prisma.receivedMailbox.findUniqueOrThrow({ where: { issuerId: issuer.id } });
      expect(down.lastError).toMatch(/ECONNREFUSED|connect/i);
      expect(down.failures).toBe(1);
      expect(down.leaseUntil).toBeNull();
      expect(down.nextRunAt.getTime()).toBeGreaterThan(before);
      const probe = await api.inject({ method: 'POST', url: `/api/${rut}/buzon/probar` });
      expect(probe.json()).toMatchObject({
        ok: true,
        connected: false,
        message: expect.stringContaining('No se pudo conectar'),
      });
    } finally {
      await imap.start();
    }
    await readNow(issuer.id);
    const up = await t.db.prisma.receivedMailbox.findUniqueOrThrow({ where: { issuerId: issuer.id } });
    expect(up).toMatchObject({ lastError: null, failures: 0, lastUid: 1n });
    expect(up.lastOkAt).not.toBeNull();
    expect((await api.get(`/api/${rut}/recibidos`)).json().total).toBe(1);
  });
});

describe('the settings', () => {
  it('through the dashboard: saved (password sealed, never shown), "Probar conexión" answers in Spanish', async () => {
    const { issuer, rut, api } = await createTestTenant(t);
    const session = await dashboardSession(t, issuer);
    const post = (url: string, form: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: session.headers,
        payload: new URLSearchParams({ _csrf: session.csrf, ...form }).toString(),
      });
    const empty = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${rut}/buzon`,
      headers: { cookie: session.cookie },
    });
    expect(empty.body).toContain('Sin buzón configurado');
    const noPassword = await post(`/dashboard/${rut}/buzon`, { host: imap.host, user: imap.user, tls: 'none' });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.body).toContain('Un buzón nuevo necesita su contraseña.');
    const saved = await post(`/dashboard/${rut}/buzon`, {
      host: imap.host,
      port: String(imap.port),
      tls: 'none',
      user: imap.user,
      password: imap.password,
      folder: 'INBOX',
      answer: '1',
    });
    expect(saved.statusCode).toBe(303);
    const row = await t.db.prisma.receivedMailbox.findUniqueOrThrow({ where: { issuerId: issuer.id } });
    expect(Buffer.from(row.passwordEncrypted).toString('latin1')).not.toContain(imap.password);
    const shown = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${rut}/buzon`,
      headers: { cookie: session.cookie },
    });
    expect(shown.body).toContain(imap.user);
    expect(shown.body).not.toContain(imap.password);
    const probe = await post(`/dashboard/${rut}/buzon/probar`, {});
    expect(probe.body).toContain('Conexión correcta: la carpeta «INBOX»');
    // A wrong password: said so, in Spanish; the API reports the same.
    await post(`/dashboard/${rut}/buzon`, {
      host: imap.host,
      port: String(imap.port),
      tls: 'none',
      user: imap.user,
      password: 'otra',
    });
    expect((await post(`/dashboard/${rut}/buzon/probar`, {})).body).toContain('Autenticación rechazada');
    expect((await api.inject({ method: 'POST', url: `/api/${rut}/buzon/probar` })).json()).toMatchObject({
      connected: false,
    });
    expect(t.logs.join('')).not.toContain(imap.password);
  });

  it('through the API: owner only; GET never returns the password; DELETE removes', async () => {
    const { rut, api, issuer } = await createTestTenant(t);
    expect((await api.get(`/api/${rut}/buzon`)).json()).toMatchObject({ ok: false, code: 'MAILBOX_NOT_FOUND' });
    const put = (client: typeof api, payload: Record<string, unknown>) =>
      client.inject({ method: 'PUT', url: `/api/${rut}/buzon`, payload });
    expect((await put(api, { host: 'imap.example.cl', user: 'dte@x.cl' })).json()).toMatchObject({
      code: 'MAILBOX_PASSWORD_REQUIRED',
    });
    const set = await put(api, { host: 'imap.example.cl', user: 'dte@x.cl', password: 'clave-secreta' });
    expect(set.json()).toMatchObject({ ok: true, port: 993, tls: 'implicit', folder: 'INBOX', answer_by_email: true });
    expect(set.body).not.toContain('clave-secreta');
    const editor = t.as(await createTestKey(t.ctx, rut, 'editor'));
    expect((await editor.get(`/api/${rut}/buzon`)).statusCode).toBe(403);
    expect((await put(editor, { host: 'evil.example', user: 'x', password: 'y' })).statusCode).toBe(403);
    const other = await createTestTenant(t);
    expect((await other.api.get(`/api/${rut}/buzon`)).statusCode).toBe(403);
    expect((await api.inject({ method: 'DELETE', url: `/api/${rut}/buzon` })).json()).toEqual({ ok: true });
    expect(await t.db.prisma.receivedMailbox.count({ where: { issuerId: issuer.id } })).toBe(0);
  });
});
