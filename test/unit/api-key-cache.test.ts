/**
 * What a presented API key resolves to, kept in KeyCaches (src/caches.ts) so that an issue
 * reads neither the key nor the issuer: kept and served only while the change feed is heard,
 * dropped by a key or issuer change of its issuer (from the CLI, the dashboard or another
 * instance), and a read that raced a change is not kept. Unknown and revoked keys are never
 * offered to the cache (src/admin/api-keys.ts); the two-instance behaviour is in
 * test/issuing/operator-changes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type CachedApiKey, KeyCaches } from '../../src/caches.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';

function entry(issuerId: string): CachedApiKey {
  return { id: `key-${issuerId}`, role: 'owner', issuer: { id: issuerId } as Issuer, lastUsedAt: null };
}

describe('API keys in KeyCaches', () => {
  it('are neither kept nor served while the change feed is not heard', () => {
    const c = new KeyCaches();
    c.rememberApiKey('h1', entry('i1'), c.snapshot());
    expect(c.apiKey('h1')).toBeUndefined();
    c.setListening(true);
    c.rememberApiKey('h1', entry('i1'), c.snapshot());
    expect(c.apiKey('h1')?.id).toBe('key-i1');
    c.setListening(false);
    expect(c.apiKey('h1')).toBeUndefined();
    c.setListening(true);
    expect(c.apiKey('h1')).toBeUndefined(); // notices may have been missed meanwhile
  });

  it('are dropped by a key or issuer change of their issuer, not by other changes', () => {
    const c = new KeyCaches();
    c.setListening(true);
    c.rememberApiKey('h1', entry('i1'), c.snapshot());
    c.rememberApiKey('h2', entry('i2'), c.snapshot());
    for (const kind of ['certificates', 'cafs'] as const) c.apply({ kind, issuerId: 'i1' });
    expect(c.apiKey('h1')).toBeDefined();
    c.apply({ kind: 'api_keys', issuerId: 'i1' });
    expect(c.apiKey('h1')).toBeUndefined();
    expect(c.apiKey('h2')).toBeDefined();
    c.apply({ kind: 'issuer', issuerId: 'i2' });
    expect(c.apiKey('h2')).toBeUndefined();
  });

  it('read across a change are not kept', () => {
    const c = new KeyCaches();
    c.setListening(true);
    const snapshot = c.snapshot();
    c.apply({ kind: 'api_keys', issuerId: 'i9' });
    c.rememberApiKey('h1', entry('i1'), snapshot);
    expect(c.apiKey('h1')).toBeUndefined();
  });
});
