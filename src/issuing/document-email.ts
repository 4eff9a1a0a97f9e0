/**
 * E-mail of a document to its receiver (docs/design.md §9): the PDF plus the signed DTE in an
 * intercambio envelope (EnvioDTE / EnvioBOLETA whose Carátula names the receiver as
 * RutReceptor, signed by the issuer's certificate), sent over SMTP_URL with nodemailer.
 *
 * An `email_messages` row is written with the document (sandbox: due at once; live: waiting
 * until the SII accepts, which document-state.ts makes due; without SMTP_URL: `disabled`). The
 * jobs send due rows (src/jobs.ts); an SMTP failure is retried with doubling delays
 * (EMAIL_RETRY_BASE_MS) up to EMAIL_MAX_ATTEMPTS, a permanent refusal (5xx) is not. `email.sent`
 * and `email.failed` are written in the transaction that records the outcome.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { AppContext } from '../context.ts';
import { fromDbDate } from '../dte/calendar-date.ts';
import { santiagoTimestamp } from '../dte/chile-time.ts';
import { buildEnvelope, envelopeKindOf } from '../dte/envelope.ts';
import { DTE_NAMES, type DteType } from '../dte/model.ts';
import { AppError } from '../errors.ts';
import type { Document, EmailMessage, Issuer, Prisma } from '../generated/prisma/client.ts';
import { isAccepted } from './document-state.ts';
import { findIssuedDocument } from './document-status.ts';
import { documentFile } from './document-files.ts';
import { type EmailView, emailViewOf } from './email-view.ts';
import { signingCertificate } from './key-material.ts';
import { caratulaOf } from './submissions.ts';
import { emailEnabled } from './email-queue.ts';
import { recordEvent } from '../events/record.ts';

export { emailEnabled } from './email-queue.ts';

const LEASE_MS = 2 * 60_000;

/**
 * `POST /api/{rut}/emision_email`: e-mail the document again, to `to` or to the receiver's
 * address of the request. A live document not yet accepted by the SII is sent on acceptance.
 */
export async function sendDocumentEmail(
  ctx: AppContext,
  issuer: Issuer,
  input: { type: number; folio: number; to?: string[] },
): Promise<{ document: Document; email: EmailView }> {
  if (!emailEnabled(ctx)) throw new AppError('EMAIL_DISABLED');
  const document = await findIssuedDocument(ctx, issuer, input.type, input.folio);
  const receiverEmail = (document.request as { receiver?: { email?: string } }).receiver?.email;
  const to = input.to?.length ? [...new Set(input.to)] : receiverEmail ? [receiverEmail] : [];
  if (to.length === 0) throw new AppError('EMAIL_NO_RECIPIENT');
  if (document.estadoSii === 'rechazado') {
    throw new AppError('EMAIL_DOCUMENT_REJECTED');
  }
  const waiting =
    document.environment === 'live' && !isAccepted(document.estadoSii) && document.estadoSii !== 'anulado';
  const row = await ctx.db.prisma.emailMessage.create({
    data: {
      issuerId: issuer.id,
      documentId: document.id,
      to,
      state: waiting ? 'waiting' : 'pending',
      nextRunAt: ctx.clock(),
    },
  });
  ctx.jobs?.nudge();
  return { document, email: emailViewOf(row) };
}

export interface DocumentEmailView extends EmailView {
  id: string;
  /** Finer than `status`: `waiting` (a live document not yet accepted) is `pending` there. */
  state: EmailMessage['state'];
  attempts: number;
  error: string | null;
  created_at: string;
}

/** Every e-mail of one document, newest first (the dashboard's document page). */
export async function emailsOfDocument(
  ctx: AppContext,
  issuer: Issuer,
  documentId: string,
): Promise<DocumentEmailView[]> {
  const rows = await ctx.db.prisma.emailMessage.findMany({
    where: { issuerId: issuer.id, documentId },
    orderBy: { createdAt: 'desc' },
  });
  return rows.map((m) => ({
    ...emailViewOf(m),
    id: m.id,
    state: m.state,
    attempts: m.attempts,
    error: m.lastError,
    created_at: m.createdAt.toISOString(),
  }));
}

function transport(ctx: AppContext): Transporter {
  ctx.caches.mailTransport ??= nodemailer.createTransport(ctx.config.SMTP_URL as string);
  return ctx.caches.mailTransport;
}

