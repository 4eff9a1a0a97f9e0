/**
 * The answer to a supplier by e-mail (README "Received documents"): the signed RespuestaDTE
 * (RecepcionEnvio) that receive.ts built, queued as an `email_messages` row in the transaction
 * that records the envelope and sent (composed too: the sender is below receiving) by the same
 * worker, retries and lease as a document's e-mail (src/issuing/document-email.ts). It goes to the message's Reply-To, else its From,
 * else the supplier's CorreoEmisor in the DTE; per issuer it can be switched off
 * (`received_mailboxes.answer_by_email`, on when the issuer has no mailbox settings).
 */
import type { AppContext } from '../context.ts';
import type { Issuer, Prisma, ReceivedEnvelope } from '../generated/prisma/client.ts';
import { emailEnabled } from '../issuing/email-queue.ts';

/** A plain address (local@domain), as a mail header or CorreoEmisor gives it; anything else is not answered. */
const ADDRESS = /^[^\s@<>(),;:"]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$/;

export function answerAddress(candidates: (string | null | undefined)[]): string | null {
  for (const c of candidates) {
    const a = c?.trim();
    if (a && ADDRESS.test(a)) return a;
  }
  return null;
}

/** Whether this issuer answers by e-mail: its mailbox setting, on by default. */
export async function answersByEmail(tx: Prisma.TransactionClient, issuer: Issuer): Promise<boolean> {
  const mailbox = await tx.receivedMailbox.findUnique({
    where: { issuerId: issuer.id },
    select: { answerByEmail: true },
  });
  return mailbox?.answerByEmail ?? true;
}

/** Queues the answer of `envelope` to `to`, in the caller's transaction. */
export async function queueAnswerEmail(
  ctx: AppContext,
  tx: Prisma.TransactionClient,
  issuer: Issuer,
  envelope: ReceivedEnvelope,
  to: string,
  now: Date,
): Promise<void> {
  await tx.emailMessage.create({
    data: {
      issuerId: issuer.id,
      receivedEnvelopeId: envelope.id,
      to: [to],
      state: emailEnabled(ctx) ? 'pending' : 'disabled',
      nextRunAt: now,
    },
  });
}
