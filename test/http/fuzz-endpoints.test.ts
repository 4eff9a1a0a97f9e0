/**
 * Fuzz across every endpoint (README "Hostile input and abuse"): methods, paths, query strings, headers and bodies,
 * hostile and ordinary, with and without keys. The rule: a 500 is a bug, whatever arrives.
 * About half the `emitir` bodies are valid requests of every type with varied quantities,
 * prices, discounts and text, so the run reaches totals, signing, verification and the
 * database, not only validation. Replay a failure with the printed TEST_SEED.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { requestFor } from '../helpers/requests.ts';
import { testSeed } from '../helpers/seed.ts';

const seed = testSeed(import.meta.url);
let t: TestApp;
let rut: string;
let otherRut: string;
const keys: Record<string, string> = {};
let doc: { folio: number; pdf_url: string };

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURES_PER_MINUTE: '1000000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  otherRut = (await createTestIssuer(t.ctx)).rut;
  for (const role of ['owner', 'editor', 'viewer'] as const) keys[role] = await createTestKey(t.ctx, rut, role);
  keys.other = await createTestKey(t.ctx, otherRut, 'owner');
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${rut}/emitir`,
    headers: { authorization: `Bearer ${keys.owner}` },
    payload: requestFor(33),
  });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});

afterAll(async () => {
  await t.close();
});

const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '\u0000', '\u2028', '\u0085', '💥', '&', '<x>', '"\'', '../..', '%00', 'a'.repeat(300)),
);

/** Built once the issuers and keys exist (they appear in paths, headers and bodies). */
function requestArbitrary() {
  const weird = fc.oneof(
    hostileText,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(1e21, -0, 0.1 + 0.2, 2 ** 53 + 1, 999_999_999_999),
  );

  const TYPES = [33, 34, 39, 41, 46, 52] as const;

  /** A valid request of a type, varied: quantities, prices, discounts, extra lines, text. */
  const validEmitir = fc
    .record({
      type: fc.constantFrom(...TYPES),
      qty: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(0.5, 1.25, 0.000001, 123456.789)),
      price: fc.oneof(fc.integer({ min: 0, max: 50_000_000 }), fc.constantFrom(0.5, 1990.99, 0)),
      discount: fc.option(fc.constantFrom(1, 10, 12.5, 99.99, 100), { nil: undefined }),
      lines: fc.integer({ min: 1, max: 8 }),
      name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
      date: fc.option(fc.constantFrom('2026-01-01', '2025-12-31', '2000-01-01', '2050-12-31'), { nil: undefined }),
    })
    .map(({ type, qty, price, discount, lines, name, date }) => {
      const req = structuredClone(requestFor(type)) as Record<string, any>;
      const first = req.items[0];
      req.items = Array.from({ length: lines }, (_, i) => ({
        ...first,
        name: `${name} ${i}`,
        qty,
        ...(type !== 52 && { price }),
        ...(discount !== undefined && type !== 52 && { discount_pct: discount }),
      }));
      if (date) req.date = date;
      return req;
    });

  const brokenEmitir = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    validEmitir.chain((req) =>
      fc
        .tuple(fc.constantFrom('type', 'items', 'receiver', 'date', 'refs', 'dispatch', 'extra'), weird)
        .map(([k, v]) => ({ ...req, [k]: v })),
    ),
    validEmitir.chain((req) =>
      fc
        .tuple(fc.constantFrom('name', 'qty', 'price', 'discount_pct', 'unit', 'description', 'exempt'), weird)
        .map(([k, v]) => ({
          ...req,
          items: [{ ...req.items[0], [k]: v }],
        })),
    ),
  );

  const otherBody = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record(
      { tipo_dte: weird, cantidad: weird, type: weird, folio: weird, rut: fc.oneof(weird, fc.constant(rut)) },
      { requiredKeys: [] },
    ),
    fc.constant({ type: 33, folio: 1 }),
    fc.constant({ rut, type: 33, folio: 1 }),
  );

  const segment = fc.oneof(
    fc.constantFrom('..', '.', '%2e%2e', '%00', '%ff', '%zz', '%2F', '33', '0', '-1', '99999999999', 'null', '💥', ''),
    fc.string({ unit: 'grapheme-ascii', maxLength: 10 }).map(encodeURIComponent),
  );
  const rutSegment = fc.oneof(fc.constantFrom(rut, otherRut, '76354771-K', '1-9', 'x', '%00', ''), segment);

  /** Paths of every endpoint, with hostile segments mixed in. */
  const path = fc.oneof(
    fc.constantFrom('/health', '/openapi.json', '/docs', '/docs/', '/docs/json', '/docs/static/index.html', '/'),
    segment.map((s) => `/docs/static/${s}`),
    fc
      .tuple(rutSegment, fc.constantFrom('emitir', 'emisiones', 'folios', 'folios_sii', 'emision_estado_dte'))
      .map(([r, e]) => `/api/${r}/${e}`),
    fc
      .tuple(
        rutSegment,
        fc.constantFrom('pdf', 'xml'),
        fc.oneof(fc.constant('33'), segment),
        fc.oneof(fc.constant(String(1)), segment),
      )
      .map(([r, k, ty, f]) => `/api/${r}/${k}/${ty}/${f}`),
    fc.constant('/api/emision_reenviar'),
    fc.array(segment, { maxLength: 5 }).map((s) => `/${s.join('/')}`),
  );

  const queryValue = fc.oneof(
    hostileText.map(encodeURIComponent),
    fc.constantFrom('%00', '%ff', '%zz', '%', '1', '33', 'letter', '80mm', '2026-01-01', 'aceptado', '1e999', '-1'),
  );
  const query = fc
    .array(
      fc.tuple(
        fc.constantFrom(
          'tk',
          't%6B',
          'TK',
          'q',
          'page',
          'limit',
          'tipo_dte',
          'estado_sii',
          'desde',
          'hasta',
          'format',
          'download',
          'base64',
          'api_key',
          '%00',
          'x',
        ),
        queryValue,
      ),
      { maxLength: 4 },
    )
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

  const headerValue = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
    fc.constantFrom('', ' ', 'Bearer', 'Bearer ', 'Bearer timbre_x', 'bearer  x y', 'Basic abc', '\t'),
  );
  const headers = fc.record(
    {
      authorization: fc.oneof(
        fc.constantFrom('owner', 'editor', 'viewer', 'other').map((k) => `Bearer ${keys[k]}`),
        headerValue,
      ),
      'content-type': fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=latin1',
        'text/plain',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        '',
      ),
      'x-request-id': headerValue,
      'idempotency-key': headerValue,
      accept: fc.constantFrom('*/*', 'application/pdf', 'text/html', 'x/y'),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', 'not-an-ip', '::1, 10.0.0.1'),
    },
    { requiredKeys: [] },
  );

  return fc.oneof(
    // Valid and broken issue requests with a working key.
    {
      weight: 4,
      arbitrary: validEmitir.map((b) => ({
        method: 'POST',
        url: `/api/${rut}/emitir`,
        body: b as unknown,
        headers: {},
      })),
    },
    {
      weight: 2,
      arbitrary: brokenEmitir.map((b) => ({
        method: 'POST',
        url: `/api/${rut}/emitir`,
        body: b as unknown,
        headers: {},
      })),
    },
    // Everything else: any method, path, query, headers and body.
    {
      weight: 5,
      arbitrary: fc.record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        url: fc.tuple(path, query).map(([p, q]) => p + q),
        body: fc.oneof(otherBody, validEmitir, fc.constant(undefined), hostileText),
        headers,
      }),
    },
    // Document downloads with the right and wrong tokens.
    {
      weight: 1,
      arbitrary: query.map((q) => ({
        method: 'GET',
        url: `${doc.pdf_url.replace('http://timbre.test', '')}&x=1${q.replace('?', '&')}`,
        body: undefined,
        headers: {},
      })),
    },
  );
}

