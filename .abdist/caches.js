import { FileCache } from './file-cache.js';
/** Bounded, least recently used first out. */
class Lru {
    max;
    map = new Map();
    constructor(max) {
        this.max = max;
    }
    get(key) {
        const v = this.map.get(key);
        if (v !== undefined) {
            this.map.delete(key);
            this.map.set(key, v);
        }
        return v;
    }
    set(key, v) {
        this.map.delete(key);
        this.map.set(key, v);
        if (this.map.size > this.max)
            this.map.delete(this.map.keys().next().value);
    }
    delete(key) {
        this.map.delete(key);
    }
}
/** Dictionaries kept in memory per process, each way (≤ 32 KB each). */
const CACHED_DICTIONARIES = 500;
/** The per-process dictionaries: by issuer and CAF for writing, by issuer and hash for reading. */
class ContentDictionaries {
    writing = new Lru(CACHED_DICTIONARIES);
    reading = new Lru(CACHED_DICTIONARIES);
}
export class KeyCaches {
    /** Parsed signing certificates by certificate row id. */
    certificates = new Map();
    /** Parsed CAFs and their private keys by CAF row id. */
    cafs = new Map();
    /** Issuer RUTs by issuer id (a RUT never changes). */
    issuerRuts = new Map();
    /** The SMTP transport (one pool per process), created on the first e-mail. */
    mailTransport = null;
    /** The generation (or lookup) of an issuer's sandbox certificate, shared by concurrent requests. */
    sandboxCertificates = new Map();
    /** `issuerId:type` pairs known to have at least one sandbox folio range (never undone). */
    sandboxCafReady = new Set();
    /** The installation's sandbox CAF-signing key, once read. */
    sandboxCafSigner = null;
    /** The dictionaries documents' content is packed against (immutable, content-addressed). */
    contentDictionaries = new ContentDictionaries();
    /** A throwaway password hash, so that sign-in with an unknown e-mail costs as much as a real one. */
    dummyPasswordHash = null;
    /** Passwords checked by this process (sign-in, change): tests count them against the limit. */
    passwordChecks = 0;
    /** Imported certificates of each issuer, newest first; only while the feed is heard. */
    certificateLists = new Map();
    /** Active API keys by the SHA-256 of the key; only while the feed is heard. */
    apiKeys = new Map();
    /** Bumped by every change and reset: a read that began before one must not be stored. */
    generation = 0;
    listening = false;
    /** Recently served document files (src/file-cache.ts); only while the feed is heard. */
    files;
    constructor(opts = {}) {
        this.files = new FileCache(opts.fileCacheBytes ?? 0);
    }
    /** Whether operator-changeable data may be cached (the change feed is connected). */
    get trustworthy() {
        return this.listening;
    }
    /** The change feed connected (true) or dropped (false): either way, forget what it guarded. */
    setListening(listening) {
        this.listening = listening;
        this.reset();
    }
    /** A token to pass to `rememberCertificateList`, taken before reading the database. */
    snapshot() {
        return this.generation;
    }
    certificateList(issuerId) {
        return this.listening ? this.certificateLists.get(issuerId) : undefined;
    }
    /** Keeps a non-empty list read since `snapshot`, unless a change arrived meanwhile. */
    rememberCertificateList(issuerId, rows, snapshot) {
        if (!this.listening || rows.length === 0 || snapshot !== this.generation)
            return;
        this.certificateLists.set(issuerId, rows);
    }
    apiKey(hash) {
        return this.listening ? this.apiKeys.get(hash) : undefined;
    }
    /** Keeps an active key read since `snapshot`, unless a change arrived meanwhile. */
    rememberApiKey(hash, entry, snapshot) {
        if (!this.listening || snapshot !== this.generation)
            return;
        this.apiKeys.set(hash, entry);
    }
    /** A served file kept by `rememberFile`, if the feed is heard. */
    file(key) {
        return this.listening ? this.files.get(key) : undefined;
    }
    /** Keeps a file read since `snapshot` (of an active issuer), unless a change arrived meanwhile. */
    rememberFile(key, file, snapshot) {
        if (!this.listening || snapshot !== this.generation)
            return;
        this.files.set(key, file);
    }
    /** Applies a change notice (from the feed, or from this process right after its commit). */
    apply(change) {
        this.generation += 1;
        if (change.kind === 'certificates')
            this.certificateLists.delete(change.issuerId);
        if (change.kind === 'api_keys' || change.kind === 'issuer') {
            for (const [hash, entry] of this.apiKeys)
                if (entry.issuer.id === change.issuerId)
                    this.apiKeys.delete(hash);
        }
        if (change.kind === 'issuer')
            this.files.forgetIssuer(change.issuerId);
    }
    /** Forgets everything operators can change. */
    reset() {
        this.generation += 1;
        this.certificateLists.clear();
        this.apiKeys.clear();
        this.files.clear();
    }
}
export function createKeyCaches(opts = {}) {
    return new KeyCaches(opts);
}
