/**
 * The e-mail to the receiver as the issuing side sees it (DESIGN §9): whether e-mail is on, and
 * the row queued in the issue transaction. Sending is document-email.ts's, run by the jobs.
 */
import type { AppContext } from '../context.ts';
import type { EmailMessage, Environment, Prisma } from '../generated/prisma/client.ts';

export function emailEnabled(ctx: AppContext): boolean {
  return Boolean(ctx.config.SMTP_URL);
}

/**
 * The state an issued document's e-mail starts in: `disabled` without SMTP, `pending` (send now)
 * in sandbox, `waiting` (for the SII's acceptance) in live.
 */
export function issueEmailState(ctx: AppContext, env: Environment): EmailMessage['state'] {
  return !emailEnabled(ctx) ? 'disabled' : env === 'sandbox' ? 'pending' : 'waiting';
}

/**
 * Queues the e-mail of a just-issued document, inside the issue transaction (only when the
 * request named a receiver e-mail).
 */
export async function queueIssueEmail(
  ctx: AppContext,
  tx: Prisma.TransactionClient,
  input: { issuerId: string; documentId: string; env: Environment; to: string[] },
): Promise<EmailMessage | null> {
  if (input.to.length === 0) return null;
  const state = issueEmailState(ctx, input.env);
  return tx.emailMessage.create({
    data: { issuerId: input.issuerId, documentId: input.documentId, to: input.to, state, nextRunAt: ctx.clock() },
  });
}
