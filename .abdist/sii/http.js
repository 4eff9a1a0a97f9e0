/**
 * The one HTTP exchange of the SII adapter, and the rule that turns a transport failure into
 * one of the SiiClient errors (src/sii/types.ts, docs/design.md §6).
 *
 * node:http(s) is used directly rather than `fetch` because the classification needs to know
 * how far a request got when it failed: a failure before the whole body was handed to the
 * network means the SII cannot have the request (safe to send again); a failure after that,
 * for a call that changes something at the SII (an upload, a CAF request), means it may have
 * received it. `fetch` reports both as the same opaque `TypeError: fetch failed`.
 *
 * Every request gets a fresh connection (`agent: false`): SII calls are few, and a reused
 * keep-alive socket that the server closed meanwhile fails with a reset that would look
 * like "sent, no answer" and be reported as ambiguous for no reason.
 */
import http from 'node:http';
import https from 'node:https';
import { decodeXmlBytes } from '../dte/xml-text.js';
import { SiiAmbiguousError, SiiProtocolError, SiiUnavailableError } from './types.js';
/** The SII answers are small; anything bigger than this is not an SII answer. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** A transport failure with the phase it happened in. */
class HttpFailure extends Error {
    phase;
    timedOut;
    name = 'HttpFailure';
    constructor(message, phase, timedOut, options) {
        super(message, options);
        this.phase = phase;
        this.timedOut = timedOut;
    }
}
/**
 * Sends one request and returns the whole answer, whatever its status. Rejects with
 * `HttpFailure` on any transport failure, including the timeout (which covers connecting,
 * sending and reading the whole answer).
 */
function httpExchange(req) {
    const url = new URL(req.url);
    const signal = AbortSignal.timeout(req.timeoutMs);
    const transport = url.protocol === 'https:' ? https : http;
    const headers = { ...req.headers };
    if (req.body)
        headers['Content-Length'] = req.body.length;
    return new Promise((resolve, reject) => {
        let phase = 'connecting';
        let settled = false;
        const fail = (cause) => {
            if (settled)
                return;
            settled = true;
            const timedOut = signal.aborted;
            const what = timedOut ? `no complete answer within ${req.timeoutMs} ms` : describeCause(cause);
            reject(new HttpFailure(`${req.op}: ${what} (${phase})`, phase, timedOut, { cause }));
        };
        const request = transport.request(url, { method: req.method, headers, agent: false, signal });
        request.on('socket', (socket) => {
            // 'secureConnect' for TLS: a handshake failure is still "could not connect".
            socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
                if (phase === 'connecting')
                    phase = 'sending';
            });
        });
        request.on('error', fail);
        request.on('response', (res) => {
            phase = 'receiving';
            const chunks = [];
            let size = 0;
            res.on('data', (chunk) => {
                size += chunk.length;
                if (size > MAX_ANSWER_BYTES) {
                    request.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
                    return;
                }
                chunks.push(chunk);
            });
            res.on('error', fail);
            res.on('close', () => {
                if (!res.complete)
                    fail(new Error('connection closed before the answer was complete'));
            });
            res.on('end', () => {
                if (settled)
                    return;
                settled = true;
                resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
            });
        });
        // The body is written with its own callback: it reports success only once every byte was
        // handed to the operating system, so from then on the server may have the whole request.
        // (The request's 'finish' event is no such signal: Node emits it even when that write
        // failed with EPIPE.) A bodiless request counts as sent once its headers are out.
        const markSent = () => {
            if (phase === 'connecting' || phase === 'sending')
                phase = 'sent';
        };
        if (req.body && req.body.length > 0) {
            request.write(req.body, (error) => {
                if (!error)
                    markSent();
            });
            request.end();
        }
        else {
            request.on('finish', markSent);
            request.end();
        }
    });
}
function describeCause(cause) {
    const e = cause;
    if (!e)
        return 'request failed';
    return e.code ? `${e.code} ${e.message}` : e.message;
}
/**
 * Sends a request and classifies failures (docs/design.md §6):
 * - nothing or not all of the body left this machine (DNS, refused, TLS, reset while sending)
 *   → SiiUnavailableError, whatever the call;
 * - a read-only call that timed out, was cut, or got a 5xx → SiiUnavailableError;
 * - an upload or CAF request that timed out or was cut after its body was sent, or got a
 *   5xx → SiiAmbiguousError: the SII may have received it.
 * Statuses below 500 are returned for the caller to interpret.
 */
export async function siiExchange(req) {
    let answer;
    try {
        answer = await httpExchange(req);
    }
    catch (e) {
        if (!(e instanceof HttpFailure))
            throw e;
        const bodyMayHaveArrived = e.phase === 'sent' || e.phase === 'receiving';
        if (req.readOnly || !bodyMayHaveArrived)
            throw new SiiUnavailableError(e.message, { cause: e });
        throw new SiiAmbiguousError(`${e.message}; the SII may have received the request`, { cause: e });
    }
    if (answer.status >= 500) {
        const message = `${req.op}: HTTP ${answer.status} ${snippet(decodeBody(answer))}`.trim();
        if (req.readOnly)
            throw new SiiUnavailableError(message);
        throw new SiiAmbiguousError(`${message}; the SII may have received the request`);
    }
    return answer;
}
/** The answer as text: the charset of Content-Type, else the XML declaration, else UTF-8 (Latin-1 fallback). */
export function decodeBody(answer) {
    const charset = /charset=["']?([^;"'\s]+)/i.exec(String(answer.headers['content-type'] ?? ''))?.[1]?.toLowerCase();
    if (charset && /^(iso-8859-1|latin-?1|windows-1252|cp1252)$/.test(charset))
        return answer.body.toString('latin1');
    if (charset && /^utf-?8$/.test(charset))
        return answer.body.toString('utf8');
    return decodeXmlBytes(answer.body);
}
/** A short, single-line excerpt of an answer for error messages (HTML tags removed). */
export function snippet(text, max = 300) {
    const plain = text
        .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
        .replace(/<[^>]*>/g, ' ')
        .replace(/&nbsp;/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
    return plain.length > max ? `${plain.slice(0, max)}…` : plain;
}
/** An answer with a status this call does not expect (3xx, 4xx other than those handled). */
export function unexpectedStatus(op, answer) {
    return new SiiProtocolError(`${op}: unexpected HTTP ${answer.status} ${snippet(decodeBody(answer))}`.trim());
}
/** Base URLs come from configuration with or without a trailing slash. */
export function joinUrl(base, path) {
    return `${base.replace(/\/+$/, '')}${path}`;
}
