/**
 * Abuse without a key (README "Hostile input and abuse"): failed attempts are limited per client address before any key
 * or token is looked at; a failed download says nothing about who uses Timbre; PDFs are
 * rendered once and never on the event loop; security headers on every answer; secrets never
 * reach the logs whatever their spelling.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deactivateIssuer } from '../../src/admin/issuers.ts';
import { redactUrl } from '../../src/logger.ts';
import { buildTestApp, createTestIssuer, createTestKey, nextRut, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { pdfPageCount } from '../helpers/verify.ts';

let t: TestApp;
let rut: string;
let key: string;
let doc: { folio: number; pdf_url: string; xml_url: string };

beforeAll(async () => {
  t = await buildTestApp({ env: { AUTH_FAILURES_PER_MINUTE: '5', RATE_LIMIT_PER_MINUTE: '100000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  key = await createTestKey(t.ctx, rut, 'owner');
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${rut}/emitir`,
    headers: { authorization: `Bearer ${key}` },
    payload: factura(),
  });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});

afterAll(async () => {
  await t.close();
});

const rel = (url: string) => url.replace('http://timbre.test', '');
let address = 0;
/** A fresh client address per test, so the failure windows of tests do not mix. */
const nextAddress = () => `198.51.100.${++address}`;

function get(url: string, remoteAddress: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, remoteAddress, headers });
}

describe('failed attempts are limited per client address, before authentication', () => {
  it('an unknown key: 5 × 401, then 429 with Retry-After, without looking the key up', async () => {
    const ip = nextAddress();
    const bad = { authorization: 'Bearer timbre_live_0000000000000000000000000000000000' };
    for (let i = 0; i < 5; i++) expect((await get(`/api/${rut}/emisiones`, ip, bad)).statusCode).toBe(401);
    const lookups = vi.spyOn(t.ctx.db.prisma.apiKey, 'findUnique');
    try {
      const limited = await get(`/api/${rut}/emisiones`, ip, bad);
      expect(limited.statusCode).toBe(429);
      expect(limited.json().code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Even a valid key from that address waits: the check comes before authentication.
      const valid = await get(`/api/${rut}/emisiones`, ip, { authorization: `Bearer ${key}` });
      expect(valid.statusCode).toBe(429);
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
    // Another address is not affected.
    expect((await get(`/api/${rut}/emisiones`, nextAddress(), { authorization: `Bearer ${key}` })).statusCode).toBe(
      200,
    );
  });

  it("403s on another issuer's path count too", async () => {
    const ip = nextAddress();
    const other = await createTestIssuer(t.ctx);
    const viewer = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'viewer')}` };
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) codes.push((await get(`/api/${other.rut}/emisiones`, ip, viewer)).statusCode);
    expect(codes).toEqual([403, 403, 403, 403, 403, 429, 429]);
  });

  it('bad document tokens count, and a limited address cannot download even with the right token', async () => {
    const ip = nextAddress();
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await get(`/api/${rut}/xml/33/${doc.folio}?tk=guess${i}`, ip)).statusCode);
    expect(codes).toEqual([404, 404, 404, 404, 404, 429]);
    expect((await get(rel(doc.xml_url), ip)).statusCode).toBe(429);
    expect((await get(rel(doc.xml_url), nextAddress())).statusCode).toBe(200);
  });

  it('successful requests do not count', async () => {
    const ip = nextAddress();
    for (let i = 0; i < 8; i++) expect((await get(rel(doc.xml_url), ip)).statusCode).toBe(200);
  });

  it('behind a trusted proxy the client address comes from X-Forwarded-For', async () => {
    const proxied = await buildTestApp({ env: { AUTH_FAILURES_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' } });
    try {
      const call = (client: string) =>
        proxied.app.inject({
          method: 'GET',
          url: `/api/${rut}/emisiones`,
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': client },
        });
      expect([(await call('203.0.113.1')).statusCode, (await call('203.0.113.1')).statusCode]).toEqual([401, 401]);
      expect((await call('203.0.113.1')).statusCode).toBe(429);
      expect((await call('203.0.113.2')).statusCode).toBe(401);
    } finally {
      await proxied.close();
    }
  });
});

describe('one answer for every failed download', () => {
  it('a wrong issuer, inactive issuer, unused folio, wrong token or malformed RUT: the same 404', async () => {
    const tk = new URL(doc.pdf_url).searchParams.get('tk')!;
    const inactive = await createTestIssuer(t.ctx);
    await deactivateIssuer(t.ctx, inactive.rut);
    const answers = await Promise.all(
      [
        `/api/${nextRut()}/pdf/33/${doc.folio}?tk=${tk}`,
        `/api/${inactive.rut}/pdf/33/${doc.folio}?tk=${tk}`,
        `/api/${rut}/pdf/33/999999?tk=${tk}`,
        `/api/${rut}/pdf/34/${doc.folio}?tk=${tk}`,
        `/api/${rut}/pdf/33/${doc.folio}?tk=${tk}x`,
        `/api/not-a-rut/pdf/33/${doc.folio}?tk=${tk}`,
      ].map((url) => get(url, nextAddress())),
    );
    const bodies = answers.map((r) => {
      const { request_id: _, ...rest } = r.json();
      return { status: r.statusCode, ...rest };
    });
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toMatchObject({ status: 404, code: 'DOCUMENT_NOT_FOUND' });
    expect(bodies[0]!.error).not.toContain(rut);
  });

  it("the keyed path keeps its 403 for another issuer's key", async () => {
    const other = await createTestIssuer(t.ctx);
    const otherKey = await createTestKey(t.ctx, other.rut, 'owner');
    const res = await get(`/api/${rut}/pdf/33/${doc.folio}`, nextAddress(), { authorization: `Bearer ${otherKey}` });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN_ISSUER');
  });
});

describe('PDF downloads', () => {
  it('are rendered once and stored; repeat downloads serve the stored bytes, in both formats', async () => {
    const id = (
      await t.ctx.db.prisma.document.findFirstOrThrow({ where: { type: 33, folio: doc.folio, issuer: { rut } } })
    ).id;
    const first = await get(rel(doc.pdf_url), nextAddress());
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/pdf');
    const stored = await t.ctx.db.prisma.documentFile.findMany({ where: { documentId: id } });
    expect(stored.map((f) => f.format)).toEqual(['letter']);
    expect(Buffer.from(stored[0]!.body).equals(first.rawPayload)).toBe(true);
    const again = await get(rel(doc.pdf_url), nextAddress());
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    const roll = await get(`${rel(doc.pdf_url)}&format=80mm`, nextAddress());
    expect(roll.statusCode).toBe(200);
    expect(pdfPageCount(roll.rawPayload)).toBeGreaterThanOrEqual(1);
    expect(roll.rawPayload.equals(first.rawPayload)).toBe(false);
    expect(await t.ctx.db.prisma.documentFile.count({ where: { documentId: id } })).toBe(2);
  });

  it('a 1000-line boleta renders off the event loop: the main thread mostly waits', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ name: `Artículo ${i + 1}`, qty: 1, price: 990 + i }));
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/emitir`,
      headers: { authorization: `Bearer ${key}` },
      payload: { type: 39, items },
    });
    expect(res.statusCode).toBe(200);
    // Event-loop utilisation over the download: the share of the time the main thread was busy.
    // Rendering on it (over a second of CPU for 1000 lines) keeps it near 1; in a worker the
    // main thread mostly waits.
    const before = performance.eventLoopUtilization();
    const done = await get(rel(res.json().pdf_url), nextAddress());
    const busy = performance.eventLoopUtilization(before).utilization;
    expect(done.statusCode).toBe(200);
    expect(busy).toBeLessThan(0.5);
    expect(pdfPageCount(done.rawPayload)).toBeGreaterThan(10);
  });
});

