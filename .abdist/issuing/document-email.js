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
import nodemailer from 'nodemailer';
import { fromDbDate } from '../dte/calendar-date.js';
import { santiagoTimestamp } from '../dte/chile-time.js';
import { buildEnvelope, envelopeKindOf } from '../dte/envelope.js';
import { DTE_NAMES } from '../dte/model.js';
import { AppError } from '../errors.js';
import { isAccepted } from './document-state.js';
import { documentContent, signedXmlOf } from './document-content.js';
import { findIssuedDocument } from './document-status.js';
import { documentFile } from './document-files.js';
import { emailViewOf } from '../events/email-view.js';
import { signingCertificate } from './key-material.js';
import { caratulaOf } from './submissions.js';
import { emailEnabled } from './email-queue.js';
import { recordEvent } from '../events/record.js';
export { emailEnabled } from './email-queue.js';
const LEASE_MS = 2 * 60_000;
/**
 * `POST /api/{rut}/emision_email`: e-mail the document again, to `to` or to the receiver's
 * address of the request. A live document not yet accepted by the SII is sent on acceptance.
 */
export async function sendDocumentEmail(ctx, issuer, input) {
    if (!emailEnabled(ctx))
        throw new AppError('EMAIL_DISABLED');
    const document = await findIssuedDocument(ctx, issuer, input.type, input.folio);
    const receiverEmail = input.to?.length
        ? undefined
        : (await documentContent(ctx, document)).request.receiver?.email;
    const to = input.to?.length ? [...new Set(input.to)] : receiverEmail ? [receiverEmail] : [];
    if (to.length === 0)
        throw new AppError('EMAIL_NO_RECIPIENT');
    if (document.estadoSii === 'rechazado') {
        throw new AppError('EMAIL_DOCUMENT_REJECTED');
    }
    const waiting = document.environment === 'live' && !isAccepted(document.estadoSii) && document.estadoSii !== 'anulado';
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
/** Every e-mail of one document, newest first (the dashboard's document page). */
export async function emailsOfDocument(ctx, issuer, documentId) {
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
function transport(ctx) {
    ctx.caches.mailTransport ??= nodemailer.createTransport(ctx.config.SMTP_URL);
    return ctx.caches.mailTransport;
}
/** Takes up to `limit` due e-mails (lease), so no two workers send the same one. */
async function claimDue(ctx, limit) {
    const now = ctx.clock();
    const ids = await ctx.db.prisma.$queryRaw `
    UPDATE email_messages SET state = 'sending', lease_until = ${new Date(now.getTime() + LEASE_MS)},
           attempts = attempts + 1, updated_at = ${now}
     WHERE id IN (
       SELECT id FROM email_messages
        WHERE (state = 'pending' AND next_run_at <= ${now}) OR (state = 'sending' AND lease_until < ${now})
        ORDER BY next_run_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
     RETURNING id::text`;
    if (ids.length === 0)
        return [];
    return ctx.db.prisma.emailMessage.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
}
/** Sends every due e-mail (one batch); returns how many were attempted. */
export async function sendDueEmails(ctx, readers = [], limit = 10) {
    if (!emailEnabled(ctx))
        return 0;
    const due = await claimDue(ctx, limit);
    await Promise.all(due.map((m) => sendOne(ctx, m, readers)));
    return due.length;
}
/** The message of one document: subject, text, the PDF and the intercambio envelope. */
async function composeEmail(ctx, issuer, document, to) {
    const sandbox = document.environment === 'sandbox';
    const pdf = await documentFile(ctx, document, issuer, 'pdf', 'letter');
    const { cert } = await signingCertificate(ctx, issuer, !sandbox);
    // Intercambio: the same signed DTE, in an envelope addressed to the receiver (RutReceptor).
    const envelope = buildEnvelope(envelopeKindOf(document.type), [{ type: document.type, signedXml: await signedXmlOf(ctx, document) }], {
        ...caratulaOf(issuer, cert.holderRut ?? issuer.rut, santiagoTimestamp(ctx.clock())),
        receiverRut: document.receiverRut,
    }, cert);
    const name = DTE_NAMES[document.type] ?? `DTE ${document.type}`;
    const total = new Intl.NumberFormat('es-CL').format(Number(document.total));
    const subject = `${sandbox ? '[SANDBOX] ' : ''}${name} N° ${document.folio} de ${issuer.name}`;
    const text = `${issuer.name} (RUT ${issuer.rut}) le ha emitido ${name.toLowerCase()} N° ${document.folio}, ` +
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
async function documentEmail(ctx, m) {
    if (!m.documentId)
        throw new Error(`e-mail ${m.id} carries no document and no reader took it`);
    const document = await ctx.db.prisma.document.findUniqueOrThrow({ where: { id: m.documentId } });
    const issuer = await ctx.db.prisma.issuer.findUniqueOrThrow({ where: { id: m.issuerId } });
    return {
        about: { type: document.type, folio: document.folio, to: m.to, issuer: issuer.rut },
        compose: () => composeEmail(ctx, issuer, document, m.to),
    };
}
async function outgoing(ctx, m, readers) {
    for (const read of readers) {
        const found = await read(ctx, m);
        if (found)
            return found;
    }
    return documentEmail(ctx, m);
}
async function sendOne(ctx, m, readers) {
    let messageId = null;
    let error = null;
    let permanent = false;
    let message = null;
    try {
        message = await outgoing(ctx, m, readers);
        const info = await transport(ctx).sendMail(await message.compose());
        messageId = info.messageId ?? null;
    }
    catch (err) {
        const e = err;
        permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
        error = e.responseCode ? `SMTP ${e.responseCode}: ${e.message}` : e.message;
        ctx.log.warn({ email: m.id, attempt: m.attempts, reason: error }, 'e-mail failed');
    }
    const now = ctx.clock();
    const about = message?.about ?? { to: m.to };
    await ctx.db.prisma.$transaction(async (tx) => {
        if (!error) {
            await tx.emailMessage.update({
                where: { id: m.id },
                data: { state: 'sent', sentAt: now, leaseUntil: null, lastError: null, messageId },
            });
            await recordEvent(tx, {
                issuerId: m.issuerId,
                type: 'email.sent',
                documentId: m.documentId,
                data: { ...about, message_id: messageId, at: now.toISOString() },
            }, now);
            return;
        }
        const giveUp = permanent || m.attempts >= ctx.config.EMAIL_MAX_ATTEMPTS;
        const next = new Date(now.getTime() + ctx.config.EMAIL_RETRY_BASE_MS * 2 ** Math.max(0, m.attempts - 1));
        await tx.emailMessage.update({
            where: { id: m.id },
            data: { state: giveUp ? 'failed' : 'pending', nextRunAt: next, leaseUntil: null, lastError: error },
        });
        if (giveUp) {
            await recordEvent(tx, {
                issuerId: m.issuerId,
                type: 'email.failed',
                documentId: m.documentId,
                data: { ...about, error, attempts: m.attempts },
            }, now);
        }
    });
    ctx.jobs?.nudge();
}
