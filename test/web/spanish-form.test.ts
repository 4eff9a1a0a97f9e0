/**
 * The dashboard's issue form says every refusal in Spanish: representative invalid inputs go
 * through the form (its live totals and its preview), and no English is found in the answers.
 * The field texts come from each detail's rule id (src/web/messages.ts), not from the English.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';

let t: TestApp;
/** English that must never reach the page (the leaks once found on the dashboard, and their family). */
const ENGLISH =
  /must be|must not|is not allowed|is required|There are no|Invalid input|expected|received|characters|\(SII FechaType\)|document of type|Valor no válido \(/i;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

const RECEIVER = {
  receiver_rut: '76354771-K',
  receiver_name: 'Distribuidora Los Aromos Ltda.',
  receiver_activity: 'Comercio',
  receiver_address: 'Av. Italia 123',
  receiver_comuna: 'Ñuñoa',
  receiver_city: 'Santiago',
};
const LINE = { item_name: 'Clavos 2" (caja)', item_qty: '10', item_price: '1350' };

/** Representative invalid inputs, each with a Spanish word its answer must carry. */
const CASES: { name: string; form: Record<string, string>; says: RegExp }[] = [
  {
    name: 'a date beyond FechaType',
    form: { type: '33', date: '2051-01-01', ...RECEIVER, ...LINE },
    says: /31-12-2050/,
  },
  {
    name: 'a bidirectional control character',
    form: { type: '33', ...RECEIVER, receiver_name: 'Los Aromos \u202e', ...LINE },
    says: /U\+202E/,
  },
  { name: 'a negative quantity', form: { type: '33', ...RECEIVER, ...LINE, item_qty: '-2' }, says: /mayor que 0/ },
  { name: 'a line without price', form: { type: '33', ...RECEIVER, ...LINE, item_price: '' }, says: /obligatorio/ },
  {
    name: 'missing receiver fields',
    form: { type: '33', receiver_rut: RECEIVER.receiver_rut, receiver_name: 'Los Aromos', ...LINE },
    says: /El SII lo exige en el tipo 33/,
  },
  {
    name: 'a giro longer than the SII allows',
    form: { type: '33', ...RECEIVER, receiver_activity: 'x'.repeat(74), ...LINE },
    says: /Máximo 40 caracteres/,
  },
  {
    name: 'a malformed e-mail',
    form: { type: '33', ...RECEIVER, receiver_email: 'pagos,cobros@aromos.cl', ...LINE },
    says: /correo/,
  },
  { name: 'a bad RUT', form: { type: '33', ...RECEIVER, receiver_rut: '76354771-1', ...LINE }, says: /RUT/ },
  { name: 'a discount over 100 %', form: { type: '33', ...RECEIVER, ...LINE, item_discount: '150' }, says: /100/ },
  {
    name: 'a text correction on a debit note',
    form: { type: '56', ...RECEIVER, ...LINE, ref_type: '33', ref_folio: '1', ref_date: '2026-11-02', ref_code: '2' },
    says: /notas de crédito \(61\)/,
  },
  {
    name: 'a reference to a document that does not exist',
    form: {
      type: '61',
      receiver_rut: RECEIVER.receiver_rut,
      receiver_name: 'Los Aromos',
      ...LINE,
      ref_type: '33',
      ref_folio: '999',
      ref_date: '2026-11-02',
      ref_code: '3',
    },
    says: /No existe el documento tipo 33 folio 999/,
  },
];

describe('the issue form speaks Spanish', () => {
  it.each(CASES)('$name: live totals and preview', async ({ form, says }) => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 0 });
    const { csrf, headers } = await dashboardSession(t, issuer);
    const payload = new URLSearchParams({ _csrf: csrf, ...form });

    const totals = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/emitir/totales`,
      headers,
      payload: payload.toString(),
    });
    const live = totals.json() as { ok: boolean; errors?: Record<string, string> };
    expect(live.ok, totals.body).toBe(false);
    const texts = Object.values(live.errors ?? {});
    for (const text of texts) expect(text).not.toMatch(ENGLISH);
    expect(texts.join(' ')).toMatch(says);

    payload.set('action', 'preview');
    const preview = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/emitir`,
      headers,
      payload: payload.toString(),
    });
    expect(preview.statusCode).toBeGreaterThanOrEqual(400);
    const errors = [...preview.body.matchAll(/<p class="field-error"[^>]*>([^<]*)<\/p>/g)].map((m) => m[1] ?? '');
    expect(errors.length).toBeGreaterThan(0);
    for (const text of errors) expect(text).not.toMatch(ENGLISH);
    expect(preview.body).not.toMatch(ENGLISH);
  });

  it('warns in Spanish when a live issuer has no folios for the type (live totals)', async () => {
    const issuer = await createTestIssuer(t.ctx, { ambiente: 1 });
    const { csrf, headers } = await dashboardSession(t, issuer);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${issuer.rut}/emitir/totales`,
      headers,
      payload: new URLSearchParams({
        _csrf: csrf,
        type: '39',
        item_name: 'Café',
        item_qty: '1',
        item_price: '1000',
      }).toString(),
    });
    const body = res.json() as { ok: boolean; warnings?: string[] };
    expect(body.ok, res.body).toBe(true);
    expect(body.warnings?.join(' ')).toMatch(/No quedan folios de producción para el tipo 39/);
    for (const w of body.warnings ?? []) expect(w).not.toMatch(ENGLISH);
  });
});