describe('security headers', () => {
  it.each([
    ['the API', () => get(`/api/${rut}/emisiones`, nextAddress(), { authorization: `Bearer ${key}` })],
    ['an error', () => get('/api/nothing', nextAddress())],
    ['a PDF download', () => get(rel(doc.pdf_url), nextAddress())],
    ['an XML download', () => get(rel(doc.xml_url), nextAddress())],
    ['the docs page', () => get('/docs/', nextAddress())],
  ])('on %s', async (_, call) => {
    const res = await call();
    expect(res.statusCode).toBeLessThan(500);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline'; script");
  });

  it('the docs page still loads its own scripts and the OpenAPI document', async () => {
    const page = await get('/docs/', nextAddress());
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)/);
    expect((await get('/docs/static/swagger-initializer.js', nextAddress())).statusCode).toBe(200);
    expect((await get('/openapi.json', nextAddress())).statusCode).toBe(200);
  });
});

describe('secrets never reach the logs', () => {
  it.each([
    ['/x?tk=SECRET1', '/x?tk=[REDACTED]'],
    ['/x?t%6B=SECRET1&a=1', '/x?t%6B=[REDACTED]&a=1'],
    ['/x?TK=SECRET1', '/x?TK=[REDACTED]'],
    ['/x?api_key=SECRET1', '/x?api_key=[REDACTED]'],
    ['/x?API-Key=SECRET1;b=2', '/x?API-Key=[REDACTED];b=2'],
    ['/x?access_token=SECRET1', '/x?access_token=[REDACTED]'],
    ['/x?a=1&client%5Fsecret=SECRET1', '/x?a=1&client%5Fsecret=[REDACTED]'],
    ['/x?pass%word=SECRET1', '/x?pass%word=[REDACTED]'],
    ['/x?q=hola&page=2', '/x?q=hola&page=2'],
  ])('redactUrl(%s)', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('a token sent as ?t%6B= opens the document but is not logged; nor is ?api_key=', async () => {
    const tk = new URL(doc.xml_url).searchParams.get('tk')!;
    const res = await get(`/api/${rut}/xml/33/${doc.folio}?t%6B=${tk}`, nextAddress());
    expect(res.statusCode).toBe(200);
    await get(`/api/${rut}/emisiones?api_key=${key}`, nextAddress());
    await get(`/api/${rut}/emisiones?TK=${tk}`, nextAddress());
    const logs = t.logs.join('');
    expect(logs).toContain('t%6B=[REDACTED]');
    expect(logs).not.toContain(tk);
    expect(logs).not.toContain(key);
  });
});
