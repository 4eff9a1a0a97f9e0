/**
 * The `email` block of list entries (docs/design.md §9): where the e-mail of a document to its receiver
 * stands, from its latest e-mail row.
 */
import type { EmailMessage } from '../generated/prisma/client.ts';

type EmailStatus = 'none' | 'pending' | 'sent' | 'failed' | 'disabled';

export interface EmailView {
  status: EmailStatus;
  to: string[];
  at: string | null;
}

function emailStatusOf(state: EmailMessage['state'] | null | undefined): EmailStatus {
  switch (state) {
    case 'waiting':
    case 'pending':
    case 'sending':
      return 'pending';
    case 'sent':
      return 'sent';
    case 'failed':
      return 'failed';
    case 'disabled':
      return 'disabled';
    default:
      return 'none';
  }
}

export function emailViewOf(
  e: Pick<EmailMessage, 'state' | 'to' | 'sentAt' | 'updatedAt'> | null | undefined,
): EmailView {
  const status = emailStatusOf(e?.state);
  if (!e || status === 'none') return { status, to: e?.to ?? [], at: null };
  const at = status === 'sent' ? e.sentAt : status === 'failed' ? e.updatedAt : null;
  return { status, to: e.to, at: at ? at.toISOString() : null };
}
