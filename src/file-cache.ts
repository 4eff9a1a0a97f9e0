/**
 * The files most recently served (a document's PDF per format, its signed XML), in memory, so
 * that a repeat download costs a token compare and a write instead of three queries and a
 * 70 KiB bytea parsed on the event loop (README "Hostile input and abuse": a public link looped by ten clients must not
 * slow other issuers' requests).
 *
 * Bounded by bytes (FILE_CACHE_MB), least recently served first out. What it holds never
 * goes stale by itself: a document's files depend only on what was stored at issue (model,
 * TED, signed XML, environment, token), which nothing rewrites; voiding and every other state
 * change alter the list and the events, not the files. What can change is whether a file may
 * be served at all — the issuer deactivated, or moved to the other environment so that the same
 * type and folio name another document — and both are issuer changes announced on the change
 * feed: `KeyCaches` drops the issuer's entries on each, everything when the feed drops, and
 * serves nothing from here while the feed is not heard (src/caches.ts).
 */
export interface CachedFile {
  /** The issuer whose change notices drop this entry. */
  issuerId: string;
  /** The document's public token: a keyless download must present it. */
  publicToken: string;
  filename: string;
  contentType: string;
  body: Buffer;
}

/** Bytes an entry is charged besides its body (the key, the strings, the objects). */
const ENTRY_OVERHEAD = 512;

export class FileCache {
  private readonly entries = new Map<string, CachedFile>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** The key of one served file: `variant` is `xml`, `pdf:letter` or `pdf:80mm`. */
  static key(rut: string, type: number, folio: number, variant: string): string {
    return `${rut}/${type}/${folio}/${variant}`;
  }

  /** Bytes held now (bodies plus a fixed overhead per entry); never above `maxBytes`. */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry, now the most recently used. */
  get(key: string): CachedFile | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Keeps `file`, dropping the least recently used entries to stay within the bound. */
  set(key: string, file: CachedFile): void {
    this.delete(key);
    const cost = costOf(file);
    if (cost > this.maxBytes) return; // larger than the whole cache: served from the database
    for (const [oldest] of this.entries) {
      if (this.used + cost <= this.maxBytes) break;
      this.delete(oldest);
    }
    this.entries.set(key, file);
    this.used += cost;
  }

  /** Drops every entry of one issuer (an issuer change: deactivated, other environment). */
  forgetIssuer(issuerId: string): void {
    for (const [key, entry] of this.entries) if (entry.issuerId === issuerId) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.used -= costOf(entry);
  }
}

function costOf(file: CachedFile): number {
  return file.body.length + ENTRY_OVERHEAD;
}
