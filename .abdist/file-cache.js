/** Bytes an entry is charged besides its body (the key, the strings, the objects). */
const ENTRY_OVERHEAD = 512;
export class FileCache {
    maxBytes;
    entries = new Map();
    used = 0;
    constructor(maxBytes) {
        this.maxBytes = maxBytes;
    }
    /** The key of one served file: `variant` is `xml`, `pdf:letter` or `pdf:80mm`. */
    static key(rut, type, folio, variant) {
        return `${rut}/${type}/${folio}/${variant}`;
    }
    /** Bytes held now (bodies plus a fixed overhead per entry); never above `maxBytes`. */
    get bytes() {
        return this.used;
    }
    get size() {
        return this.entries.size;
    }
    /** The entry, now the most recently used. */
    get(key) {
        const entry = this.entries.get(key);
        if (!entry)
            return undefined;
        this.entries.delete(key);
        this.entries.set(key, entry);
        return entry;
    }
    /** Keeps `file`, dropping the least recently used entries to stay within the bound. */
    set(key, file) {
        this.delete(key);
        const cost = costOf(file);
        if (cost > this.maxBytes)
            return; // larger than the whole cache: served from the database
        for (const [oldest] of this.entries) {
            if (this.used + cost <= this.maxBytes)
                break;
            this.delete(oldest);
        }
        this.entries.set(key, file);
        this.used += cost;
    }
    /** Drops every entry of one issuer (an issuer change: deactivated, other environment). */
    forgetIssuer(issuerId) {
        for (const [key, entry] of this.entries)
            if (entry.issuerId === issuerId)
                this.delete(key);
    }
    clear() {
        this.entries.clear();
        this.used = 0;
    }
    delete(key) {
        const entry = this.entries.get(key);
        if (!entry)
            return;
        this.entries.delete(key);
        this.used -= costOf(entry);
    }
}
function costOf(file) {
    return file.body.length + ENTRY_OVERHEAD;
}
