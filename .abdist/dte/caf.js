/**
 * CAF (Código de Autorización de Folios): the XML the SII hands out with a folio range and the
 * key pair that signs each document's TED (docs/sii-reference.md §2).
 *
 * - `parseCaf` reads a CAF file (bytes as received, or text) into its parts, keeping the
 *   `<CAF>` element as flattened text because it is copied verbatim into every TED (§3.1).
 * - `verifyCafSignature` checks FRMA: SHA1withRSA by the SII over the compact `<DA>…</DA>`
 *   in ISO-8859-1, with the key of its IDK (100 certification, 300 production) or an extra
 *   trusted key (the local SII simulator's).
 * - `generateCaf` makes a CAF with a fresh 512-bit, e=3 key pair (as the SII's), signed by a
 *   key of ours: sandbox ranges and the SII simulator use it. Such a CAF never verifies with
 *   the SII's keys, so it cannot pass for a real one.
 *
 * Pure: reads the vendored SII certificates from `resources/sii/certs`, nothing else.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, X509Certificate, } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../errors.js';
import { addDays, isRealDate } from './calendar-date.js';
import { normalizeRut } from './rut.js';
import { decodeXmlBytes, escapeXml, flatten, toLatin1, unescapeXml } from './xml-text.js';
function invalidCaf(message) {
    return new AppError('CAF_INVALID', `The CAF file is not valid: ${message}.`);
}
function element(text, name) {
    const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(text);
    if (!m)
        throw invalidCaf(`<${name}> is missing`);
    return m[1];
}
function wholeElement(text, name) {
    const m = new RegExp(`<${name}(?:\\s[^>]*)?>[\\s\\S]*?</${name}>`).exec(text);
    if (!m)
        throw invalidCaf(`<${name}> is missing`);
    return m[0];
}
function positiveInt(text, name) {
    const t = text.trim();
    if (!/^\d{1,10}$/.test(t) || Number(t) < 1)
        throw invalidCaf(`<${name}> is not a positive number`);
    return Number(t);
}
/**
 * Parses a CAF file. The SII serves CAFs as ISO-8859-1 under a bare `<?xml version="1.0"?>`;
 * bytes are decoded by their declaration, else as UTF-8 when valid, else as ISO-8859-1.
 */
