import { isUniqueViolation } from '../db/database.js';
import { connectImap, imapErrorText } from './imap.js';
import { extractDteFiles } from './mail-attachments.js';
import { mailboxPassword } from './mailbox-settings.js';
import { receiveEnvelope } from './receive.js';
/** The keyword set on every message dealt with (RFC 3501 §2.3.2 keywords need PERMANENTFLAGS \*). */
export const PROCESSED_KEYWORD = '$TimbreProcessed';
/** How long a read holds its mailbox; renewed after every message. */
const LEASE_MS = 2 * 60_000;
/** The longest wait between two reads of a failing mailbox. */
const MAX_BACKOFF_MS = 60 * 60_000;
/** Messages taken per read, so one huge backlog does not hold a lease for hours. */
const MAX_MESSAGES_PER_READ = 200;
/** Takes up to `limit` due mailboxes (lease), so no two instances read the same one. */
async function claimDue(ctx, limit) {
    const now = ctx.clock();
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const rows = await ctx.db.prisma.$queryRaw `
    UPDATE received_mailboxes SET lease_until = ${leaseUntil}, updated_at = ${now}
     WHERE id IN (
       SELECT id FROM received_mailboxes
        WHERE next_run_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_run_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
     RETURNING id::text`;
    return rows.map((r) => ({ id: r.id, leaseUntil }));
}
/** Reads every due mailbox (up to `limit` at once); returns how many were read. */
export async function readDueMailboxes(ctx, limit = 4) {
    const due = await claimDue(ctx, limit);
    await Promise.all(due.map((d) => readMailbox(ctx, d.id, d.leaseUntil)));
    return due.length;
}
/** One read of one mailbox whose lease (`leaseUntil`) this caller holds. */
export async function readMailbox(ctx, mailboxId, leaseUntil) {
    const mailbox = await ctx.db.prisma.receivedMailbox.findUnique({
        where: { id: mailboxId },
        include: { issuer: true },
    });
    if (!mailbox)
        return { messages: 0, error: null };
    const lease = { until: leaseUntil };
    let client = null;
    let messages = 0;
    let error = null;
    try {
        client = await connectImap({ ...mailbox, password: mailboxPassword(ctx, mailbox) }, { maxMessageBytes: ctx.config.MAILBOX_MAX_MESSAGE_BYTES });
        messages = await readFolder(ctx, client, mailbox, mailbox.issuer, lease);
    }
    catch (err) {
        error = err instanceof LeaseLost ? null : imapErrorText(err);
        if (error)
            ctx.log.warn({ mailbox: mailboxId, issuer: mailbox.issuer.rut, reason: error }, 'mailbox read failed');
        if (err instanceof LeaseLost)
            return { messages, error: null };
    }
    finally {
        await client?.logout().catch(() => client?.close());
    }
    await finishRead(ctx, mailbox, lease.until, error);
    return { messages, error };
}
class LeaseLost extends Error {
}
async function finishRead(ctx, m, leaseUntil, error) {
    const now = ctx.clock();
    const pollMs = ctx.config.MAILBOX_POLL_SECONDS * 1000;
    const failures = error ? m.failures + 1 : 0;
    const delay = error ? Math.min(pollMs * 2 ** (failures - 1), Math.max(pollMs, MAX_BACKOFF_MS)) : pollMs;
    await ctx.db.prisma.receivedMailbox.updateMany({
        where: { id: m.id, leaseUntil },
        data: {
            leaseUntil: null,
            nextRunAt: new Date(now.getTime() + delay),
            failures,
            ...(error ? { lastError: error, lastErrorAt: now } : { lastError: null, lastOkAt: now }),
        },
    });
}
/** Renews the lease; a lease another instance took (this one was too slow) ends the read. */
async function renewLease(ctx, mailboxId, lease) {
    const until = new Date(ctx.clock().getTime() + LEASE_MS);
    const { count } = await ctx.db.prisma.receivedMailbox.updateMany({
        where: { id: mailboxId, leaseUntil: lease.until },
        data: { leaseUntil: until },
    });
    if (count === 0)
        throw new LeaseLost();
    lease.until = until;
}
async function readFolder(ctx, client, mailbox, issuer, lease) {
    const lock = await client.getMailboxLock(mailbox.folder);
    try {
        const opened = client.mailbox;
        if (!opened)
            throw new Error(`no se pudo abrir la carpeta ${mailbox.folder}`);
        const uidValidity = BigInt(opened.uidValidity);
        let lastUid = mailbox.lastUid;
        if (mailbox.uidValidity !== uidValidity) {
            // A new UIDVALIDITY: the UIDs the mark counted are gone (RFC 3501 §2.3.1.1).
            if (mailbox.uidValidity !== null) {
                ctx.log.warn({ mailbox: mailbox.id, uidValidity: String(uidValidity) }, 'mailbox UIDVALIDITY changed: read again');
            }
            lastUid = 0n;
            await ctx.db.prisma.receivedMailbox.update({ where: { id: mailbox.id }, data: { uidValidity, lastUid } });
        }
        if (opened.exists === 0)
            return 0;
        const found = await client.search({ uid: `${lastUid + 1n}:*` }, { uid: true });
        const uids = (found || [])
            .map(BigInt)
            .filter((u) => u > lastUid)
            .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
            .slice(0, MAX_MESSAGES_PER_READ);
        let count = 0;
        for (const uid of uids) {
            await readMessage(ctx, client, mailbox, issuer, uidValidity, uid);
            await ctx.db.prisma.receivedMailbox.updateMany({
                where: { id: mailbox.id, lastUid: { lt: uid } },
                data: { lastUid: uid },
            });
            count++;
            await renewLease(ctx, mailbox.id, lease);
        }
        return count;
    }
    finally {
        lock.release();
    }
}
async function readMessage(ctx, client, mailbox, issuer, uidValidity, uid) {
    const key = { mailboxId: mailbox.id, uidValidity, uid };
    const recorded = await ctx.db.prisma.receivedMailboxMessage.findUnique({
        where: { mailboxId_uidValidity_uid: key },
        select: { id: true },
    });
    const range = String(uid);
    if (recorded)
        return markProcessed(client, range);
    const meta = await client.fetchOne(range, { flags: true, size: true, envelope: true }, { uid: true });
    if (!meta)
        return; // expunged meanwhile
    if (meta.flags?.has(PROCESSED_KEYWORD))
        return;
    const base = {
        issuerId: issuer.id,
        ...key,
        messageId: meta.envelope?.messageId ?? null,
        fromAddress: meta.envelope?.from?.[0]?.address ?? null,
        replyTo: meta.envelope?.replyTo?.[0]?.address ?? null,
        subject: meta.envelope?.subject?.slice(0, 500) ?? null,
    };
    const max = ctx.config.MAILBOX_MAX_MESSAGE_BYTES;
    if ((meta.size ?? 0) > max) {
        await record(ctx, base, 'refused', `el mensaje pesa ${meta.size} bytes; el máximo es ${max}: no se leyó`);
        return markProcessed(client, range);
    }
    const full = await client.fetchOne(range, { source: true }, { uid: true });
    const source = full ? full.source : undefined;
    if (!source)
        return;
    let parsed;
    try {
        // Loaded on first use, like imapflow: ~30 MB of RSS an instance without mailboxes never needs.
        const { simpleParser: parse } = await import('mailparser');
        parsed = await parse(source, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
    }
    catch (err) {
        await record(ctx, base, 'refused', `MIME ilegible: ${err.message.slice(0, 300)}`);
        return markProcessed(client, range);
    }
    const { files, refused } = extractDteFiles(parsed.attachments);
    const replyAddress = base.replyTo ?? base.fromAddress;
    const done = new Set((await ctx.db.prisma.receivedMailboxPart.findMany({
        where: key,
        select: { part: true },
    })).map((p) => p.part));
    for (const [part, file] of files.entries()) {
        if (done.has(part))
            continue;
        try {
            await receiveEnvelope(ctx, issuer, {
                bytes: file.bytes,
                fileName: file.name,
                source: 'mailbox',
                replyAddress,
                alongside: async (tx, envelope) => {
                    await tx.receivedMailboxPart.create({
                        data: {
                            issuerId: issuer.id,
                            ...key,
                            part,
                            envelopeId: envelope.id,
                            fromAddress: base.fromAddress,
                            replyTo: base.replyTo,
                            messageId: base.messageId,
                        },
                    });
                },
            });
        }
        catch (err) {
            // Another reader recorded this attachment first: it is received, once.
            if (!isUniqueViolation(err))
                throw err;
        }
    }
    const outcome = files.length > 0 ? 'received' : refused.length > 0 ? 'refused' : 'skipped';
    const reason = refused.length > 0
        ? `adjuntos no leídos: ${refused.join('; ')}`.slice(0, 1000)
        : files.length === 0
            ? 'sin EnvioDTE ni DTE adjunto'
            : null;
    await record(ctx, base, outcome, reason);
    return markProcessed(client, range);
}
async function record(ctx, data, outcome, reason) {
    try {
        await ctx.db.prisma.receivedMailboxMessage.create({ data: { ...data, outcome, reason, createdAt: ctx.clock() } });
    }
    catch (err) {
        if (!isUniqueViolation(err))
            throw err;
    }
}
/** `\Seen` and the keyword, so a person (and a new reader) sees it was dealt with. */
async function markProcessed(client, range) {
    await client.messageFlagsAdd(range, ['\\Seen', PROCESSED_KEYWORD], { uid: true });
}
