/** POST /api/{rut}/preview (docs/design.md §8): same validation and totals as emitir, no folio taken. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

let t: TestApp;
let rut: string;
let key: string;
let viewer: string;

beforeAll(async () => {
  t = await buildTestApp();
  rut = (await createTestIssuer(t.ctx)).rut;
  key = await createTestKey(t.ctx, rut);
  viewer = await createTestKey(t.ctx, rut, 'viewer');
});
afterAll(async () => t?.close());

const post = (body: unknown, k = key, query = '') =>
  t.app.inject({
    method: 'POST',
    url: `/api/${rut}/preview${query}`,
    headers: { authorization: `Bearer ${k}` },
    payload: body as object,
  });

describe('preview', () => {
  it('answers the totals emitir would, and emitir then gives the same totals and folio 1', async () => {
    const res = await post(factura(), viewer);
    expect(res.statusCode).toBe(200);
    const p = res.json();
    // 10 × 1350 + 2 × 8990 = 31 480 net; 5000 exempt; VAT 19 % = 5981.2 → 5981.
    expect(p.totals).toEqual({ net: 31480, exempt: 5000, vat: 5981, vat_rate: 19, total: 42461 });
    expect(p.lines.map((l: { amount: number }) => l.amount)).toEqual([13500, 17980, 5000]);
    expect(p.lines[2].exempt).toBe(true);
    expect(p.warnings).toEqual([]);
    // Previews took no folio: the first document issued is folio 1.
    const issued = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/emitir`,
      headers: { authorization: `Bearer ${key}` },
      payload: factura(),
    });
    expect(issued.json()).toMatchObject({ folio: 1, totals: p.totals });
    expect(await t.db.prisma.document.count()).toBe(1);
  });

  it('refuses what emitir refuses, naming the field', async () => {
    const res = await post({ ...factura(), items: [{ name: 'x', qty: -1, price: 10 }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('items[0].qty');
    const ref = await post({
      type: 61,
      receiver: { rut: '76354771-K', name: 'Cliente' },
      items: [{ name: 'Devolución', qty: 1, price: 1000 }],
      refs: [{ type: 33, folio: 999, date: '2026-11-01' }],
    });
    expect(ref.statusCode).toBe(400);
    expect(ref.json().code).toBe('REFERENCE_NOT_FOUND');
  });

  it('renders a draft PDF marked BORRADOR — SIN FOLIO', async () => {
    const res = await post(factura(), key, '?format=pdf');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const dir = mkdtempSync(join(tmpdir(), 'preview-'));
    writeFileSync(join(dir, 'p.pdf'), res.rawPayload);
    const text = execFileSync('pdftotext', [join(dir, 'p.pdf'), '-']).toString();
    expect(text).toContain('BORRADOR');
    expect(text).toContain('SIN FOLIO');
    expect(text).not.toContain('Timbre Electrónico SII');
  });

  it('needs a key of the issuer', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/${rut}/preview`, payload: factura() });
    expect(res.statusCode).toBe(401);
    const other = await createTestIssuer(t.ctx);
    const res2 = await t.app.inject({
      method: 'POST',
      url: `/api/${other.rut}/preview`,
      headers: { authorization: `Bearer ${key}` },
      payload: factura(),
    });
    expect(res2.statusCode).toBe(403);
  });
});