/** Takes up to `limit` due e-mails (lease), so no two workers send the same one. */
async function claimDue(ctx: AppContext, limit: number): Promise<EmailMessage[]> {
  const now = ctx.clock();
  const ids = await ctx.db.prisma.$queryRaw<{ id: string }[]>`
    UPDATE email_messages SET state = 'sending', lease_until = ${new Date(now.getTime() + LEASE_MS)},
           attempts = attempts + 1, updated_at = ${now}
     WHERE id IN (
       SELECT id FROM email_messages
        WHERE (state = 'pending' AND next_run_at <= ${now}) OR (state = 'sending' AND lease_until < ${now})
        ORDER BY next_run_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
     RETURNING id::text`;
  if (ids.length === 0) return [];
  return ctx.db.prisma.emailMessage.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
}

/** Sends every due e-mail (one batch); returns how many were attempted. */
export async function sendDueEmails(ctx: AppContext, limit = 10): Promise<number> {
  if (!emailEnabled(ctx)) return 0;
  const due = await claimDue(ctx, limit);
  await Promise.all(due.map((m) => sendOne(ctx, m)));
  return due.length;
}

/** The message of one document: subject, text, the PDF and the intercambio envelope. */
async function composeEmail(ctx: AppContext, issuer: Issuer, document: Document, to: string[]) {
  const sandbox = document.environment === 'sandbox';
  const pdf = await documentFile(ctx, document, issuer, 'pdf', 'letter');
  const { cert } = await signingCertificate(ctx, issuer, !sandbox);
  // Intercambio: the same signed DTE, in an envelope addressed to the receiver (RutReceptor).
  const envelope = buildEnvelope(
    envelopeKindOf(document.type),
    [{ type: document.type, signedXml: document.signedXml }],
    {
      ...caratulaOf(issuer, cert.holderRut ?? issuer.rut, santiagoTimestamp(ctx.clock())),
      receiverRut: document.receiverRut,
    },
    cert,
  );
  const name = DTE_NAMES[document.type as DteType] ?? `DTE ${document.type}`;
  const total = new Intl.NumberFormat('es-CL').format(Number(document.total));
  const subject = `${sandbox ? '[SANDBOX] ' : ''}${name} N° ${document.folio} de ${issuer.name}`;
  const text =
    `${issuer.name} (RUT ${issuer.rut}) le ha emitido ${name.toLowerCase()} N° ${document.folio}, ` +
    `de fecha ${fromDbDate(document.date)}, por un total de $ ${total}.\n\n` +
    'Se adjuntan el documento en PDF y su XML firmado (sobre de intercambio EnvioDTE).\n' +
    (sandbox ? '\nDocumento de prueba (SANDBOX): sin validez tributaria.\n' : '');
  const base = `${issuer.rut}_T${document.type}_F${document.folio}`;
  return {
    from: ctx.config.MAIL_FROM,
    to,
    subject,
    text,
    attachments: [
      { filename: pdf.filename, content: pdf.body, contentType: 'application/pdf' },
      {
        filename: `${envelopeKindOf(document.type) === 'boleta' ? 'EnvioBOLETA' : 'EnvioDTE'}_${base}.xml`,
        content: envelope,
        contentType: 'application/xml; charset=ISO-8859-1',
      },
    ],
  };
}

async function sendOne(ctx: AppContext, m: EmailMessage): Promise<void> {
  if (!m.documentId) return sendAnswer(ctx, m);
  const documentId = m.documentId;
  let messageId: string | null = null;
  let error: string | null = null;
  let permanent = false;
  let issuer: Issuer | null = null;
  try {
    const document = await ctx.db.prisma.document.findUniqueOrThrow({ where: { id: documentId } });
    issuer = await ctx.db.prisma.issuer.findUniqueOrThrow({ where: { id: m.issuerId } });
    const info = await transport(ctx).sendMail(await composeEmail(ctx, issuer, document, m.to));
    messageId = info.messageId ?? null;
  } catch (err) {
    ({ error, permanent } = smtpFailure(err));
    ctx.log.warn({ email: m.id, attempt: m.attempts, reason: error }, 'e-mail to the receiver failed');
  }
  const now = ctx.clock();
  const rut = issuer?.rut ?? (await ctx.db.prisma.issuer.findUniqueOrThrow({ where: { id: m.issuerId } })).rut;
  const document = await ctx.db.prisma.document.findUniqueOrThrow({
    where: { id: documentId },
    select: { type: true, folio: true },
  });
  const about = { type: document.type, folio: document.folio, to: m.to, issuer: rut };
  await ctx.db.prisma.$transaction(async (tx) => {
    const giveUp = await recordOutcome(ctx, tx, m, { error, permanent, messageId }, now);
    if (!error) {
      await recordEvent(
        tx,
        {
          issuerId: m.issuerId,
          type: 'email.sent',
          documentId,
          data: { ...about, message_id: messageId, at: now.toISOString() },
        },
        now,
      );
    } else if (giveUp) {
      await recordEvent(
        tx,
        {
          issuerId: m.issuerId,
          type: 'email.failed',
          documentId,
          data: { ...about, error, attempts: m.attempts },
        },
        now,
      );
    }
  });
  ctx.jobs?.nudge();
}

