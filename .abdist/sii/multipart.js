/**
 * The multipart/form-data body of DTEUpload and of the boleta REST upload (docs/sii-reference.md §7.3,
 * §7.6; test/fixtures/sii/responses/dteupload_multipart_request.txt, from [UPL] Anexo 3).
 *
 * Built whole, as one Buffer, so the request carries a real Content-Length: the SII gateway
 * reads only the first chunk of a chunked body (~4 KB) and then reports a cut file. The file
 * part holds the envelope bytes exactly as signed (docs/style.md §8).
 */
import { randomBytes } from 'node:crypto';
const CRLF = '\r\n';
/**
 * Quotes would end the Content-Disposition parameter and line breaks the header; anything
 * outside printable ASCII has no agreed encoding in this header.
 */
function safeFilename(name) {
    return name.replace(/[^\x20-\x7e]|["\\]/g, '_');
}
/** A boundary that does not occur in the file (practically certain, but checked). */
function boundaryFor(content) {
    for (;;) {
        const boundary = `TimbreBoundary${randomBytes(12).toString('hex')}`;
        if (!content.includes(boundary, 0, 'latin1'))
            return boundary;
    }
}
/** Text fields first, in the order given, then the file: the order the SII's manual shows. */
export function buildMultipart(fields, file) {
    const boundary = boundaryFor(file.content);
    const parts = [];
    for (const [name, value] of fields) {
        parts.push(Buffer.from(`--${boundary}${CRLF}Content-Disposition: form-data; name="${name}"${CRLF}${CRLF}${value}${CRLF}`, 'latin1'));
    }
    parts.push(Buffer.from(`--${boundary}${CRLF}Content-Disposition: form-data; name="${file.name}"; ` +
        `filename="${safeFilename(file.filename)}"${CRLF}Content-Type: ${file.contentType}${CRLF}${CRLF}`, 'latin1'), file.content, Buffer.from(`${CRLF}--${boundary}--${CRLF}`, 'latin1'));
    return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
