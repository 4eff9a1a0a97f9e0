/**
 * What an issued document keeps besides its list columns — the signed XML, the flattened TED,
 * the computed model and the request — stored as ONE zlib stream in `documents.signed_xml`,
 * compressed against a dictionary of its issuer (README "What a document costs to keep").
 *
 * Most of a signed DTE repeats from one document of an issuer to the next: the certificate's
 * base64 in KeyInfo (~1.3–2 KB), the CAF inside the TED, the issuer and receiver blocks, the
 * markup, item names; the TED is a copy of part of the XML, and the model and the request copy
 * the XML's values. Deflate with a preset dictionary turns everything that also appears in the
 * dictionary (or earlier in the same stream) into back-references of a few bytes: what is left
 * is what really differs (folio, dates, digests, the two signatures). The dictionary is the
 * content of the first document this process stored for the issuer and CAF (its last 32 KB, the
 * deflate window), kept in `xml_dictionaries` under its SHA-256 before any document names it.
 *
 * A stored value starts with a NUL byte (a signed XML starts with `<`, so rows written before
 * this format are told apart and read as they are: their other columns hold the rest):
 *
 *     0x00 'T' 0x01 | SHA-256 of the dictionary (32) | SHA-256 of the signed XML (32)
 *     | lengths of the XML, the TED and the model (3 × uint32 BE) | zlib(XML ‖ TED ‖ model ‖ request)
 *
 * The read checks the SHA-256 of the XML it rebuilt against the stored one (and zlib its
 * Adler-32 of the whole), so a download is the exact bytes that were signed or an error.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { deflate, inflate } from 'node:zlib';
const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);
const MAGIC = Buffer.from([0x00, 0x54, 0x01]);
const HEADER = MAGIC.length + 32 + 32 + 12;
/** Deflate looks back 32 KB at most: a longer dictionary would only be stored, never used. */
const DICTIONARY_MAX = 32 * 1024;
function sha256(b) {
    return createHash('sha256').update(b).digest();
}
function plain(c) {
    const parts = [
        c.xml,
        Buffer.from(c.ted, 'latin1'),
        Buffer.from(JSON.stringify(c.model), 'utf8'),
        Buffer.from(JSON.stringify(c.request), 'utf8'),
    ];
    return { parts, lengths: parts.map((p) => p.length) };
}
/** The dictionary the issuer's documents of this CAF are compressed against, stored before first use. */
async function writingDictionary(ctx, issuerId, cafId, first) {
    const key = `${issuerId}:${cafId}`;
    let entry = ctx.caches.contentDictionaries.writing.get(key);
    if (!entry) {
        const bytes = Buffer.from(first.subarray(Math.max(0, first.length - DICTIONARY_MAX)));
        const dict = { sha256: sha256(bytes), bytes };
        entry = ctx.db.pool
            .query(`INSERT INTO xml_dictionaries (issuer_id, sha256, bytes) VALUES ($1::uuid, $2, $3)
         ON CONFLICT DO NOTHING`, [issuerId, dict.sha256, dict.bytes])
            .then(() => dict);
        ctx.caches.contentDictionaries.writing.set(key, entry);
        // A failed write is not kept: the next document tries again.
        entry.catch(() => ctx.caches.contentDictionaries.writing.delete(key));
    }
    const dict = await entry;
    ctx.caches.contentDictionaries.reading.set(`${issuerId}:${dict.sha256.toString('hex')}`, dict.bytes);
    return dict;
}
/** The value of `documents.signed_xml` for a new document (see the header comment). */
export async function packContent(ctx, input) {
    const { parts, lengths } = plain(input.content);
    const whole = Buffer.concat(parts);
    const dict = await writingDictionary(ctx, input.issuerId, input.cafId, whole);
    const header = Buffer.alloc(HEADER);
    MAGIC.copy(header, 0);
    dict.sha256.copy(header, 3);
    sha256(input.content.xml).copy(header, 35);
    header.writeUInt32BE(lengths[0], 67);
    header.writeUInt32BE(lengths[1], 71);
    header.writeUInt32BE(lengths[2], 75);
    // Level 6 (the default) packs a 10-line factura as small as 9 does, for less CPU (README).
    const body = await deflateAsync(whole, { dictionary: dict.bytes, memLevel: 9 });
    return Buffer.concat([header, body]);
}
/** Whether a stored `signed_xml` is in the packed format (rows written before it are plain XML). */
export function isPacked(stored) {
    return stored.length >= HEADER && stored[0] === MAGIC[0] && stored[1] === MAGIC[1] && stored[2] === MAGIC[2];
}
async function readingDictionary(ctx, issuerId, hash) {
    const key = `${issuerId}:${hash.toString('hex')}`;
    const cached = ctx.caches.contentDictionaries.reading.get(key);
    if (cached)
        return cached;
    const { rows } = await ctx.db.pool.query('SELECT bytes FROM xml_dictionaries WHERE issuer_id = $1::uuid AND sha256 = $2', [issuerId, hash]);
    const bytes = rows[0]?.bytes;
    if (!bytes || !sha256(bytes).equals(hash)) {
        throw new Error(`stored document content: dictionary ${hash.toString('hex')} missing or altered`);
    }
    ctx.caches.contentDictionaries.reading.set(key, bytes);
    return bytes;
}
/** The document's signed XML, TED, model and request, exactly as stored at issue. */
export async function documentContent(ctx, d) {
    const stored = Buffer.from(d.signedXml.buffer, d.signedXml.byteOffset, d.signedXml.byteLength);
    if (!isPacked(stored)) {
        return {
            xml: stored,
            ted: d.ted ?? '',
            model: d.model,
            request: (d.request ?? {}),
        };
    }
    const dictionary = await readingDictionary(ctx, d.issuerId, stored.subarray(3, 35));
    const whole = await inflateAsync(stored.subarray(HEADER), { dictionary });
    const xmlLength = stored.readUInt32BE(67);
    const tedLength = stored.readUInt32BE(71);
    const modelLength = stored.readUInt32BE(75);
    const xml = whole.subarray(0, xmlLength);
    if (!sha256(xml).equals(stored.subarray(35, 67))) {
        throw new Error('stored document content: the signed XML does not match its SHA-256');
    }
    let at = xmlLength;
    const ted = whole.toString('latin1', at, at + tedLength);
    at += tedLength;
    const model = JSON.parse(whole.toString('utf8', at, at + modelLength));
    const request = JSON.parse(whole.toString('utf8', at + modelLength));
    return { xml, ted, model, request };
}
/** Only the signed XML (a download, an envelope). */
export async function signedXmlOf(ctx, d) {
    return (await documentContent(ctx, { ...d, ted: null, model: null, request: null })).xml;
}
