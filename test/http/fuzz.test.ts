/**
 * Property-based input fuzzing: whatever arrives at `emitir` or in query/path parameters, the
 * answer is the error envelope or a success — never a 500 — and a rejected request never
 * consumes a folio.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
let rut: string;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000', AUTH_FAILURES_PER_MINUTE: '100000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'owner')}` };
  // One document so that the sandbox CAF exists and folio consumption is observable.
  const res = await t.app.inject({ method: 'POST', url: `/api/${rut}/emitir`, headers: auth, payload: factura() });
  expect(res.statusCode).toBe(200);
});

afterAll(async () => {
  await t.close();
});

async function consumed(): Promise<number> {
  const rows = await t.ctx.db.prisma.caf.findMany({ where: { issuer: { rut } } });
  return rows.reduce((n, r) => n + (r.nextFolio - r.rangeFrom), 0);
}

function expectEnvelopeOrOk(res: { statusCode: number; json(): any }) {
  expect(res.statusCode).toBeLessThan(500);
  const body = res.json();
  if (res.statusCode >= 400) {
    expect(body.ok).toBe(false);
    expect(typeof body.code).toBe('string');
    expect(typeof body.error).toBe('string');
  } else {
    expect(body.ok).toBe(true);
  }
}

const weird = fc.oneof(
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e309', '', ' ', '0x10', '١٢٣', '💥', '\u0000', 'null', '[]', '{}'),
  fc.double(),
  fc.integer(),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map((b) => Number(b)),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.boolean(),
  fc.constant(null),
);

const itemArb = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 100 }), weird),
    qty: fc.oneof(fc.double({ min: -10, max: 1e7 }), weird),
    price: fc.oneof(fc.double({ min: -10, max: 1e13 }), weird),
    exempt: fc.oneof(fc.boolean(), weird),
  },
  { requiredKeys: [] },
);

const bodyArb = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }),
  fc.record(
    {
      type: fc.oneof(fc.constantFrom(33, 34, 39, 41, 46, 52, 56, 61), weird),
      receiver: fc.oneof(
        fc.record(
          { rut: fc.oneof(fc.constantFrom('76354771-K', '76354771-0', '1-9'), weird), name: weird },
          { requiredKeys: [] },
        ),
        weird,
      ),
      items: fc.oneof(fc.array(itemArb, { maxLength: 4 }), weird),
      refs: fc.oneof(fc.array(fc.record({ type: weird, folio: weird, date: weird }), { maxLength: 2 }), weird),
      date: fc.oneof(fc.constantFrom('2026-02-30', '2026-13-01', '2026-01-01', '9999-12-31', '0000-01-01'), weird),
    },
    { requiredKeys: [] },
  ),
  // deeply nested
  fc.integer({ min: 50, max: 400 }).map((depth) => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = { items: [v] };
    return v;
  }),
);

describe('fuzzing', () => {
  it('a JSON body that is not an object (null, a number, a string, an array) is a 400 naming the body', async () => {
    const before = await consumed();
    for (const payload of ['null', '1', '"x"', '[]', 'true']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${rut}/emitir`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, `${payload} → ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ ok: false, code: 'VALIDATION_FAILED', details: [{ path: 'body' }] });
    }
    expect(await consumed()).toBe(before);
  });

  it('emitir: never 500, rejected requests consume no folio', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, async (body) => {
        const before = await consumed();
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/${rut}/emitir`,
          headers: { ...auth, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expectEnvelopeOrOk(res);
        if (res.statusCode !== 200) expect(await consumed()).toBe(before);
      }),
      { numRuns: 150 },
    );
  });

  it('query and path parameters: never 500', async () => {
    const param = fc.oneof(weird.map(String), fc.string({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('tipo_dte', 'estado_sii', 'desde', 'hasta', 'q', 'page', 'limit', 'x'), param, {
          maxKeys: 4,
        }),
        param,
        param,
        async (query, type, folio) => {
          const qs = new URLSearchParams(query).toString();
          const list = await t.app.inject({ method: 'GET', url: `/api/${rut}/emisiones?${qs}`, headers: auth });
          expectEnvelopeOrOk(list);
          const file = await t.app.inject({
            method: 'GET',
            url: `/api/${rut}/pdf/${encodeURIComponent(type)}/${encodeURIComponent(folio)}?${qs}`,
            headers: auth,
          });
          expect(file.statusCode).toBeLessThan(500);
          const other = await t.app.inject({
            method: 'GET',
            url: `/api/${encodeURIComponent(type)}/emisiones`,
            headers: auth,
          });
          expectEnvelopeOrOk(other);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('folios_sii, emision_reenviar and emision_estado_dte bodies: never 500, nothing consumed', async () => {
    const small = fc.oneof(weird, fc.integer({ min: -5, max: 20_000 }), fc.constantFrom(33, 34, 61));
    const bodies = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record(
        { tipo_dte: small, cantidad: small, type: small, folio: small, rut: fc.oneof(weird, fc.constant(rut)) },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        bodies,
        fc.constantFrom('folios_sii', 'emision_reenviar', 'emision_estado_dte'),
        async (body, endpoint) => {
          const before = await consumed();
          const cafs = await t.ctx.db.prisma.caf.count();
          const res = await t.app.inject({
            method: 'POST',
            url: endpoint === 'emision_reenviar' ? '/api/emision_reenviar' : `/api/${rut}/${endpoint}`,
            headers: { ...auth, 'content-type': 'application/json' },
            payload: JSON.stringify(body),
          });
          expectEnvelopeOrOk(res);
          expect(await consumed()).toBe(before);
          if (endpoint !== 'folios_sii' || res.statusCode !== 200) expect(await t.ctx.db.prisma.caf.count()).toBe(cafs);
        },
      ),
      { numRuns: 120 },
    );
  });
});
