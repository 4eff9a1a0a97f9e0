/**
 * multipart/form-data (RFC 7578) as the SII's upload endpoints read it: parts `rutSender`,
 * `dvSender`, `rutCompany`, `dvCompany` and the file `archivo` ([UPL] Anexo 3, docs/sii-reference.md §7.3).
 * File bytes are kept as sent (an EnvioDTE is ISO-8859-1).
 */
import { parseRut } from './http-util.js';
function boundaryOf(contentType) {
    if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType))
        return null;
    const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
    return m ? (m[1] ?? m[2] ?? null) : null;
}
function parseHeaders(text) {
    const headers = new Map();
    for (const line of text.split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon > 0)
            headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    return headers;
}
function dispositionParam(disposition, name) {
    const m = new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(disposition) ??
        new RegExp(`;\\s*${name}=([^;\\s]+)`, 'i').exec(disposition);
    return m?.[1];
}
/** The parts of a multipart/form-data body; null when it is not one. */
export function parseMultipart(body, contentType) {
    const boundary = boundaryOf(contentType);
    if (!boundary)
        return null;
    const delimiter = Buffer.from(`--${boundary}`, 'latin1');
    const parts = [];
    let at = body.indexOf(delimiter);
    if (at < 0)
        return null;
    for (;;) {
        let start = at + delimiter.length;
        if (body.subarray(start, start + 2).toString('latin1') === '--')
            return parts;
        // The delimiter line ends with CRLF (LF tolerated).
        if (body[start] === 0x0d)
            start++;
        if (body[start] === 0x0a)
            start++;
        const next = body.indexOf(delimiter, start);
        if (next < 0)
            return null;
        // The CRLF before the next delimiter belongs to the delimiter, not to the data.
        let end = next;
        if (body[end - 1] === 0x0a)
            end--;
        if (body[end - 1] === 0x0d)
            end--;
        const part = body.subarray(start, Math.max(start, end));
        let headerEnd = part.indexOf('\r\n\r\n');
        let gap = 4;
        if (headerEnd < 0) {
            headerEnd = part.indexOf('\n\n');
            gap = 2;
        }
        if (headerEnd < 0)
            return null;
        const headers = parseHeaders(part.subarray(0, headerEnd).toString('latin1'));
        const disposition = headers.get('content-disposition') ?? '';
        const name = dispositionParam(disposition, 'name');
        if (!/^form-data/i.test(disposition) || name === undefined)
            return null;
        const filename = dispositionParam(disposition, 'filename');
        const type = headers.get('content-type');
        parts.push({
            name,
            ...(filename !== undefined && { filename }),
            ...(type !== undefined && { contentType: type }),
            data: Buffer.from(part.subarray(headerEnd + gap)),
        });
        at = next;
    }
}
/** The text value of a field part, trimmed ('' when absent). */
export function fieldOf(parts, name) {
    return (parts
        .find((p) => p.name === name)
        ?.data.toString('latin1')
        .trim() ?? '');
}
/** The company an upload form is for (rutCompany-dvCompany, canonical); null when not an upload form. */
export function formCompanyOf(body, contentType) {
    const parts = parseMultipart(body, contentType);
    return parts ? parseRut(fieldOf(parts, 'rutCompany'), fieldOf(parts, 'dvCompany')) : null;
}
