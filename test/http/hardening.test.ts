/** Idempotency-Key, rate limits, the OpenAPI document, secrets kept out of logs and rows. */
import pg from 'pg';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { importCertificate } from '../../src/admin/certificates.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { ERROR_CATALOG } from '../../src/errors.ts';
import { buildTestApp, createTestKey, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { manualClock } from '../helpers/time.ts';

let t: TestApp;
let rut: string;
let key: string;
let api: KeyClient;

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  ({ rut, key, api } = await createTestTenant(t));
});

const issue = (payload: unknown, headers: Record<string, string> = {}) =>
  api.post(`/api/${rut}/emitir`, payload, headers);

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

  it('concurrent duplicates wait for the first and all get its answer: one folio, one document', async () => {
    const count = await t.ctx.db.prisma.document.count();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => issue(factura(), { 'idempotency-key': 'order-1003' })),
    );
    // Issuing takes well under the 15 s a duplicate waits: every one is answered 200.
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    expect(new Set(results.map((r) => r.json().folio)).size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect(await t.ctx.db.prisma.document.count()).toBe(count + 1);
  });

  it('a duplicate of a request still running waits for its answer and replays it', async () => {
    const { issuer, api: own } = await createTestTenant(t);
    const { row: running, first } = await claimStillRunning(own, issuer.rut, 'slow-1');
    let answered = false;
    const duplicate = own.post(`/api/${issuer.rut}/emitir`, factura(), { 'idempotency-key': 'slow-1' }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300)); // let the duplicate arrive (it passes either way)
    expect(answered).toBe(false);
    // The first request answers now.
    const stored = first;
    await t.ctx.db.prisma.idempotencyKey.update({
      where: { id: running.id },
      data: { status: 'done', responseStatus: 200, responseBody: stored },
    });
    const res = await duplicate;
    expect(res.statusCode).toBe(200);
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(res.json()).toEqual(stored);
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(1);
  });

  it('a duplicate of a request that runs longer than the wait gets 409 IDEMPOTENCY_IN_PROGRESS and Retry-After', async () => {
    const { issuer, api: own } = await createTestTenant(t);
    await claimStillRunning(own, issuer.rut, 'stuck-1');
    const res = await own.post(`/api/${issuer.rut}/emitir`, factura(), { 'idempotency-key': 'stuck-1' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ ok: false, code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(1);
  });

  it('a retry after the first process died between committing and answering gets that document', async () => {
    const clock = manualClock();
    const crashed = await buildTestApp({ clock, shareDatabaseOf: t });
    const { issuer, key: k } = await createTestTenant(crashed);
    const { first } = await claimStillRunning(crashed.as(k), issuer.rut, 'crash-1', {
      keepDocument: true,
      lockedAt: clock(),
    });
    // The dead process's claim is taken over once it is a minute old.
    clock.advance(61_000);
    const retry = await crashed.as(k).post(`/api/${issuer.rut}/emitir`, factura(), { 'idempotency-key': 'crash-1' });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toMatchObject({ ok: true, folio: first.folio, type: 33, pdf_url: first.pdf_url });
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(1);
    // …and from then on it is an ordinary replay.
    const again = await crashed.as(k).post(`/api/${issuer.rut}/emitir`, factura(), { 'idempotency-key': 'crash-1' });
    expect(again.json()).toEqual(retry.json());
  });

  it('keys are 1 to 255 printable ASCII characters; anything else is a 400 naming the header and takes no folio', async () => {
    const { issuer, api: own } = await createTestTenant(t);
    const longest = '~'.repeat(255);
    const ok = await own.post(`/api/${issuer.rut}/emitir`, factura(), { 'idempotency-key': longest });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await own.post(`/api/${issuer.rut}/emitir`, factura(), { 'idempotency-key': longest })).json().folio).toBe(
      ok.json().folio,
    );
    for (const bad of ['~'.repeat(256), 'order 1', 'pedido-ñ', '']) {
      const res = await own.post(`/api/${issuer.rut}/emitir`, factura(), { 'idempotency-key': bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json()).toMatchObject({
        ok: false,
        code: 'VALIDATION_FAILED',
        details: [{ path: 'Idempotency-Key' }],
      });
    }
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(1);
  });

  it('a key is kept 24 hours: replayed until then, a new request after', async () => {
    const clock = manualClock('2026-11-23T15:00:00Z');
    const clocked = await buildTestApp({ clock, shareDatabaseOf: t });
    const { issuer, key: k } = await createTestTenant(clocked);
    const post = (body: unknown) =>
      clocked.as(k).post(`/api/${issuer.rut}/emitir`, body, { 'idempotency-key': 'daily-1' });
    const first = await post(factura());
    expect(first.statusCode, first.body).toBe(200);
    clock.advance(24 * 3600_000 - 1000);
    const replay = await post(factura());
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().folio).toBe(first.json().folio);
    expect((await post(factura({ date: '2026-11-20' }))).statusCode).toBe(409);
    clock.advance(2000);
    const fresh = await post(factura({ date: '2026-11-20' }));
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json().folio).toBe(first.json().folio + 1);
  });

  it('a validation error is answered again the same way; keys are per issuer', async () => {
    const bad = await issue({ type: 33 }, { 'idempotency-key': 'bad-1' });
    expect(bad.statusCode).toBe(400);
    const again = await issue({ type: 33 }, { 'idempotency-key': 'bad-1' });
    expect(again.statusCode).toBe(400);
    await issue(factura(), { 'idempotency-key': 'order-1001' });
    const other = await createTestTenant(t);
    const res = await other.api.post(`/api/${other.rut}/emitir`, factura(), { 'idempotency-key': 'order-1001' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('rate limits', () => {
  it('429 with Retry-After and RateLimit-* headers, per key; RateLimit-Reset counts down to a new window', async () => {
    const clock = manualClock('2026-11-23T12:00:00Z');
    const limited = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' }, clock });
    const { rut: r, key: k1 } = await createTestTenant(limited, { role: 'viewer' });
    const k2 = await createTestKey(limited.ctx, r, 'viewer');
    const get = (k: string) => limited.as(k).get(`/api/${r}/emisiones`);
    const first = await get(k1);
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect(first.headers['ratelimit-remaining']).toBe('2');
    expect(first.headers['ratelimit-reset']).toBe('60');
    clock.advance(20_000);
    const second = await get(k1);
    expect(second.headers['ratelimit-remaining']).toBe('1');
    expect(second.headers['ratelimit-reset']).toBe('40');
    await get(k1);
    clock.advance(15_500);
    const over = await get(k1);
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('RATE_LIMITED');
    expect(over.headers['ratelimit-remaining']).toBe('0');
    // 24.5 s of the window left: both headers round up to whole seconds.
    expect(over.headers['ratelimit-reset']).toBe('25');
    expect(over.headers['retry-after']).toBe('25');
    expect((await get(k2)).statusCode).toBe(200);
    // When the window is over the key may call again, with a full allowance.
    clock.advance(24_500);
    const fresh = await get(k1);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['ratelimit-remaining']).toBe('2');
    expect(fresh.headers['ratelimit-reset']).toBe('60');
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
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('secrets', () => {
  it('keys, certificate passwords and tokens never reach the logs', async () => {
    const { p12, password } = generateTestCertificate({ holderRut: '13185095-6', name: 'FIRMANTE' });
    await importCertificate(t.ctx, { rut, p12, password });
    const res = await issue(factura());
    const tk = new URL(res.json().pdf_url).searchParams.get('tk')!;
    await t.app.inject({ method: 'GET', url: `/api/${rut}/xml/33/${res.json().folio}?tk=${tk}` });
    await t.as(`${key}x`).get(`/api/${rut}/emisiones`);
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

/**
 * The state a first request with `key` leaves while it is still running (or after its process
 * died): the key claimed, no answer recorded. Made from a real request (so the stored request
 * fingerprint is the real one), then set back to `in_progress`; `keepDocument` keeps the link
 * to the document it committed (a crash between the commit and the answer).
 */
async function claimStillRunning(
  api: KeyClient,
  rut: string,
  key: string,
  opts: { keepDocument?: boolean; lockedAt?: Date } = {},
) {
  const first = await api.post(`/api/${rut}/emitir`, factura(), { 'idempotency-key': key });
  expect(first.statusCode, first.body).toBe(200);
  const row = await t.ctx.db.prisma.idempotencyKey.findFirstOrThrow({ where: { key } });
  await t.ctx.db.prisma.idempotencyKey.update({
    where: { id: row.id },
    data: {
      status: 'in_progress',
      responseStatus: null,
      responseBody: Prisma.DbNull,
      lockedAt: opts.lockedAt ?? new Date(),
      ...(!opts.keepDocument && { documentId: null }),
    },
  });
  return { row, first: first.json() };
}
