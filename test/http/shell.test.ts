/** The HTTP shell: error envelope on every error, request ids, body limits (docs/design.md §5). */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let rut: string;
let api: KeyClient;

beforeAll(async () => {
  t = await buildTestApp();
  ({ rut, api } = await createTestTenant(t));
});

function expectEnvelope(res: { json(): any; headers: Record<string, unknown> }, code: string) {
  const body = res.json();
  expect(body).toMatchObject({ ok: false, code });
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  expect(body.request_id).toBe(res.headers['x-request-id']);
}

describe('error envelope', () => {
  it('unknown route → 404 ROUTE_NOT_FOUND', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nothing/here' });
    expect(res.statusCode).toBe(404);
    expectEnvelope(res, 'ROUTE_NOT_FOUND');
  });

  it('wrong method on a known path → 405 with Allow', async () => {
    const res = await api.inject({ method: 'DELETE', url: `/api/${rut}/emisiones` });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expectEnvelope(res, 'METHOD_NOT_ALLOWED');
    const get = await t.app.inject({ method: 'GET', url: `/api/${rut}/emitir` });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('malformed JSON → 400 INVALID_JSON', async () => {
    const res = await api.inject({
      method: 'POST',
      url: `/api/${rut}/emitir`,
      headers: { 'content-type': 'application/json' },
      payload: '{"type": 33, "items": [',
    });
    expect(res.statusCode).toBe(400);
    expectEnvelope(res, 'INVALID_JSON');
  });

  it('wrong content type → 400', async () => {
    const res = await api.inject({
      method: 'POST',
      url: `/api/${rut}/emitir`,
      headers: { 'content-type': 'text/plain' },
      payload: 'type=33',
    });
    expect(res.statusCode).toBe(400);
    expectEnvelope(res, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body over 1 MiB → 413', async () => {
    const res = await api.inject({
      method: 'POST',
      url: `/api/${rut}/emitir`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ type: 33, pad: 'x'.repeat(1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expectEnvelope(res, 'PAYLOAD_TOO_LARGE');
  });

  it('query validation names the parameter: limit 1..100, real dates', async () => {
    for (const [query, path] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['page=0', 'page'],
      ['desde=2026-02-30', 'desde'],
      ['hasta=20260101', 'hasta'],
      ['tipo_dte=99', 'tipo_dte'],
      ['estado_sii=ok', 'estado_sii'],
      ['desde=2026-05-01&hasta=2026-04-01', 'desde'],
    ] as const) {
      const res = await api.get(`/api/${rut}/emisiones?${query}`);
      expect(res.statusCode, query).toBe(400);
      expectEnvelope(res, 'VALIDATION_FAILED');
      expect(
        res.json().details.map((d: { path: string }) => d.path),
        query,
      ).toContain(path);
    }
    const unknown = await api.get(`/api/${rut}/emisiones?colour=red`);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatch(/colour/);
    const ok = await api.get(`/api/${rut}/emisiones?limit=100&page=2&desde=2024-02-29`);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ ok: true, page: 2, limit: 100 });
  });
});

describe('request ids', () => {
  it('every response carries X-Request-Id, and a sane incoming one is kept', async () => {
    const mine = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'my-trace-123' } });
    expect(mine.headers['x-request-id']).toBe('my-trace-123');
    const generated = await t.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(generated.headers['x-request-id']).toMatch(/^req_/);
    const a = await t.app.inject({ method: 'GET', url: '/nope' });
    const b = await t.app.inject({ method: 'GET', url: '/nope' });
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});
