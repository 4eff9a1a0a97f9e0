import { beforeAll, describe, expect, it, vi } from 'vitest';
import { deactivateIssuer } from '../../src/admin/issuers.ts';
import { revokeApiKey, listApiKeys } from '../../src/admin/api-keys.ts';
import {
  buildTestApp,
  createTestIssuer,
  createTestKey,
  createTestTenant,
  nextRut,
  type TestApp,
} from '../helpers/app.ts';
import { manualClock, waitFor } from '../helpers/time.ts';

let t: TestApp;
let rutA: string;
let rutB: string;
let rutInactive: string;
const keys: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp();
  rutA = (await createTestIssuer(t.ctx)).rut;
  rutB = (await createTestIssuer(t.ctx)).rut;
  rutInactive = (await createTestIssuer(t.ctx)).rut;
  for (const role of ['owner', 'editor', 'viewer'] as const) keys[role] = await createTestKey(t.ctx, rutA, role);
  keys.otherIssuer = await createTestKey(t.ctx, rutB, 'owner');
  keys.inactiveOwner = await createTestKey(t.ctx, rutInactive, 'owner');
  keys.inactiveViewer = await createTestKey(t.ctx, rutInactive, 'viewer');
  await deactivateIssuer(t.ctx, rutInactive);
  keys.revoked = await createTestKey(t.ctx, rutA, 'owner');
  const list = await listApiKeys(t.ctx, rutA);
  // the newest owner key is the one to revoke
  const newest = list.filter((k) => k.role === 'owner').at(-1);
  await revokeApiKey(t.ctx, newest!.id);
});

const list = (rut: string, authorization?: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/${rut}/emisiones`,
    headers: authorization ? { authorization } : {},
  });

const listAs = (rut: string, key: string) => t.as(key).get(`/api/${rut}/emisiones`);

describe('authentication (401)', () => {
  it.each([
    // No usable header at all: UNAUTHENTICATED; a key that is not one of ours: INVALID_API_KEY.
    ['missing header', undefined, 'UNAUTHENTICATED'],
    ['not Bearer', 'Basic dXNlcjpwYXNz', 'UNAUTHENTICATED'],
    ['Bearer without a key', 'Bearer ', 'UNAUTHENTICATED'],
    ['malformed key', 'Bearer timbre_short', 'INVALID_API_KEY'],
    ['unknown key', `Bearer timbre_${'A'.repeat(40)}`, 'INVALID_API_KEY'],
    ['key with a foreign prefix', `Bearer sk_live_${'A'.repeat(40)}`, 'INVALID_API_KEY'],
  ])('%s → 401', async (_name, header, code) => {
    const res = await list(rutA, header);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.ok).toBe(false);
    expect(body.code).toBe(code);
    expect(body.request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('a revoked key → 401', async () => {
    const res = await listAs(rutA, keys.revoked!);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('INVALID_API_KEY');
  });
});

describe('authorisation matrix', () => {
  it.each(['owner', 'editor', 'viewer'])('%s key reads its own issuer', async (role) => {
    const res = await listAs(rutA, keys[role]!);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, data: [], total: 0, page: 1, limit: 30 });
  });

  it.each(['owner', 'editor', 'viewer'])('%s key of issuer A on issuer B → 403', async (role) => {
    const res = await listAs(rutB, keys[role]!);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN_ISSUER');
  });

  it('the RUT in the path may be written with dots or a lowercase k', async () => {
    const dotted = rutA.replace(/^(\d{2})(\d{3})(\d{3})/, '$1.$2.$3');
    const res = await listAs(dotted, keys.viewer!);
    expect(res.statusCode).toBe(200);
  });

  it('a key learns nothing about other issuers: unknown, inactive and malformed RUTs all answer 403', async () => {
    const unknown = await listAs(nextRut(), keys.owner!);
    const inactive = await listAs(rutInactive, keys.owner!);
    const malformed = await listAs('12345678-0', keys.owner!);
    for (const res of [unknown, inactive, malformed]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN_ISSUER');
      expect(res.json().error).not.toContain(rutInactive);
    }
  });

  it.each(['inactiveOwner', 'inactiveViewer'])(
    'a key of an inactive issuer on its own issuer → 404 (%s)',
    async (k) => {
      const res = await listAs(rutInactive, keys[k]!);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('ISSUER_NOT_FOUND');
    },
  );

  it('a key of another issuer on an inactive issuer → 403, not 404', async () => {
    const res = await listAs(rutInactive, keys.otherIssuer!);
    expect(res.statusCode).toBe(403);
  });
});

describe('roles on write endpoints', () => {
  it.each([
    ['emitir', (r: string) => `/api/${r}/emitir`, (_r: string) => ({ type: 33 }), 400, 'VALIDATION_FAILED'],
    ['folios_sii', (r: string) => `/api/${r}/folios_sii`, (_r: string) => ({ tipo_dte: 33, cantidad: 1 }), 200, ''],
    [
      'emision_reenviar',
      (_r: string) => '/api/emision_reenviar',
      (r: string) => ({ rut: r, type: 33, folio: 999_999 }),
      422,
      'SANDBOX_NOT_SUBMITTABLE',
    ],
  ])('a viewer is refused on %s (403), an editor is not', async (_name, url, body, editorStatus, editorCode) => {
    const viewer = await t.as(keys.viewer!).post(url(rutA), body(rutA));
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json().code).toBe('FORBIDDEN_ROLE');
    // The editor passes the role check and meets the endpoint's own answer to this body.
    const editor = await t.as(keys.editor!).post(url(rutA), body(rutA));
    expect(editor.statusCode, editor.body).toBe(editorStatus);
    if (editorStatus !== 200) expect(editor.json().code).toBe(editorCode);
  });

  it('a viewer may ask the SII state of a document (a read)', async () => {
    const res = await t.as(keys.viewer!).post(`/api/${rutA}/emision_estado_dte`, { type: 33, folio: 1 });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('DOCUMENT_NOT_FOUND');
  });
});

describe('key usage bookkeeping', () => {
  it('records last use at most once an hour: no database write per request', async () => {
    const clock = manualClock('2026-11-23T12:00:00Z');
    const clocked = await buildTestApp({ clock, shareDatabaseOf: t });
    const { rut, key } = await createTestTenant(clocked, { role: 'editor' });
    const updates = vi.spyOn(clocked.ctx.db.prisma.apiKey, 'update');
    const get = () => clocked.as(key).get(`/api/${rut}/emisiones`);
    const lastUsed = async () => (await listApiKeys(clocked.ctx, rut))[0]?.lastUsedAt?.toISOString();

    for (let i = 0; i < 5; i++) expect((await get()).statusCode).toBe(200);
    // The first request records it (off the request path); the next four write nothing.
    expect(updates).toHaveBeenCalledTimes(1);
    await waitFor(async () => (await lastUsed()) === '2026-11-23T12:00:00.000Z', { what: 'last_used_at recorded' });

    clock.advance(59 * 60_000);
    for (let i = 0; i < 3; i++) await get();
    expect(updates).toHaveBeenCalledTimes(1);
    expect(await lastUsed()).toBe('2026-11-23T12:00:00.000Z');

    clock.advance(2 * 60_000);
    await get();
    expect(updates).toHaveBeenCalledTimes(2);
    await waitFor(async () => (await lastUsed()) === '2026-11-23T13:01:00.000Z', { what: 'last_used_at renewed' });
  });
});
