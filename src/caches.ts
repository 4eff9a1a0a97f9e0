/**
 * Per-process caches, as typed fields (parsing a .p12 or a PEM per signature would dominate
 * issuing time). Two kinds:
 *
 * - Immutable facts, kept for the life of the process: the parsed content of a certificate
 *   or CAF row (rows are never rewritten, so a row id always means the same bytes), the
 *   installation's sandbox CAF-signing key, an issuer's generated sandbox certificate.
 * - What an operator changes: the list of an issuer's imported certificates, and what a
 *   presented API key resolves to (the key row and its issuer: every authenticated request
 *   needs both, issuing included). The CLI (or another instance) changes them from another
 *   process, so they are kept only while this process hears the change feed
 *   (`src/db/change-feed.ts`, PostgreSQL LISTEN/NOTIFY), dropped on every change notice that
 *   may concern them (certificates; keys or the issuer), dropped whole when the feed drops or
 *   comes back (notices sent meanwhile are lost), and "not found" is never kept: an empty
 *   certificate list, an unknown or revoked key always go to the database. CAF imports are
 *   not cached at all.
 * - Recently served document files (src/file-cache.ts): immutable bytes, but whether
 *   they may be served depends on their issuer (active, environment), so they follow the same
 *   rules as the certificate lists: kept only while the feed is heard, an issuer's dropped on
 *   each of its issuer changes, all dropped when the feed drops or comes back.
 */
import type { KeyObject } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Caf as ParsedCaf } from './dte/caf.ts';
import type { SigningCertificate } from './dte/certificate.ts';
import type { ApiKey, Certificate, Issuer } from './generated/prisma/client.ts';
import { type CachedFile, FileCache } from './file-cache.ts';

/** What a presented API key resolves to, kept by the hash of the key. */
export interface CachedApiKey {
  id: string;
  role: ApiKey['role'];
  issuer: Issuer;
  /** When this process last recorded the key's use (written at most once an hour). */
  lastUsedAt: Date | null;
}

/** An operator change, as announced on the change feed (in the transaction that makes it). */
export type OperatorChange =
  | { kind: 'certificates'; issuerId: string }
  | { kind: 'cafs'; issuerId: string }
  | { kind: 'api_keys'; issuerId: string }
  | { kind: 'issuer'; issuerId: string };

export interface CafMaterial {
  caf: ParsedCaf;
  privateKey: KeyObject;
}

/** A deflate dictionary of stored document content (src/issuing/document-content.ts). */
export interface ContentDictionary {
  sha256: Buffer;
  bytes: Buffer;
}

/** Bounded, least recently used first out. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

/** Dictionaries kept in memory per process, each way (≤ 32 KB each). */
const CACHED_DICTIONARIES = 500;

/** The per-process dictionaries: by issuer and CAF for writing, by issuer and hash for reading. */
class ContentDictionaries {
  readonly writing = new Lru<Promise<ContentDictionary>>(CACHED_DICTIONARIES);
  readonly reading = new Lru<Buffer>(CACHED_DICTIONARIES);
}

export class KeyCaches {
  /** Parsed signing certificates by certificate row id. */
  readonly certificates = new Map<string, SigningCertificate>();
  /** Parsed CAFs and their private keys by CAF row id. */
  readonly cafs = new Map<string, CafMaterial>();
  /** Issuer RUTs by issuer id (a RUT never changes). */
  readonly issuerRuts = new Map<string, string>();
  /** The SMTP transport (one pool per process), created on the first e-mail. */
  mailTransport: Transporter | null = null;
  /** The generation (or lookup) of an issuer's sandbox certificate, shared by concurrent requests. */
  readonly sandboxCertificates = new Map<string, Promise<Certificate>>();
  /** `issuerId:type` pairs known to have at least one sandbox folio range (never undone). */
  readonly sandboxCafReady = new Set<string>();
  /** The installation's sandbox CAF-signing key, once read. */
  sandboxCafSigner: KeyObject | null = null;
  /** The dictionaries documents' content is packed against (immutable, content-addressed). */
  readonly contentDictionaries = new ContentDictionaries();
  /** A throwaway password hash, so that sign-in with an unknown e-mail costs as much as a real one. */
  dummyPasswordHash: Promise<string> | null = null;
  /** Passwords checked by this process (sign-in, change): tests count them against the limit. */
  passwordChecks = 0;

  /** Imported certificates of each issuer, newest first; only while the feed is heard. */
  private readonly certificateLists = new Map<string, Certificate[]>();
  /** Active API keys by the SHA-256 of the key; only while the feed is heard. */
  private readonly apiKeys = new Map<string, CachedApiKey>();
  /** Bumped by every change and reset: a read that began before one must not be stored. */
  private generation = 0;
  private listening = false;
  /** Recently served document files (src/file-cache.ts); only while the feed is heard. */
  readonly files: FileCache;

  constructor(opts: { fileCacheBytes?: number } = {}) {
    this.files = new FileCache(opts.fileCacheBytes ?? 0);
  }

  /** Whether operator-changeable data may be cached (the change feed is connected). */
  get trustworthy(): boolean {
    return this.listening;
  }

  /** The change feed connected (true) or dropped (false): either way, forget what it guarded. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.reset();
  }

  /** A token to pass to `rememberCertificateList`, taken before reading the database. */
  snapshot(): number {
    return this.generation;
  }

  certificateList(issuerId: string): Certificate[] | undefined {
    return this.listening ? this.certificateLists.get(issuerId) : undefined;
  }

  /** Keeps a non-empty list read since `snapshot`, unless a change arrived meanwhile. */
  rememberCertificateList(issuerId: string, rows: Certificate[], snapshot: number): void {
    if (!this.listening || rows.length === 0 || snapshot !== this.generation) return;
    this.certificateLists.set(issuerId, rows);
  }

  apiKey(hash: string): CachedApiKey | undefined {
    return this.listening ? this.apiKeys.get(hash) : undefined;
  }

  /** Keeps an active key read since `snapshot`, unless a change arrived meanwhile. */
  rememberApiKey(hash: string, entry: CachedApiKey, snapshot: number): void {
    if (!this.listening || snapshot !== this.generation) return;
    this.apiKeys.set(hash, entry);
  }

  /** A served file kept by `rememberFile`, if the feed is heard. */
  file(key: string): CachedFile | undefined {
    return this.listening ? this.files.get(key) : undefined;
  }

  /** Keeps a file read since `snapshot` (of an active issuer), unless a change arrived meanwhile. */
  rememberFile(key: string, file: CachedFile, snapshot: number): void {
    if (!this.listening || snapshot !== this.generation) return;
    this.files.set(key, file);
  }

  /** Applies a change notice (from the feed, or from this process right after its commit). */
  apply(change: OperatorChange): void {
    this.generation += 1;
    if (change.kind === 'certificates') this.certificateLists.delete(change.issuerId);
    if (change.kind === 'api_keys' || change.kind === 'issuer') {
      for (const [hash, entry] of this.apiKeys) if (entry.issuer.id === change.issuerId) this.apiKeys.delete(hash);
    }
    if (change.kind === 'issuer') this.files.forgetIssuer(change.issuerId);
  }

  /** Forgets everything operators can change. */
  reset(): void {
    this.generation += 1;
    this.certificateLists.clear();
    this.apiKeys.clear();
    this.files.clear();
  }
}

export function createKeyCaches(opts: { fileCacheBytes?: number } = {}): KeyCaches {
  return new KeyCaches(opts);
}
