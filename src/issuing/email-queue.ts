/**
 * The e-mail to the receiver as the issuing side sees it (docs/design.md §9): whether e-mail is
 * on, and the row queued in the issue transaction. Sending is document-email.ts's, run by the jobs.
 */
import type { AppContext } from '../context.ts';
import type { EmailMessage, Environment } from '../generated/prisma/client.ts';

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
