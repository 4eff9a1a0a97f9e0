/**
 * pino options shared by the service and the CLI. Secrets never reach the logs: the
 * Authorization header, cookies, passwords, keys, certificates and whole XML payloads are
 * redacted, and the public document token is cut out of logged URLs.
 */
import { type Logger, type LoggerOptions, pino } from 'pino';
import pretty from 'pino-pretty';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.passwordEncrypted',
  '*.p12',
  '*.p12Encrypted',
  '*.privateKey',
  '*.privateKeyPem',
  '*.privateKeyEncrypted',
  '*.key',
  '*.apiKey',
  '*.token',
  '*.certificate',
  '*.certPem',
  '*.xml',
  '*.signedXml',
  '*.envelope',
  'password',
  'key',
  'apiKey',
  'token',
  'privateKey',
  'xml',
];

/** Hides the `tk` query parameter (it opens a document) in logged URLs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]tk=)[^&#]*/g, '$1[REDACTED]');
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    serializers: {
      req(req: { method: string; url: string; id?: string; ip?: string }) {
        return { method: req.method, url: redactUrl(req.url), request_id: req.id, ip: req.ip };
      },
    },
  };
}

/**
 * The service's logger: JSON lines (one object per line, for log collectors) unless stdout is
 * a terminal, where `npm start` prints them through pino-pretty (coloured, one readable line
 * each). pino-pretty runs as a stream in this thread, not as a transport worker, so
 * `node dist/server.js` needs no module resolution at run time; redaction happens before
 * either.
 */
export function createLogger(level: string, stdout: NodeJS.WriteStream = process.stdout): Logger {
  if (!stdout.isTTY) return pino(loggerOptions(level));
  return pino(
    loggerOptions(level),
    pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: stdout }),
  );
}