/**
 * The answer to a received envelope (its signed RespuestaDTE, src/receiving/answer-email.ts):
 * the same queue, retries and lease as a document's e-mail, without the document's events.
 */
async function sendAnswer(ctx: AppContext, m: EmailMessage): Promise<void> {
  let messageId: string | null = null;
  let error: string | null = null;
  let permanent = false;
  try {
    const info = await transport(ctx).sendMail(await composeAnswerEmail(ctx, m));
    messageId = info.messageId ?? null;
  } catch (err) {
    ({ error, permanent } = smtpFailure(err));
    ctx.log.warn({ email: m.id, attempt: m.attempts, reason: error }, 'e-mail of a reception answer failed');
  }
  const now = ctx.clock();
  await ctx.db.prisma.$transaction((tx) => recordOutcome(ctx, tx, m, { error, permanent, messageId }, now));
  ctx.jobs?.nudge();
}

function smtpFailure(err: unknown): { error: string; permanent: boolean } {
  const e = err as Error & { responseCode?: number };
  return {
    permanent: typeof e.responseCode === 'number' && e.responseCode >= 500,
    error: e.responseCode ? `SMTP ${e.responseCode}: ${e.message}` : e.message,
  };
}

/** Writes a send's outcome on its row; true when a failure is final (no retry). */
async function recordOutcome(
  ctx: AppContext,
  tx: Prisma.TransactionClient,
  m: EmailMessage,
  outcome: { error: string | null; permanent: boolean; messageId: string | null },
  now: Date,
): Promise<boolean> {
  if (!outcome.error) {
    await tx.emailMessage.update({
      where: { id: m.id },
      data: { state: 'sent', sentAt: now, leaseUntil: null, lastError: null, messageId: outcome.messageId },
    });
    return false;
  }
  const giveUp = outcome.permanent || m.attempts >= ctx.config.EMAIL_MAX_ATTEMPTS;
  const next = new Date(now.getTime() + ctx.config.EMAIL_RETRY_BASE_MS * 2 ** Math.max(0, m.attempts - 1));
  await tx.emailMessage.update({
    where: { id: m.id },
    data: { state: giveUp ? 'failed' : 'pending', nextRunAt: next, leaseUntil: null, lastError: outcome.error },
  });
  return giveUp;
}

/**
 * The answer to a received envelope (queued by src/receiving/answer-email.ts): a short Spanish
 * text and the signed RespuestaDTE exactly as stored.
 */
async function composeAnswerEmail(ctx: AppContext, m: EmailMessage) {
  const envelope = await ctx.db.prisma.receivedEnvelope.findUniqueOrThrow({
    where: { id: m.receivedEnvelopeId as string },
    include: { issuer: true },
  });
  if (!envelope.respuestaXml) throw new Error('the envelope has no answer to send');
  const { issuer } = envelope;
  const accepted = envelope.estadoRecepEnv === 0;
  const subject = `Respuesta de recepción de ${issuer.name} (${issuer.rut}): ${envelope.fileName}`;
  const text =
    `${issuer.name} (RUT ${issuer.rut}) ha recibido su envío ${envelope.fileName}.\n\n` +
    `Resultado: ${envelope.estadoRecepEnv} ${envelope.glosa}` +
    (accepted || !envelope.reason ? '' : ` (${envelope.reason})`) +
    '.\n\nSe adjunta la respuesta firmada (RespuestaDTE, RecepcionEnvio).\n';
  return {
    from: ctx.config.MAIL_FROM,
    to: m.to,
    subject,
    text,
    attachments: [
      {
        filename: `RespuestaDTE_${issuer.rut}_${envelope.number}.xml`,
        content: Buffer.from(envelope.respuestaXml),
        contentType: 'application/xml; charset=ISO-8859-1',
      },
    ],
  };
}
