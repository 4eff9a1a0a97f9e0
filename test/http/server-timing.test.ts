/** The issue answer's `Server-Timing`: where the request's time went, by stage (src/http/server-timing.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
let rut: string;
let api: KeyClient;

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  ({ rut, api } = await createTestTenant(t));
});

/** `name;dur=ms` entries of a Server-Timing value, in order. */
function stages(value: unknown): [string, number][] {
  expect(typeof value).toBe('string');
  return (value as string).split(', ').map((entry) => {
    const m = /^([a-z]+);dur=(\d+\.\d)$/.exec(entry);
    expect(m, `"${entry}" is not name;dur=milliseconds`).not.toBeNull();
    return [m![1]!, Number(m![2])];
  });
}

describe('Server-Timing on an issue answer', () => {
  it('names the folio, signing and storing stages with their milliseconds, within the time the request took', async () => {
    const started = performance.now();
    const res = await api.post(`/api/${rut}/emitir`, factura());
    const elapsed = performance.now() - started;
    expect(res.statusCode, res.body).toBe(200);
    const split = stages(res.headers['server-timing']);
    expect(split.map(([name]) => name)).toEqual(['folio', 'sign', 'store']);
    // Signing is two RSA signatures and a re-read of the bytes: never under a tenth of a millisecond.
    expect(Object.fromEntries(split).sign).toBeGreaterThan(0.1);
    const sum = split.reduce((n, [, ms]) => n + ms, 0);
    expect(sum).toBeLessThanOrEqual(elapsed + 0.2);
  });

  it('is absent from a replayed answer (nothing ran) and from a refused request', async () => {
    const first = await api.post(`/api/${rut}/emitir`, factura(), { 'idempotency-key': 'timing-1' });
    expect(first.headers['server-timing']).toBeDefined();
    const replay = await api.post(`/api/${rut}/emitir`, factura(), { 'idempotency-key': 'timing-1' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['server-timing']).toBeUndefined();
    const refused = await api.post(`/api/${rut}/emitir`, factura({ type: 99 }));
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['server-timing']).toBeUndefined();
  });
});
