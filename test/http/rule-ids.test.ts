/**
 * Validation details over HTTP carry a stable rule id and the params their message names,
 * whichever path made them: the route schemas (Fastify's zod validation), the issue request's
 * refinements, and the checks against stored documents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../src/rules.ts';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

type Detail = { path: string; rule: string; message: string; params?: Record<string, unknown> };
const detailsOf = (res: { json: () => unknown }) => ((res.json() as { details?: Detail[] }).details ?? []) as Detail[];

const RECEIVER = {
  rut: '76354771-K',
  name: 'Distribuidora Los Aromos Ltda.',
  activity: 'Comercio',
  address: 'Av. Italia 123',
  comuna: 'Ñuñoa',
};

describe('validation details', () => {
  it('name the rule and its params on every path', async () => {
    const { issuer, api } = await createTestTenant(t);
    const issue = await api.post(`/api/${issuer.rut}/emitir`, {
      type: 33,
      date: '2051-01-01',
      receiver: { ...RECEIVER, name: 'Los Aromos \u202e' },
      items: [{ name: 'Clavos', qty: 'diez', price: 1000 }],
    });
    expect(issue.statusCode).toBe(400);
    expect(detailsOf(issue)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'date',
          rule: 'date.out_of_range',
          params: { from: '2000-01-01', to: '2050-12-31' },
        }),
        expect.objectContaining({ path: 'receiver.name', rule: 'text.char_not_allowed', params: { char: 'U+202E' } }),
        expect.objectContaining({ path: 'items[0].qty', rule: 'value.wrong_type', params: { expected: 'number' } }),
      ]),
    );

    const list = await api.get(`/api/${issuer.rut}/emisiones?limit=500&color=azul`);
    expect(list.statusCode).toBe(400);
    expect(
      detailsOf(list)
        .map((d) => d.rule)
        .sort(),
    ).toEqual(['number.range', 'object.unknown_key']);
    const limit = await api.get(`/api/${issuer.rut}/emisiones?limit=500`);
    expect(detailsOf(limit)).toEqual([
      expect.objectContaining({ path: 'limit', rule: 'number.range', params: { min: 1, max: 100 } }),
    ]);

    const note = await api.post(`/api/${issuer.rut}/emitir`, {
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      refs: [{ type: 33, folio: 999, date: '2026-11-02', code: 3 }],
      items: [{ name: 'Devolución', qty: 1, price: 1000 }],
    });
    expect(note.statusCode).toBe(400);
    expect(detailsOf(note)).toEqual([
      expect.objectContaining({
        path: 'refs[0].folio',
        rule: 'refs.not_found',
        params: expect.objectContaining({ type: '33', folio: '999' }),
      }),
    ]);

    for (const res of [issue, list, limit, note]) for (const d of detailsOf(res)) expect(RULE_IDS).toContain(d.rule);
  });
});
