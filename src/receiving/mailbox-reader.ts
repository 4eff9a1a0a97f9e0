/**
 * Reading the intercambio mailboxes (README "Received documents"). Each `received_mailboxes`
 * row is a job in src/jobs.ts's model: due at `next_run_at`, read under a lease by one instance
 * at a time, then due again MAILBOX_POLL_SECONDS later (or later still after failures: the
 * delay doubles per consecutive failure, up to an hour, and the error is recorded on the row).
 *
 * A read opens the folder, checks UIDVALIDITY (a new value means the UIDs were renumbered: the
 * high-water mark starts over) and takes the messages above the mark in UID order. Each message:
 *
 * - larger than MAILBOX_MAX_MESSAGE_BYTES, or unreadable: recorded `refused` with the reason,
 *   unread; a message with no EnvioDTE or DTE attached: recorded `skipped`;
 * - else every such attachment (zips opened, mail-attachments.ts) goes through receive.ts as an
 *   upload does (`source: 'mailbox'`), with a `received_mailbox_parts` row written in the
 *   transaction that records its envelope: its unique key (mailbox, UIDVALIDITY, UID, part)
 *   makes each attachment received once, whatever crashes or instances come between;
 * - then the message row (its Message-ID, From, Reply-To and outcome), the flags `\Seen` and
 *   `$TimbreProcessed` on the server, and the mark moved past it.
 *
 * A message already recorded (a read that died after recording it) is only flagged; a message
 * already flagged `$TimbreProcessed` but unknown here (the settings were removed and set again)
 * is left alone. Nothing a message contains stops the mailbox: only a failure of the server or
 * of the database ends a read, which the next one resumes from the mark.
 */
import type { ImapFlow } from 'imapflow';
import type { simpleParser } from 'mailparser';
import type { AppContext } from '../context.ts';
import { isUniqueViolation } from '../db/database.ts';
import type { Issuer, ReceivedMailbox } from '../generated/prisma/client.ts';
import { connectImap, imapErrorText } from './imap.ts';
import { extractDteFiles } from './mail-attachments.ts';
import { mailboxPassword } from './mailbox-settings.ts';
import { receiveEnvelope } from './receive.ts';

/** The keyword set on every message dealt with (RFC 3501 §2.3.2 keywords need PERMANENTFLAGS \*). */
export const PROCESSED_KEYWORD = '$TimbreProcessed';

/** How long a read holds its mailbox; renewed after every message. */
const LEASE_MS = 2 * 60_000;

/** The longest wait between two reads of a failing mailbox. */
const MAX_BACKOFF_MS = 60 * 60_000;

/** Messages taken per read, so one huge backlog does not hold a lease for hours. */
const MAX_MESSAGES_PER_READ = 200;

type Outcome = 'received' | 'skipped' | 'refused';

/** Takes up to `limit` due mailboxes (lease), so no two instances read the same one. */
async function claimDue(ctx: AppContext, limit: number): Promise<{ id: string; leaseUntil: Date }[]> {
  const now = ctx.clock();
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const rows = await ctx.db.prisma.$queryRaw<{ id: string }[]>`
    UPDATE received_mailboxes SET lease_until = ${leaseUntil}, updated_at = ${now}
     WHERE id IN (
       SELECT id FROM received_mailboxes
        WHERE next_run_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_run_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
     RETURNING id::text`;
  return rows.map((r) => ({ id: r.id, leaseUntil }));
}

/** Reads every due mailbox (up to `limit` at once); returns how many were read. */
export async function readDueMailboxes(ctx: AppContext, limit = 4): Promise<number> {
  const due = await claimDue(ctx, limit);
  await Promise.all(due.map((d) => readMailbox(ctx, d.id, d.leaseUntil)));
  return due.length;
}

/** The outcome of one read, for tests and logs. */
export interface ReadSummary {
  messages: number;
  error: string | null;
}

/** One read of one mailbox whose lease (`leaseUntil`) this caller holds. */
export async function readMailbox(ctx: AppContext, mailboxId: string, leaseUntil: Date): Promise<ReadSummary> {
  const mailbox = await ctx.db.prisma.receivedMailbox.findUnique({
    where: { id: mailboxId },
    include: { issuer: true },
  });
  if (!mailbox) return { messages: 0, error: null };
  const lease = { until: leaseUntil };
  let client: ImapFlow | null = null;
  let messages = 0;
  let error: string | null = null;
  try {
    client = await connectImap(
      { ...mailbox, password: mailboxPassword(ctx, mailbox) },
      { maxMessageBytes: ctx.config.MAILBOX_MAX_MESSAGE_BYTES },
    );
    messages = await readFolder(ctx, client, mailbox, mailbox.issuer, lease);
  } catch (err) {
    error = err instanceof LeaseLost ? null : imapErrorText(err);
    if (error) ctx.log.warn({ mailbox: mailboxId, issuer: mailbox.issuer.rut, reason: error }, 'mailbox read failed');
    if (err instanceof LeaseLost) return { messages, error: null };
  } finally {
    await client?.logout().catch(() => client?.close());
  }
  await finishRead(ctx, mailbox, lease.until, error);
  return { messages, error };
}

