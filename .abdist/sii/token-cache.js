/**
 * SII tokens, cached per certificate and service (docs/sii-reference.md §7.2 step 4, §7.6: a DTEWS token
 * is not valid for the boleta API and vice versa).
 *
 * - An entry lives `ttlMs` from the moment its token was obtained. The SII does not publish a
 *   lifetime; tokens are known to survive well beyond LibreDTE's conservative 60 s, and a
 *   stale one costs only one extra round trip, because callers drop it and re-authenticate
 *   once when the SII says it is no good (`invalidate`).
 * - Concurrent callers share one in-flight authentication: the entry holds the promise.
 * - A failed authentication leaves nothing behind, so the next call tries again.
 * - `invalidate` drops an entry only if it still holds the token that was refused, so a
 *   caller that saw an old token refused does not throw away a fresh one another caller has
 *   just obtained.
 *
 * One instance per client; no module state (docs/style.md §1).
 */
export class TokenCache {
    ttlMs;
    now;
    entries = new Map();
    constructor(ttlMs, now) {
        this.ttlMs = ttlMs;
        this.now = now;
    }
    /** The cached token for `key`, or the one `obtain` gets (shared by concurrent callers). */
    get(key, obtain) {
        const cached = this.entries.get(key);
        if (cached && (cached.expiresAt === undefined || cached.expiresAt > this.now()))
            return cached.promise;
        const entry = {
            promise: Promise.resolve()
                .then(obtain)
                .then((token) => {
                entry.token = token;
                entry.expiresAt = this.now() + this.ttlMs;
                return token;
            }, (error) => {
                if (this.entries.get(key) === entry)
                    this.entries.delete(key);
                throw error;
            }),
        };
        this.entries.set(key, entry);
        return entry.promise;
    }
    /** Forgets `token` for `key` after the SII refused it. */
    invalidate(key, token) {
        if (this.entries.get(key)?.token === token)
            this.entries.delete(key);
    }
}