export function parseCaf(input) {
    const text = typeof input === 'string' ? input : decodeXmlBytes(input);
    if (!/<AUTORIZACION[\s>]/.test(text))
        throw invalidCaf('there is no <AUTORIZACION> root');
    const cafXml = flatten(wholeElement(text, 'CAF'));
    const daXml = flatten(wholeElement(cafXml, 'DA'));
    const rut = normalizeRut(unescapeXml(element(daXml, 'RE')));
    if (!rut)
        throw invalidCaf('<RE> is not a valid RUT');
    const rng = element(daXml, 'RNG');
    const from = positiveInt(element(rng, 'D'), 'D');
    const to = positiveInt(element(rng, 'H'), 'H');
    if (to < from)
        throw invalidCaf('the range ends before it starts');
    const fa = element(daXml, 'FA').trim();
    if (!isRealDate(fa))
        throw invalidCaf('<FA> is not a date');
    const rsapk = element(daXml, 'RSAPK');
    const privateKeyPem = unescapeXml(element(text, 'RSASK')).trim();
    if (!privateKeyPem.includes('PRIVATE KEY'))
        throw invalidCaf('<RSASK> holds no private key');
    return {
        re: rut,
        rs: unescapeXml(element(daXml, 'RS')),
        td: positiveInt(element(daXml, 'TD'), 'TD'),
        from,
        to,
        fa,
        idk: positiveInt(element(daXml, 'IDK'), 'IDK'),
        modulus: element(rsapk, 'M').trim(),
        exponent: element(rsapk, 'E').trim(),
        frma: element(cafXml, 'FRMA').trim(),
        cafXml,
        daXml,
        privateKeyPem,
    };
}
/** The CAF's public key (RSAPK) as a KeyObject. */
export function cafPublicKey(caf) {
    const b64url = (b64) => Buffer.from(b64, 'base64').toString('base64url');
    return createPublicKey({ key: { kty: 'RSA', n: b64url(caf.modulus), e: b64url(caf.exponent) }, format: 'jwk' });
}
const stripZeros = (b) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0)
        i++;
    return b.subarray(i);
};
/** True when RSASK is the private half of RSAPK (same modulus and exponent). */
export function cafKeyPairMatches(caf) {
    try {
        const jwk = createPrivateKey(caf.privateKeyPem).export({ format: 'jwk' });
        return (stripZeros(Buffer.from(jwk.n ?? '', 'base64url')).equals(stripZeros(Buffer.from(caf.modulus, 'base64'))) &&
            stripZeros(Buffer.from(jwk.e ?? '', 'base64url')).equals(stripZeros(Buffer.from(caf.exponent, 'base64'))));
    }
    catch {
        return false;
    }
}
/** FRMA verifies with one of the trusted keys (an SII key only for its own IDK). */
export function verifyCafSignature(caf, keys) {
    const data = Buffer.from(caf.daXml, 'latin1');
    const signature = Buffer.from(caf.frma, 'base64');
    return keys.some((k) => (k.idk === undefined || k.idk === caf.idk) && verify('sha1', data, k.key, signature));
}
const SII_CERTS_DIR = resolve('resources/sii/certs');
/** The SII's CAF-signing keys: IDK 100 (certification) and 300 (production). */
export function loadSiiCafKeys(dir = SII_CERTS_DIR) {
    return [100, 300].map((idk) => ({
        label: `SII IDK ${idk}`,
        idk,
        key: new X509Certificate(readFileSync(resolve(dir, `sii_caf_idk${idk}.cer`))).publicKey,
    }));
}
/** A PEM block (public key, RSA public key or certificate) as a key trusted for any IDK. */
export function parseTrustedKeyPem(pem, label) {
    const key = pem.includes('BEGIN CERTIFICATE') ? new X509Certificate(pem).publicKey : createPublicKey(pem);
    return { label, key };
}
/**
 * Expiry of a CAF: types 33, 43, 46, 56 and 61 may be used for 180 days after FA; the others
 * do not expire (docs/sii-reference.md §2, after LibreDTE `Caf::getFechaVencimiento`; SII error CAF-3-517).
 */
const EXPIRING_CAF_TYPES = [33, 43, 46, 56, 61];
const CAF_VALIDITY_DAYS = 180;
export function cafExpiresAt(caf) {
    if (!EXPIRING_CAF_TYPES.includes(caf.td))
        return null;
    return addDays(caf.fa, CAF_VALIDITY_DAYS);
}
/**
 * A CAF file (ISO-8859-1 text, as the SII's) for the given range with a fresh key pair.
 * Laid out like the SII's files: one element per line inside DA.
 */
export function generateCaf(input) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 512, publicExponent: 3 });
    const jwk = pair.publicKey.export({ format: 'jwk' });
    const m = Buffer.from(jwk.n ?? '', 'base64url').toString('base64');
    const e = Buffer.from(jwk.e ?? '', 'base64url').toString('base64');
    const da = `<DA><RE>${input.rut}</RE><RS>${escapeXml(toLatin1(input.name).slice(0, 40))}</RS><TD>${input.type}</TD>` +
        `<RNG><D>${input.from}</D><H>${input.to}</H></RNG><FA>${input.authorisedAt}</FA>` +
        `<RSAPK><M>${m}</M><E>${e}</E></RSAPK><IDK>${input.idk}</IDK></DA>`;
    const frma = sign('sha1', Buffer.from(da, 'latin1'), input.signerKey).toString('base64');
    // One child of DA per line, RNG and RSAPK kept whole on theirs, as in the SII's files.
    const daPrinted = da.replace(/><(?=\/DA>|RS>|TD>|RNG>|FA>|RSAPK>|IDK>)/g, '>\n<').replace('<DA><RE>', '<DA>\n<RE>');
    const privatePem = pair.privateKey.export({ type: 'pkcs1', format: 'pem' });
    const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' });
    return ('<?xml version="1.0"?>\n<AUTORIZACION>\n<CAF version="1.0">\n' +
        `${daPrinted}\n<FRMA algoritmo="SHA1withRSA">${frma}</FRMA>\n</CAF>\n` +
        `<RSASK>${privatePem}</RSASK>\n<RSAPUBK>${publicPem}</RSAPUBK>\n</AUTORIZACION>\n`);
}
