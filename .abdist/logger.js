/**
 * pino options shared by the service and the CLI. Secrets never reach the logs: the
 * Authorization header, cookies, passwords, keys, certificates and whole XML payloads are
 * redacted, and the public document token is cut out of logged URLs.
 */
import { pino } from 'pino';
import pretty from 'pino-pretty';
const REDACT_PATHS = [
    'req.headers.authorization',
    'req.headers.cookie',
    'req.headers["idempotency-key"]',
    'headers.authorization',
    'headers.cookie',
    '*.password',
    '*.passwordEncrypted',
    '*.p12',
    '*.p12Encrypted',
    '*.keyMaterialEncrypted',
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
/**
 * Query parameter names whose values are hidden in logged URLs, compared after
 * percent-decoding, lower-casing and dropping everything but letters and digits (so `tk`,
 * `?t%6B=`, `TK`, `api_key`, `API-Key` and `access.token` all match).
 */
const SECRET_NAMES = new Set(['tk', 'key', 'apikey', 'token', 'password', 'pass', 'pwd', 'secret', 'auth', 'sig']);
const SECRET_PARTS = /token|key|secret|passw|auth|credential|signature|session/;
function isSecretName(raw) {
    let name = raw.replace(/\+/g, ' ');
    try {
        name = decodeURIComponent(name);
    }
    catch {
        // A malformed escape: judge the name as written, and hide it when in doubt below.
        name = name.replace(/%([0-9a-f]{2})/gi, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
    }
    const plain = name.toLowerCase().replace(/[^a-z0-9]/g, '');
    return SECRET_NAMES.has(plain) || SECRET_PARTS.test(plain);
}
/** Hides the values of secret-looking query parameters (the `tk` that opens a document, keys …) in logged URLs. */
export function redactUrl(url) {
    const q = url.indexOf('?');
    if (q < 0)
        return url;
    const hash = url.indexOf('#', q);
    const query = url.slice(q + 1, hash < 0 ? undefined : hash);
    const parts = query.split(/([&;])/).map((part) => {
        if (part === '&' || part === ';')
            return part;
        const eq = part.indexOf('=');
        const name = eq < 0 ? part : part.slice(0, eq);
        return eq >= 0 && isSecretName(name) ? `${name}=[REDACTED]` : part;
    });
    return `${url.slice(0, q + 1)}${parts.join('')}`;
}
export function loggerOptions(level) {
    return {
        level,
        redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
        serializers: {
            req(req) {
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
export function createLogger(level, stdout = process.stdout) {
    if (!stdout.isTTY)
        return pino(loggerOptions(level));
    return pino(loggerOptions(level), pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: stdout }));
}
