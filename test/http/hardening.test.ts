/** Idempotency-Key, rate limits, the OpenAPI document, secrets kept out of logs and rows. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCertificate } from '../../src/admin/certificates.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { ERROR_CATALOG } from '../../src/errors.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
let rut: string;
let key: string;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  key = await createTestKey(t.ctx, rut, 'owner');
  auth = { authorization: `Bearer ${key}` };
});

afterAll(async () => {
  await t.close();
});

const issue = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/api/${rut}/emitir`,
    headers: { ...auth, ...headers },
    payload: payload as object,
  });

describe('Idempotency-Key', () => {
  it('the same key and body returns the stored response: same folio, no new document', async () => {
    const first = await issue(factura(), { 'idempotency-key': 'order-1001' });
    expect(first.statusCode).toBe(200);
    const count = await t.ctx.db.prisma.document.count();
    const again = await issue(factura(), { 'idempotency-key': 'order-1001' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await t.ctx.db.prisma.document.count()).toBe(count);
  });

  it('the same key with a different body → 409 IDEMPOTENCY_KEY_REUSED', async () => {
    await issue(factura(), { 'idempotency-key': 'order-1002' });
    const res = await issue(factura({ date: '2026-01-05' }), { 'idempotency-key': 'order-1002' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('concurrent duplicates never take a second folio', async () => {
    const count = await t.ctx.db.prisma.document.count();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => issue(factura(), { 'idempotency-key': 'order-1003' })),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of results) expect([200, 409]).toContain(r.statusCode);
    expect(new Set(ok.map((r) => r.json().folio)).size).toBe(1);
    expect(await t.ctx.db.prisma.document.count()).toBe(count + 1);
  });

  it('a validation error is answered again the same way; keys are per issuer', async () => {
    const bad = await issue({ type: 33 }, { 'idempotency-key': 'bad-1' });
    expect(bad.statusCode).toBe(400);
    const again = await issue({ type: 33 }, { 'idempotency-key': 'bad-1' });
    expect(again.statusCode).toBe(400);
    const other = await createTestIssuer(t.ctx);
    const otherKey = await createTestKey(t.ctx, other.rut, 'owner');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${other.rut}/emitir`,
      headers: { authorization: `Bearer ${otherKey}`, 'idempotency-key': 'order-1001' },
      payload: factura(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('rate limits', () => {
  it('429 with Retry-After and RateLimit-* headers, per key', async () => {
    const limited = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const r = (await createTestIssuer(limited.ctx)).rut;
      const k1 = { authorization: `Bearer ${await createTestKey(limited.ctx, r, 'viewer')}` };
      const k2 = { authorization: `Bearer ${await createTestKey(limited.ctx, r, 'viewer')}` };
      const get = (h: Record<string, string>) =>
        limited.app.inject({ method: 'GET', url: `/api/${r}/emisiones`, headers: h });
      const first = await get(k1);
      expect(first.headers['ratelimit-limit']).toBe('3');
      expect(first.headers['ratelimit-remaining']).toBe('2');
      await get(k1);
      await get(k1);
      const over = await get(k1);
      expect(over.statusCode).toBe(429);
      expect(over.json().code).toBe('RATE_LIMITED');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect((await get(k2)).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('OpenAPI', () => {
  it('/openapi.json documents every route and every error code the API answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const path of [
      '/api/{rut}/emitir',
      '/api/{rut}/emisiones',
      '/api/{rut}/pdf/{type}/{folio}',
      '/api/{rut}/folios',
      '/api/{rut}/folios_sii',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    // The table lists the codes the API can answer (operator-only codes such as ISSUER_EXISTS
    // are the CLI's); each one is documented on an operation, or is the router's own.
    const documented = (doc['x-error-codes'] as Array<{ code: string; status: number }>).map((c) => c.code);
    for (const code of documented) expect(Object.keys(ERROR_CATALOG)).toContain(code);
    expect(documented).not.toContain('ISSUER_EXISTS');
    const text = JSON.stringify(doc.paths);
    for (const code of documented.filter((c) => c !== 'ROUTE_NOT_FOUND' && c !== 'METHOD_NOT_ALLOWED')) {
      expect(text).toContain(code);
    }
    const docs = await t.app.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(docs.statusCode);
  });
});

describe('secrets', () => {
  it('keys, certificate passwords and tokens never reach the logs', async () => {
    const { p12, password } = generateTestCertificate({ holderRut: '13185095-6', name: 'FIRMANTE' });
    await importCertificate(t.ctx, { rut, p12, password });
    const res = await issue(factura());
    const tk = new URL(res.json().pdf_url).searchParams.get('tk')!;
    await t.app.inject({ method: 'GET', url: `/api/${rut}/xml/33/${res.json().folio}?tk=${tk}` });
    await t.app.inject({ method: 'GET', url: `/api/${rut}/emisiones`, headers: { authorization: `Bearer ${key}x` } });
    const logs = t.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(password);
    expect(logs).not.toContain(tk);
    expect(logs).not.toMatch(/BEGIN (RSA )?PRIVATE KEY/);
    expect(logs).not.toContain('<DTE');
  });

  it('rows hold no key, PEM or password in clear', async () => {
    const { p12, password } = generateTestCertificate({ holderRut: '13185095-6', name: 'FIRMANTE DOS' });
    await importCertificate(t.ctx, { rut, p12, password });
    await issue(factura()); // creates the sandbox CAF with its private key
    const c = new pg.Client({ connectionString: t.db.url });
    await c.connect();
    try {
      const dump = async (table: string) => {
        const rows = await c.query(`SELECT * FROM ${table}`);
        return rows.rows
          .map((r) =>
            Object.values(r)
              .map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : JSON.stringify(v)))
              .join('|'),
          )
          .join('\n');
      };
      const certs = await dump('certificates');
      expect(certs).not.toContain(password);
      expect(certs).not.toContain(p12.toString('latin1').slice(0, 64));
      const cafs = await dump('cafs');
      expect(cafs).not.toMatch(/PRIVATE KEY/);
      expect(cafs).not.toContain('RSASK');
      const settings = await dump('settings');
      expect(settings).not.toMatch(/PRIVATE KEY/);
      const keys = await dump('api_keys');
      expect(keys).not.toContain(key);
      expect(keys).not.toContain(key.slice(14));
    } finally {
      await c.end();
    }
  });
});
