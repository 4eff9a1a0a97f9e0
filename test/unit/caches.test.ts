/**
 * The rules of the per-process caches (src/caches.ts) for what operators change: kept only
 * while the change feed is heard, dropped on a change notice, never "none", and a read that
 * raced a change is not stored.
 */
import { describe, expect, it } from 'vitest';
import { KeyCaches } from '../../src/caches.ts';
import type { Certificate } from '../../src/generated/prisma/client.ts';

const row = (id: string) => ({ id }) as Certificate;

describe('certificate lists in KeyCaches', () => {
  it('are not kept while the change feed is not heard', () => {
    const c = new KeyCaches();
    c.rememberCertificateList('i1', [row('a')], c.snapshot());
    expect(c.certificateList('i1')).toBeUndefined();
    c.setListening(true);
    c.rememberCertificateList('i1', [row('a')], c.snapshot());
    expect(c.certificateList('i1')).toEqual([row('a')]);
  });

  it('are dropped when the feed drops, and not served again until it is back (and re-read)', () => {
    const c = new KeyCaches();
    c.setListening(true);
    c.rememberCertificateList('i1', [row('a')], c.snapshot());
    c.setListening(false);
    expect(c.certificateList('i1')).toBeUndefined();
    c.setListening(true);
    expect(c.certificateList('i1')).toBeUndefined();
  });

  it('are dropped by a certificate change of their issuer only', () => {
    const c = new KeyCaches();
    c.setListening(true);
    c.rememberCertificateList('i1', [row('a')], c.snapshot());
    c.rememberCertificateList('i2', [row('b')], c.snapshot());
    c.apply({ kind: 'certificates', issuerId: 'i1' });
    expect(c.certificateList('i1')).toBeUndefined();
    expect(c.certificateList('i2')).toEqual([row('b')]);
  });

  it('never keep "no certificate"', () => {
    const c = new KeyCaches();
    c.setListening(true);
    c.rememberCertificateList('i1', [], c.snapshot());
    expect(c.certificateList('i1')).toBeUndefined();
  });

  it('do not store a read that began before a change arrived', () => {
    const c = new KeyCaches();
    c.setListening(true);
    const before = c.snapshot();
    c.apply({ kind: 'certificates', issuerId: 'i1' }); // the notice overtakes the slow read
    c.rememberCertificateList('i1', [row('stale')], before);
    expect(c.certificateList('i1')).toBeUndefined();
  });
});
