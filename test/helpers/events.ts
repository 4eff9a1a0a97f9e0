/**
 * Receivers for events tests: a webhook endpoint that verifies each delivery with the
 * `standardwebhooks` package (an independent implementation of the specification, not
 * Timbre's code) and an in-process SMTP server (`smtp-server`) whose messages are parsed with
 * `mailparser`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';

interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The payload as `Webhook.verify` returned it; null when verification failed. */
  verified: { id: string; type: string; created_at: string; data: Record<string, unknown> } | null;
  error: string | null;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Status codes to answer, in order; then 200. */
  answers: number[];
  /** Decides the status of one delivery (before `answers`); undefined: fall through. */
  respond?: (hook: ReceivedWebhook) => number | undefined;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let secret = '';
  const received: ReceivedWebhook[] = [];
  const answers: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: ReceivedWebhook['verified'] = null;
      let error: string | null = null;
      try {
        verified = new Webhook(secret).verify(body, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        }) as ReceivedWebhook['verified'];
      } catch (e) {
        error = (e as Error).message;
      }
      const hook = { headers: req.headers, body, verified, error };
      received.push(hook);
      res.statusCode = receiver.respond?.(hook) ?? answers.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answers,
    setSecret(s: string) {
      secret = s;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  return receiver;
}

export interface MailCatcher {
  url: string;
  messages: ParsedMail[];
  /** Answer the next N messages with a temporary failure (451). */
  failNext(n: number): void;
  close(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: ParsedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      if (failures > 0) {
        failures--;
        stream.resume();
        const err = new Error('try again later') as Error & { responseCode: number };
        err.responseCode = 451;
        stream.on('end', () => callback(err));
        return;
      }
      simpleParser(stream)
        .then((m) => {
          messages.push(m);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    failNext(n: number) {
      failures = n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
