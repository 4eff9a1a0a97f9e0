/**
 * The memory of served files (src/file-cache.ts): bounded by bytes, least recently
 * served out first; and, inside KeyCaches, the change-feed rules — nothing kept or served while
 * the feed is not heard, an issuer's files dropped on its issuer changes, a read that raced a
 * change not kept.
 */
import { describe, expect, it } from 'vitest';
import { KeyCaches } from '../../src/caches.ts';
import { type CachedFile, FileCache } from '../../src/file-cache.ts';
import { seededRandom, testSeed } from '../helpers/seed.ts';

const KIB = 1024;

function file(issuerId: string, bytes: number): CachedFile {
  return {
    issuerId,
    publicToken: `tk-${issuerId}`,
    filename: 'DTE.pdf',
    contentType: 'application/pdf',
    body: Buffer.alloc(bytes, 1),
  };
}

describe('FileCache', () => {
  it('never holds more than its bound, whatever is put in', () => {
    const random = seededRandom(testSeed(import.meta.url));
    const cache = new FileCache(32 * KIB);
    for (let i = 0; i < 2_000; i++) {
      const key = `k${Math.floor(random() * 50)}`;
      if (random() < 0.3) cache.get(key);
      else cache.set(key, file(`i${i % 3}`, Math.floor(random() * 12 * KIB)));
      expect(cache.bytes).toBeLessThanOrEqual(32 * KIB);
    }
    expect(cache.size).toBeGreaterThan(0);
  });

  it('drops the least recently served first', () => {
    const cache = new FileCache(3 * (10 * KIB + 512));
    cache.set('a', file('i', 10 * KIB));
    cache.set('b', file('i', 10 * KIB));
    cache.set('c', file('i', 10 * KIB));
    expect(cache.get('a')).toBeDefined(); // a served again: b is now the oldest
    cache.set('d', file('i', 10 * KIB));
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((k) => cache.get(k) !== undefined)).toEqual([true, true, true]);
    expect(cache.bytes).toBe(3 * (10 * KIB + 512));
  });

  it('keeps nothing larger than itself, and replacing an entry frees the old bytes', () => {
    const cache = new FileCache(64 * KIB);
    cache.set('big', file('i', 64 * KIB));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.bytes).toBe(0);
    cache.set('a', file('i', 20 * KIB));
    cache.set('a', file('i', 30 * KIB));
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(30 * KIB + 512);
    expect(new FileCache(0).bytes).toBe(0);
    const none = new FileCache(0);
    none.set('a', file('i', 1));
    expect(none.size).toBe(0);
  });

  it('forgets one issuer’s files only', () => {
    const cache = new FileCache(1024 * KIB);
    cache.set('a1', file('a', KIB));
    cache.set('b1', file('b', KIB));
    cache.set('a2', file('a', KIB));
    cache.forgetIssuer('a');
    expect([cache.get('a1'), cache.get('a2')]).toEqual([undefined, undefined]);
    expect(cache.get('b1')?.issuerId).toBe('b');
    expect(cache.bytes).toBe(KIB + 512);
  });
});

describe('served files in KeyCaches', () => {
  const key = FileCache.key('76086428-5', 33, 1, 'pdf:letter');

  it('are neither kept nor served while the change feed is not heard', () => {
    const c = new KeyCaches({ fileCacheBytes: 1024 * KIB });
    c.rememberFile(key, file('i1', KIB), c.snapshot());
    expect(c.file(key)).toBeUndefined();
    c.setListening(true);
    c.rememberFile(key, file('i1', KIB), c.snapshot());
    expect(c.file(key)).toBeDefined();
    c.setListening(false);
    expect(c.file(key)).toBeUndefined();
    c.setListening(true);
    expect(c.file(key)).toBeUndefined(); // notices may have been missed meanwhile
  });

  it('are dropped by an issuer change of their issuer, not by other changes', () => {
    const c = new KeyCaches({ fileCacheBytes: 1024 * KIB });
    c.setListening(true);
    const other = FileCache.key('76354771-K', 33, 1, 'xml');
    c.rememberFile(key, file('i1', KIB), c.snapshot());
    c.rememberFile(other, file('i2', KIB), c.snapshot());
    for (const kind of ['certificates', 'cafs', 'api_keys'] as const) c.apply({ kind, issuerId: 'i1' });
    expect(c.file(key)).toBeDefined();
    c.apply({ kind: 'issuer', issuerId: 'i1' });
    expect(c.file(key)).toBeUndefined();
    expect(c.file(other)).toBeDefined();
  });

  it('read across a change are not kept', () => {
    const c = new KeyCaches({ fileCacheBytes: 1024 * KIB });
    c.setListening(true);
    const snapshot = c.snapshot();
    c.apply({ kind: 'issuer', issuerId: 'i1' });
    c.rememberFile(key, file('i1', KIB), snapshot);
    expect(c.file(key)).toBeUndefined();
  });
});
