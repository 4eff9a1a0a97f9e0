/**
 * Encryption of secrets at rest (docs/design.md §7): certificates (.p12 and password) and CAF private
 * keys are stored as AES-256-GCM envelopes `v1 | iv(12) | tag(16) | ciphertext`. The master key
 * comes from TIMBRE_MASTER_KEY, or in the embedded default from `<dataDir>/master.key`,
 * generated once with mode 0600.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const VERSION = 1;
export function createSecretBox(key) {
    if (key.length !== 32)
        throw new Error('The master key must be 32 bytes.');
    return {
        seal(plain) {
            const iv = randomBytes(12);
            const cipher = createCipheriv('aes-256-gcm', key, iv);
            const body = Buffer.concat([
                cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain),
                cipher.final(),
            ]);
            return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
        },
        derive(purpose) {
            return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `timbre:${purpose}`, 32));
        },
        open(envelope) {
            const buf = Buffer.from(envelope);
            if (buf[0] !== VERSION || buf.length < 29)
                throw new Error('Unknown secret envelope format.');
            const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 13));
            decipher.setAuthTag(buf.subarray(13, 29));
            return Buffer.concat([decipher.update(buf.subarray(29)), decipher.final()]);
        },
    };
}
/** Parses a 32-byte key written as base64 / base64url or hex. */
function parseMasterKey(text) {
    const t = text.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
    if (key.length !== 32)
        throw new Error('TIMBRE_MASTER_KEY must be 32 bytes, base64 or hex encoded.');
    return key;
}
/** TIMBRE_MASTER_KEY when set, else `<dataDir>/master.key` (created on first use). */
export function resolveMasterKey(configured, dataDir) {
    if (configured)
        return { key: parseMasterKey(configured), source: 'TIMBRE_MASTER_KEY' };
    const path = join(dataDir, 'master.key');
    if (!existsSync(path)) {
        mkdirSync(dataDir, { recursive: true, mode: 0o755 });
        try {
            writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
        }
        catch (e) {
            if (e.code !== 'EEXIST')
                throw e;
        }
    }
    return { key: parseMasterKey(readFileSync(path, 'utf8')), source: path };
}
