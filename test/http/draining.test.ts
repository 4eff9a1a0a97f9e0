/**
 * A request that reaches an instance while it drains (close() called, e.g. on SIGTERM) gets
 * the error envelope with 503 SERVICE_UNAVAILABLE, as the OpenAPI description documents.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let rut: string;
let key: string;
let server: Server;

beforeAll(async () => {
  t = await buildTestApp();
  rut = (await createTestIssuer(t.ctx)).rut;
  key = await createTestKey(t.ctx, rut, 'owner');
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

it('answers 503 SERVICE_UNAVAILABLE in the envelope, with Connection: close and Retry-After', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  await t.app.close();
  // The app's request handler, reached as a connection kept alive across the close would reach it.
  server = createServer(t.app.routing);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/${rut}/emisiones`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(503);
  expect(res.headers.get('connection')).toBe('close');
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('x-request-id')).toBeTruthy();
  const body = await res.json();
  expect(body).toMatchObject({ ok: false, code: 'SERVICE_UNAVAILABLE', request_id: res.headers.get('x-request-id') });
  const documented = doc.paths['/api/{rut}/emisiones'].get.responses['503'];
  expect(documented.content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['SERVICE_UNAVAILABLE']);
  expect(Object.keys(documented.headers)).toEqual(expect.arrayContaining(['X-Request-Id', 'Retry-After']));
});
