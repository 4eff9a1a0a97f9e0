/**
 * The IMAP connection to an issuer's intercambio mailbox (imapflow), with the settings of
 * `received_mailboxes` and bounded waits: a mailbox that does not answer fails the read (the
 * error recorded on the mailbox, retried later), it never holds a worker.
 */
import type { ImapFlow, ImapFlowOptions } from 'imapflow';
import type { MailboxTls } from '../generated/prisma/client.ts';

export interface ImapSettings {
  host: string;
  port: number;
  tls: MailboxTls;
  user: string;
  password: string;
}

/** How long to wait for the connection, the greeting and any answer, ms. */
const CONNECT_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;

/** A connected client; the caller logs out (or closes) it. */
export async function connectImap(s: ImapSettings, opts: { maxMessageBytes?: number } = {}): Promise<ImapFlow> {
  const options: ImapFlowOptions & { doSTARTTLS?: boolean } = {
    host: s.host,
    port: s.port,
    secure: s.tls === 'implicit',
    // STARTTLS is required when asked for, never attempted with `none`.
    doSTARTTLS: s.tls === 'starttls' ? true : s.tls === 'none' ? false : undefined,
    auth: { user: s.user, pass: s.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    ...(opts.maxMessageBytes && {
      maxLiteralSize: opts.maxMessageBytes * 2,
      maxResponseSize: opts.maxMessageBytes * 2 + 1024 * 1024,
    }),
  };
  // Loaded on first use: the CLI and an instance without mailboxes never pay for it.
  const { ImapFlow: Client } = await import('imapflow');
  const client = new Client(options);
  // An error after connecting (a dropped socket) is reported by the pending command; without a
  // listener the emitter would throw it at the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** An imapflow or socket error as one line for last_error and the "Probar conexión" answer. */
export function imapErrorText(err: unknown): string {
  const e = err as Error & { code?: string; responseText?: string; authenticationFailed?: boolean };
  if (e.authenticationFailed) return 'Autenticación rechazada: revise el usuario y la contraseña.';
  const detail = e.responseText || e.message || String(err);
  return `${e.code ? `${e.code}: ` : ''}${detail}`.slice(0, 500);
}
