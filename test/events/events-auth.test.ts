/**
 * The auth matrix and tenant isolation of every events/webhooks/e-mail route, plus random
 * bodies that must never produce a 500.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { testSeed } from '../helpers/seed.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
let rutA: string;
const keys: Record<string, string> = {};
let keyB: string;
let folioA: number;
let endpointA: string;
let eventA: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true', SMTP_URL: 'smtp://127.0.0.1:9' } });
  rutA = (await createTestIssuer(t.ctx)).rut;
  const rutB = (await createTestIssuer(t.ctx)).rut;
  for (const role of ['owner', 'editor', 'viewer'] as const) keys[role] = await createTestKey(t.ctx, rutA, role);
  keyB = await createTestKey(t.ctx, rutB, 'owner');
  const owner = { authorization: `Bearer ${keys.owner}` };
  const doc = await t.app.inject({ method: 'POST', url: `/api/${rutA}/emitir`, headers: owner, payload: factura() });
  folioA = doc.json().folio;
  const hook = await t.app.inject({
    method: 'POST',
    url: `/api/${rutA}/webhooks`,
    headers: owner,
    payload: { url: 'http://127.0.0.1:9/hook' },
  });
  endpointA = hook.json().id;
  const events = await t.app.inject({ method: 'GET', url: `/api/${rutA}/events`, headers: owner });
  eventA = events.json().data[0].id;
});

afterAll(async () => {
  await t?.close();
});

type Route = {
  method: 'GET' | 'POST' | 'DELETE';
  url: () => string;
  body?: () => object;
  minRole: 'viewer' | 'editor' | 'owner';
};

const ROUTES: Route[] = [
  { method: 'GET', url: () => `/api/${rutA}/events`, minRole: 'viewer' },
  { method: 'GET', url: () => `/api/${rutA}/events/${eventA}/deliveries`, minRole: 'viewer' },
  { method: 'POST', url: () => `/api/${rutA}/events/${eventA}/redeliver`, minRole: 'owner' },
  { method: 'GET', url: () => `/api/${rutA}/webhooks`, minRole: 'viewer' },
  {
    method: 'POST',
    url: () => `/api/${rutA}/webhooks`,
    body: () => ({ url: 'https://example.cl/x' }),
    minRole: 'owner',
  },
  { method: 'POST', url: () => `/api/${rutA}/webhooks/${endpointA}/test`, minRole: 'owner' },
  { method: 'DELETE', url: () => `/api/${rutA}/webhooks/${endpointA}`, minRole: 'owner' },
  {
    method: 'POST',
    url: () => `/api/${rutA}/emision_email`,
    body: () => ({ type: 33, folio: folioA }),
    minRole: 'editor',
  },
];

const RANK = { viewer: 0, editor: 1, owner: 2 } as const;

describe.each(ROUTES)('$method $url', (route) => {
  const send = (authorization?: string) =>
    t.app.inject({
      method: route.method,
      url: route.url(),
      ...(authorization && { headers: { authorization } }),
      ...(route.body && { payload: route.body() }),
    });

  it('401 without a key, 403 for another issuer, 403 below its role; nothing changes', async () => {
    const before = await Promise.all([t.ctx.db.prisma.webhookEndpoint.count(), t.ctx.db.prisma.emailMessage.count()]);
    expect((await send()).statusCode).toBe(401);
    const cross = await send(`Bearer ${keyB}`);
    expect(cross.statusCode).toBe(403);
    expect(cross.json().code).toBe('FORBIDDEN_ISSUER');
    for (const role of ['viewer', 'editor'] as const) {
      if (RANK[role] >= RANK[route.minRole]) continue;
      const res = await send(`Bearer ${keys[role]}`);
      expect(res.statusCode, `${role}: ${res.body}`).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN_ROLE');
    }
    const after = await Promise.all([t.ctx.db.prisma.webhookEndpoint.count(), t.ctx.db.prisma.emailMessage.count()]);
    expect(after).toEqual(before);
  });
});

describe('random bodies', () => {
  it('webhooks and emision_email never answer 500', async () => {
    const owner = { authorization: `Bearer ${keys.owner}` };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('webhooks', 'emision_email'),
        fc.anything({ maxDepth: 2 }),
        async (endpoint, body) => {
          const res = await t.app.inject({
            method: 'POST',
            url: `/api/${rutA}/${endpoint}`,
            headers: { ...owner, 'content-type': 'application/json' },
            payload: JSON.stringify(body) ?? 'null',
          });
          expect(res.statusCode, res.body).toBeLessThan(500);
        },
      ),
      { numRuns: 60, seed: testSeed(import.meta.url) },
    );
  });
});
