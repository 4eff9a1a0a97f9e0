/**
 * Hostile input (README "Hostile input and abuse"): what a hostile client sends gets a 4xx naming the problem, never a
 * 500, and never a stored document or a consumed folio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { issueDocument } from '../../src/issuing/issue-document.ts';
import { factura } from '../helpers/requests.ts';
import { documentContent } from '../../src/issuing/document-content.ts';

let t: TestApp;
let rut: string;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'owner')}` };
  expect((await issue(factura())).statusCode).toBe(200);
});

afterAll(async () => {
  await t.close();
});

function issue(body: unknown) {
  return t.app.inject({
    method: 'POST',
    url: `/api/${rut}/emitir`,
    headers: { ...auth, 'content-type': 'application/json' },
    payload: Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
}

const documents = () => t.ctx.db.prisma.document.count();

describe('text that would not verify once signed is a 400 naming the field and the character', () => {
  it.each([
    ['receiver.name', (c: string) => factura({ receiver: { ...factura().receiver, name: `Ñandú${c}Ltda` } })],
    [
      'items[1].name',
      (c: string) => factura({ items: [factura().items[0], { name: `Mar${c}tillo`, qty: 1, price: 10 }] }),
    ],
    ['items[0].description', (c: string) => factura({ items: [{ ...factura().items[0], description: `a${c}b` }] })],
  ])('%s', async (path, make) => {
    const before = await documents();
    for (const c of ['\u0085', '\u2028', '\u2029', '\u0080', '\u009f', '\ufffd', '\u202e']) {
      const res = await issue(make(c));
      expect(res.statusCode).toBe(400);
      const code = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      expect(res.json().error).toBe(`${path}: character ${code} is not allowed`);
    }
    expect(await documents()).toBe(before);
  });

  it('invalid UTF-8 in the body is a 400 INVALID_JSON, not a 500', async () => {
    const text = JSON.stringify(factura({ receiver: { ...factura().receiver, name: 'ÑandúXX' } }));
    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.indexOf('XX');
    bytes[at] = 0xc3; // a lead byte followed by an ASCII byte
    bytes[at + 1] = 0x28;
    const res = await issue(bytes);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_JSON', error: 'The request body is not valid UTF-8.' });
  });
});

describe('the last check before storing', () => {
  it('a document whose stored bytes would not verify is not stored, and its folio goes back', async () => {
    // Past the request rules (called below the route), a U+2028 reaches the signer: the parser
    // used while signing reads it as a line break, libxml2 does not, so the digest cannot match.
    const issuer = await t.ctx.db.prisma.issuer.findUniqueOrThrow({ where: { rut } });
    const req = factura({ items: [{ name: 'Mar\u2028tillo', qty: 1, price: 100 }] }) as never;
    const before = await documents();
    await expect(issueDocument(t.ctx, issuer, req)).rejects.toMatchObject({ code: 'DOCUMENT_NOT_VERIFIABLE' });
    expect(await documents()).toBe(before);
    const next = await issue(factura());
    expect(next.statusCode).toBe(200);
    const last = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: issuer.id, type: 33 },
      orderBy: { folio: 'desc' },
      skip: 1,
    });
    expect(next.json().folio).toBe(last.folio + 1);
  });
});

describe('no 500', () => {
  it.each([
    ['date', { date: '1999-12-31' }],
    ['date', { date: '2051-01-01' }],
  ])('%s outside the XSD range → 400', async (path, over) => {
    const res = await issue(factura(over));
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe(path);
  });

  it('a reference date outside the XSD range → 400 at refs[0].date', async () => {
    const res = await issue({
      type: 61,
      receiver: { rut: '76354771-K', name: 'Cliente' },
      items: [{ name: 'Devolución', qty: 1, price: 100 }],
      refs: [{ type: 33, folio: 1, date: '1970-01-01', code: 3 }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('refs[0].date');
  });

  it('an item name made only of quotes is issued with a non-empty IT1', async () => {
    const res = await issue(factura({ items: [{ name: `"'"'`, qty: 1, price: 100 }] }));
    expect(res.statusCode).toBe(200);
    const doc = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { folio: res.json().folio, issuer: { rut } },
    });
    expect((await documentContent(t.ctx, doc)).ted).toMatch(/<IT1>[^<]+<\/IT1>/);
  });

  it.each(['%00', '%01x', 'a%00b'])('GET /emisiones?q=%s → 400', async (q) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/${rut}/emisiones?q=${q}`, headers: auth });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
  });

  it.each([
    '/docs/static/../../package.json',
    '/docs/static/%00',
    '/docs/static/%2e%2e/%2e%2e/package.json',
    '/docs/static/nope.js',
  ])('%s → a 4xx envelope', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json()).toMatchObject({ ok: false });
    expect(res.body).not.toContain('"name": "timbre"');
  });
});
