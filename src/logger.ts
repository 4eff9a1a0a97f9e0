/**
 * pino options shared by the service and the CLI. Secrets never reach the logs: the
 * Authorization header, cookies, passwords, keys, certificates and whole XML payloads are
 * redacted, and the public document token is cut out of logged URLs.
 */
import type { LoggerOptions } from 'pino';

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
