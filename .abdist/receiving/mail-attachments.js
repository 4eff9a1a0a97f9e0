/**
 * The files a supplier's e-mail carries that Timbre takes in (docs/receiving.md §1): any
 * attachment, whatever its MIME type or the case of its `.xml`, whose root element is an
 * `EnvioDTE` or a `DTE`, also inside a `.zip`. A zip is read here (its central directory, then
 * each entry inflated with zlib under a hard output bound), so a zip bomb costs at most the
 * bounds below, and an entry count or a size past them refuses the zip, never the process.
 */
import { inflateRawSync } from 'node:zlib';
import { MAX_RECEIVED_BYTES } from './checks.js';
/** Entries read from one zip, and their total inflated size. */
const MAX_ZIP_ENTRIES = 100;
const MAX_ZIP_TOTAL_BYTES = 2 * MAX_RECEIVED_BYTES;
/** The root element, looked for in the first bytes (after the declaration, comments and a BOM). */
const ROOT = /^(?:\uFEFF)?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[A-Za-z_][\w.-]*:)?(EnvioDTE|DTE)[\s>/]/;
function isDteXml(bytes) {
    return ROOT.test(bytes.subarray(0, 4096).toString('latin1'));
}
const isZip = (bytes) => bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;
export function extractDteFiles(attachments) {
    const out = { files: [], refused: [] };
    attachments.forEach((a, i) => {
        const name = a.filename || `adjunto-${i + 1}`;
        if (isZip(a.content)) {
            try {
                for (const entry of readZip(a.content)) {
                    if (isDteXml(entry.bytes))
                        out.files.push({ name: `${name}/${entry.name}`, bytes: entry.bytes });
                }
            }
            catch (err) {
                out.refused.push(`${name}: ${err.message}`);
            }
            return;
        }
        if (!isDteXml(a.content))
            return;
        if (a.content.length > MAX_RECEIVED_BYTES) {
            out.refused.push(`${name}: pesa ${a.content.length} bytes; el máximo es ${MAX_RECEIVED_BYTES}`);
            return;
        }
        out.files.push({ name, bytes: a.content });
    });
    return out;
}
/**
 * The entries of a zip, from its central directory (APPNOTE.TXT §4.3.12, §4.3.16); stored and
 * deflated entries only; encrypted and ZIP64 archives are refused. The sizes the archive
 * declares are not trusted: inflating stops at the bound whatever they say.
 */
function readZip(zip) {
    const eocd = findEndOfCentralDirectory(zip);
    const count = zip.readUInt16LE(eocd + 10);
    const cdOffset = zip.readUInt32LE(eocd + 16);
    if (count === 0xffff || cdOffset === 0xffffffff)
        throw new Error('zip64 no soportado');
    if (count > MAX_ZIP_ENTRIES)
        throw new Error(`el zip tiene ${count} archivos; el máximo es ${MAX_ZIP_ENTRIES}`);
    const entries = [];
    let total = 0;
    let p = cdOffset;
    for (let i = 0; i < count; i++) {
        if (p + 46 > zip.length || zip.readUInt32LE(p) !== 0x02014b50)
            throw new Error('zip ilegible (directorio)');
        const flags = zip.readUInt16LE(p + 8);
        const method = zip.readUInt16LE(p + 10);
        const compressed = zip.readUInt32LE(p + 20);
        const nameLen = zip.readUInt16LE(p + 28);
        const extraLen = zip.readUInt16LE(p + 30);
        const commentLen = zip.readUInt16LE(p + 32);
        const local = zip.readUInt32LE(p + 42);
        const name = zip.subarray(p + 46, p + 46 + nameLen).toString(flags & 0x800 ? 'utf8' : 'latin1');
        p += 46 + nameLen + extraLen + commentLen;
        if (name.endsWith('/'))
            continue;
        if (flags & 0x1)
            throw new Error(`${name}: cifrado`);
        if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50)
            throw new Error('zip ilegible (entrada)');
        const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
        if (start + compressed > zip.length)
            throw new Error(`${name}: truncado`);
        const data = zip.subarray(start, start + compressed);
        const room = Math.min(MAX_RECEIVED_BYTES, MAX_ZIP_TOTAL_BYTES - total);
        let bytes;
        if (method === 0) {
            bytes = Buffer.from(data);
        }
        else if (method === 8) {
            try {
                bytes = inflateRawSync(data, { maxOutputLength: room + 1 });
            }
            catch (err) {
                const tooBig = err.code === 'ERR_BUFFER_TOO_LARGE';
                throw new Error(tooBig ? `${name}: descomprimido excede ${room} bytes` : `${name}: no se pudo descomprimir`);
            }
        }
        else {
            throw new Error(`${name}: método de compresión ${method} no soportado`);
        }
        if (bytes.length > room)
            throw new Error(`${name}: descomprimido excede ${room} bytes`);
        total += bytes.length;
        entries.push({ name, bytes });
    }
    return entries;
}
function findEndOfCentralDirectory(zip) {
    const floor = Math.max(0, zip.length - 22 - 0xffff);
    for (let i = zip.length - 22; i >= floor; i--) {
        if (zip.readUInt32LE(i) === 0x06054b50)
            return i;
    }
    throw new Error('zip ilegible (sin directorio central)');
}