class LeaseLost extends Error {}

async function finishRead(ctx: AppContext, m: ReceivedMailbox, leaseUntil: Date, error: string | null) {
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
async function renewLease(ctx: AppContext, mailboxId: string, lease: { until: Date }): Promise<void> {
  const until = new Date(ctx.clock().getTime() + LEASE_MS);
  const { count } = await ctx.db.prisma.receivedMailbox.updateMany({
    where: { id: mailboxId, leaseUntil: lease.until },
    data: { leaseUntil: until },
  });
  if (count === 0) throw new LeaseLost();
  lease.until = until;
}

async function readFolder(
  ctx: AppContext,
  client: ImapFlow,
  mailbox: ReceivedMailbox,
  issuer: Issuer,
  lease: { until: Date },
): Promise<number> {
  const lock = await client.getMailboxLock(mailbox.folder);
  try {
    const opened = client.mailbox;
    if (!opened) throw new Error(`no se pudo abrir la carpeta ${mailbox.folder}`);
    const uidValidity = BigInt(opened.uidValidity);
    let lastUid = mailbox.lastUid;
    if (mailbox.uidValidity !== uidValidity) {
      // A new UIDVALIDITY: the UIDs the mark counted are gone (RFC 3501 §2.3.1.1).
      if (mailbox.uidValidity !== null) {
        ctx.log.warn(
          { mailbox: mailbox.id, uidValidity: String(uidValidity) },
          'mailbox UIDVALIDITY changed: read again',
        );
      }
      lastUid = 0n;
      await ctx.db.prisma.receivedMailbox.update({ where: { id: mailbox.id }, data: { uidValidity, lastUid } });
    }
    if (opened.exists === 0) return 0;
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
  } finally {
    lock.release();
  }
}

async function readMessage(
  ctx: AppContext,
  client: ImapFlow,
  mailbox: ReceivedMailbox,
  issuer: Issuer,
  uidValidity: bigint,
  uid: bigint,
): Promise<void> {
  const key = { mailboxId: mailbox.id, uidValidity, uid };
  const recorded = await ctx.db.prisma.receivedMailboxMessage.findUnique({
    where: { mailboxId_uidValidity_uid: key },
    select: { id: true },
  });
  const range = String(uid);
  if (recorded) return markProcessed(client, range);
  const meta = await client.fetchOne(range, { flags: true, size: true, envelope: true }, { uid: true });
  if (!meta) return; // expunged meanwhile
  if (meta.flags?.has(PROCESSED_KEYWORD)) return;
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
  if (!source) return;
  let parsed: Awaited<ReturnType<typeof simpleParser>>;
  try {
    // Loaded on first use, like imapflow: ~30 MB of RSS an instance without mailboxes never needs.
    const { simpleParser: parse } = await import('mailparser');
    parsed = await parse(source, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  } catch (err) {
    await record(ctx, base, 'refused', `MIME ilegible: ${(err as Error).message.slice(0, 300)}`);
    return markProcessed(client, range);
  }
  const { files, refused } = extractDteFiles(parsed.attachments);
  const replyAddress = base.replyTo ?? base.fromAddress;
  const done = new Set(
    (
      await ctx.db.prisma.receivedMailboxPart.findMany({
        where: key,
        select: { part: true },
      })
    ).map((p) => p.part),
  );
  for (const [part, file] of files.entries()) {
    if (done.has(part)) continue;
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
    } catch (err) {
      // Another reader recorded this attachment first: it is received, once.
      if (!isUniqueViolation(err)) throw err;
    }
  }
  const outcome: Outcome = files.length > 0 ? 'received' : refused.length > 0 ? 'refused' : 'skipped';
  const reason =
    refused.length > 0
      ? `adjuntos no leídos: ${refused.join('; ')}`.slice(0, 1000)
      : files.length === 0
        ? 'sin EnvioDTE ni DTE adjunto'
        : null;
  await record(ctx, base, outcome, reason);
  return markProcessed(client, range);
}

async function record(
  ctx: AppContext,
  data: {
    issuerId: string;
    mailboxId: string;
    uidValidity: bigint;
    uid: bigint;
    messageId: string | null;
    fromAddress: string | null;
    replyTo: string | null;
    subject: string | null;
  },
  outcome: Outcome,
  reason: string | null,
): Promise<void> {
  try {
    await ctx.db.prisma.receivedMailboxMessage.create({ data: { ...data, outcome, reason, createdAt: ctx.clock() } });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

/** `\Seen` and the keyword, so a person (and a new reader) sees it was dealt with. */
async function markProcessed(client: ImapFlow, range: string): Promise<void> {
  await client.messageFlagsAdd(range, ['\\Seen', PROCESSED_KEYWORD], { uid: true });
}
