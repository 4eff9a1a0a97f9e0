import { normalizeRut } from '../dte/rut.js';
/** The largest request body the simulator reads (an EnvioDTE of 2000 documents fits). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
export class BodyTooLargeError extends Error {
}
/** Reads the whole request body; refuses bodies above `limit` bytes. */
export async function readBody(req, limit = MAX_BODY_BYTES) {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
        const buf = chunk;
        size += buf.length;
        if (size > limit)
            throw new BodyTooLargeError(`request body above ${limit} bytes`);
        chunks.push(buf);
    }
    return Buffer.concat(chunks);
}
/** A cookie of the request (`Cookie: TOKEN=…; other=…`), undefined when absent. */
export function cookie(req, name) {
    const header = req.headers.cookie;
    if (!header)
        return undefined;
    for (const pair of header.split(';')) {
        const eq = pair.indexOf('=');
        if (eq < 0)
            continue;
        if (pair.slice(0, eq).trim() === name)
            return pair.slice(eq + 1).trim();
    }
    return undefined;
}
/** True when the request declared its length: the SII's upload gateway needs it (docs/sii-reference.md §7.3). */
export function hasContentLength(req) {
    return req.headers['content-length'] !== undefined && req.headers['transfer-encoding'] === undefined;
}
/** The media type of the request without parameters, lower-cased ('' when absent). */
export function mediaType(req) {
    return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}
/** True when the User-Agent carries `PROG 1.0`, which the SII's upload gateways demand (docs/sii-reference.md §7.3). */
export function hasProgUserAgent(req) {
    return (req.headers['user-agent'] ?? '').includes('PROG 1.0');
}
export function reply(status, body, contentType, headers = {}) {
    const latin1 = /iso-8859-1/i.test(contentType);
    const bytes = typeof body === 'string' ? Buffer.from(body, latin1 ? 'latin1' : 'utf8') : body;
    return { status, headers: { 'Content-Type': contentType, ...headers }, body: bytes };
}
export function jsonReply(status, value) {
    return reply(status, JSON.stringify(value), 'application/json;charset=UTF-8');
}
export function textReply(status, text, headers = {}) {
    return reply(status, text, 'text/plain;charset=UTF-8', headers);
}
export function xmlReply(status, xml) {
    return reply(status, xml, 'text/xml; charset=utf-8');
}
/** A minimal HTML page, the way the SII's CGI programs and gateways answer errors. */
export function htmlReply(status, title, message, headers = {}) {
    const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const page = `<html><head><title>${esc(title)}</title></head><body><h2>${esc(title)}</h2><p>${esc(message)}</p></body></html>\n`;
    return reply(status, page, 'text/html; charset=ISO-8859-1', headers);
}
/**
 * A RUT from the two fields the SII's services split it into, canonical, or null. Leading
 * zeros and thousands dots are tolerated: the SII's own samples echo `07880442-4`.
 */
export function parseRut(body, dv) {
    return normalizeRut(`${body.trim().replace(/\./g, '').replace(/^0+/, '')}-${dv.trim()}`);
}