describe('fuzz across every endpoint', () => {
  it('never answers 500', async () => {
    let issued = 0;
    await fc.assert(
      fc.asyncProperty(requestArbitrary(), async (r) => {
        const hdrs: Record<string, string> = {
          authorization: `Bearer ${keys.owner}`,
          'content-type': 'application/json',
          ...r.headers,
        };
        const payload = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
        let res: Awaited<ReturnType<typeof t.app.inject>>;
        try {
          res = await t.app.inject({
            method: r.method as 'GET',
            url: r.url,
            headers: hdrs,
            ...(payload !== undefined && r.method !== 'GET' && r.method !== 'HEAD' && { payload }),
          });
        } catch (e) {
          // light-my-request refuses to build some requests (an invalid header value): not the service's answer.
          if (
            /Invalid character in header|ERR_INVALID_CHAR|ERR_HTTP_INVALID_HEADER_VALUE/.test(
              String((e as Error).message ?? e),
            )
          )
            return;
          throw e;
        }
        expect(res.statusCode, `${r.method} ${r.url} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode >= 400 && r.method !== 'HEAD') {
          const body = res.json();
          expect(body.ok).toBe(false);
          expect(typeof body.code).toBe('string');
        }
        if (res.statusCode === 200 && r.url.endsWith('/emitir')) issued += 1;
      }),
      { numRuns: 400, seed },
    );
    // A good share of the run reached signing and the database.
    expect(issued).toBeGreaterThan(60);
  });
});
