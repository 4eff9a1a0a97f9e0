import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deactivateIssuer } from '../../src/admin/issuers.ts';
import { revokeApiKey, listApiKeys } from '../../src/admin/api-keys.ts';
import { buildTestApp, createTestIssuer, createTestKey, nextRut, type TestApp } from '../helpers/app.ts';

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

afterAll(async () => {
  await t.close();
});

const list = (rut: string, authorization?: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/${rut}/emisiones`,
    headers: authorization ? { authorization } : {},
  });

describe('authentication (401)', () => {
  it.each([
    ['missing header', undefined],
    ['not Bearer', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a key', 'Bearer '],
    ['malformed key', 'Bearer timbre_short'],
    ['unknown key', `Bearer timbre_${'A'.repeat(40)}`],
    ['key with a foreign prefix', `Bearer sk_live_${'A'.repeat(40)}`],
  ])('%s → 401', async (_name, header) => {
    const res = await list(rutA, header);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.ok).toBe(false);
    expect(['UNAUTHENTICATED', 'INVALID_API_KEY']).toContain(body.code);
    expect(body.request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('a revoked key → 401', async () => {
    const res = await list(rutA, `Bearer ${keys.revoked}`);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('INVALID_API_KEY');
  });
});

describe('authorisation matrix', () => {
  it.each(['owner', 'editor', 'viewer'])('%s key reads its own issuer', async (role) => {
    const res = await list(rutA, `Bearer ${keys[role]}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, data: [], total: 0, page: 1, limit: 30 });
  });

  it.each(['owner', 'editor', 'viewer'])('%s key of issuer A on issuer B → 403', async (role) => {
    const res = await list(rutB, `Bearer ${keys[role]}`);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN_ISSUER');
  });

  it('the RUT in the path may be written with dots or a lowercase k', async () => {
    const dotted = rutA.replace(/^(\d{2})(\d{3})(\d{3})/, '$1.$2.$3');
    const res = await list(dotted, `Bearer ${keys.viewer}`);
    expect(res.statusCode).toBe(200);
  });

  it('a key learns nothing about other issuers: unknown, inactive and malformed RUTs all answer 403', async () => {
    const unknown = await list(nextRut(), `Bearer ${keys.owner}`);
    const inactive = await list(rutInactive, `Bearer ${keys.owner}`);
    const malformed = await list('12345678-0', `Bearer ${keys.owner}`);
    for (const res of [unknown, inactive, malformed]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN_ISSUER');
      expect(res.json().error).not.toContain(rutInactive);
    }
  });

  it.each(['inactiveOwner', 'inactiveViewer'])(
    'a key of an inactive issuer on its own issuer → 404 (%s)',
    async (k) => {
      const res = await list(rutInactive, `Bearer ${keys[k]}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('ISSUER_NOT_FOUND');
    },
  );

  it('a key of another issuer on an inactive issuer → 403, not 404', async () => {
    const res = await list(rutInactive, `Bearer ${keys.otherIssuer}`);
    expect(res.statusCode).toBe(403);
  });
});

describe('roles on write endpoints', () => {
  it.each([
    ['emitir', (r: string) => `/api/${r}/emitir`, (_r: string) => ({ type: 33 })],
    ['folios_sii', (r: string) => `/api/${r}/folios_sii`, (_r: string) => ({ tipo_dte: 33, cantidad: 1 })],
    ['emision_reenviar', (_r: string) => '/api/emision_reenviar', (r: string) => ({ rut: r, type: 33, folio: 1 })],
  ])('a viewer is refused on %s (403), an editor is not', async (_name, url, body) => {
    const viewer = await t.app.inject({
      method: 'POST',
      url: url(rutA),
      headers: { authorization: `Bearer ${keys.viewer}` },
      payload: body(rutA),
    });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json().code).toBe('FORBIDDEN_ROLE');
    const editor = await t.app.inject({
      method: 'POST',
      url: url(rutA),
      headers: { authorization: `Bearer ${keys.editor}` },
      payload: body(rutA),
    });
    expect(editor.statusCode).not.toBe(403);
  });

  it('a viewer may ask the SII state of a document (a read)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${rutA}/emision_estado_dte`,
      headers: { authorization: `Bearer ${keys.viewer}` },
      payload: { type: 33, folio: 1 },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('DOCUMENT_NOT_FOUND');
  });
});

describe('key usage bookkeeping', () => {
  it('records last use without a write per request', async () => {
    const before = await listApiKeys(t.ctx, rutA);
    for (let i = 0; i < 5; i++) await list(rutA, `Bearer ${keys.editor}`);
    await new Promise((r) => setTimeout(r, 100));
    const after = await listApiKeys(t.ctx, rutA);
    const editorBefore = before.find((k) => k.role === 'editor');
    const editorAfter = after.find((k) => k.role === 'editor');
    expect(editorAfter?.lastUsedAt).toBeInstanceOf(Date);
    // Set once (by the first request of the hour), not rewritten by the next four.
    const firstStamp = editorAfter?.lastUsedAt?.getTime();
    for (let i = 0; i < 3; i++) await list(rutA, `Bearer ${keys.editor}`);
    await new Promise((r) => setTimeout(r, 100));
    const again = (await listApiKeys(t.ctx, rutA)).find((k) => k.role === 'editor');
    expect(again?.lastUsedAt?.getTime()).toBe(firstStamp);
    expect(editorBefore).toBeDefined();
  });
});
