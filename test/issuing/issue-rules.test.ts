/**
 * What a caller notices around issuing: validation with field paths and no folio consumed,
 * folio exhaustion (422), voiding rules, references, roles.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSandboxRange } from '../../src/issuing/folios.ts';
import { buildTestApp, createTestKey, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';
import { manualClock } from '../helpers/time.ts';

let t: TestApp;
let rut: string;
let api: KeyClient;

beforeAll(async () => {
  t = await buildTestApp();
  ({ rut, api } = await createTestTenant(t));
});

const post = (payload: unknown, client = api) => client.post(`/api/${rut}/emitir`, payload);

async function folioState(type: number) {
  const res = await api.get(`/api/${rut}/folios`);
  const entry = res.json().data.find((d: { type: number }) => d.type === type);
  return { available: entry?.available ?? 0, next: entry?.ranges?.[0]?.next ?? null };
}

async function documentCount() {
  return t.ctx.db.prisma.document.count();
}

describe('validation (400 with the field named) consumes no folio and stores nothing', () => {
  it.each([
    ['type missing', { receiver: RECEIVER, items: [{ name: 'x', qty: 1, price: 1 }] }, 'type'],
    ['type invalid', { ...factura(), type: 35 }, 'type'],
    ['items missing', { type: 33, receiver: RECEIVER }, 'items'],
    ['items empty', { ...factura(), items: [] }, 'items'],
    ['receiver.rut malformed', { ...factura(), receiver: { ...RECEIVER, rut: '76354771' } }, 'receiver.rut'],
    ['receiver.rut wrong check digit', { ...factura(), receiver: { ...RECEIVER, rut: '76354771-1' } }, 'receiver.rut'],
    ['qty zero', { ...factura(), items: [{ name: 'x', qty: 0, price: 100 }] }, 'items[0].qty'],
    ['negative price', { ...factura(), items: [{ name: 'x', qty: 1, price: -1 }] }, 'items[0].price'],
    ['impossible date', { ...factura(), date: '2026-02-30' }, 'date'],
    ['name too long', { ...factura(), items: [{ name: 'x'.repeat(81), qty: 1, price: 1 }] }, 'items[0].name'],
    [
      'refs missing on a credit note',
      { type: 61, receiver: { rut: RECEIVER.rut, name: 'X' }, items: [{ name: 'x', qty: 1, price: 1 }] },
      'refs',
    ],
    [
      'refs missing on a debit note',
      { type: 56, receiver: RECEIVER, items: [{ name: 'x', qty: 1, price: 1 }] },
      'refs',
    ],
    ['unknown field', { ...factura(), colour: 'red' }, 'Unrecognized key: "colour"'],
    [
      'unknown field in a line (a misspelt discount_pct)',
      { ...factura(), items: [{ name: 'x', qty: 1, price: 100, discount_pc: 10 }] },
      'items[0] Unrecognized key: "discount_pc"',
    ],
    [
      'rule 2: a factura receiver without giro, address and comuna',
      { ...factura(), receiver: { rut: RECEIVER.rut, name: RECEIVER.name } },
      ['receiver.activity', 'receiver.address', 'receiver.comuna'],
    ],
    [
      'rule 3: CodRef 2 on a debit note',
      {
        type: 56,
        receiver: RECEIVER,
        items: [{ name: 'x', qty: 1 }],
        refs: [{ type: 33, folio: 1, date: '2026-01-01', code: 2, reason: 'x' }],
      },
      'refs[0].code',
    ],
    [
      'more than 60 lines',
      { ...factura(), items: Array.from({ length: 61 }, () => ({ name: 'x', qty: 1, price: 1 })) },
      'items',
    ],
  ] as [string, unknown, string | string[]][])('%s', async (_name, payload, path) => {
    await post(factura()); // make sure the range exists so "no folio consumed" is observable
    const before = await folioState(33);
    const docs = await documentCount();
    const res = await post(payload);
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.ok).toBe(false);
    expect(body.code).toBe('VALIDATION_FAILED');
    // The answer names the field: in a detail's path, or (for an unknown one) its message.
    const details: { path: string; message: string }[] = body.details;
    if (Array.isArray(path)) {
      // Several missing fields: each is a detail of its own, with its own path.
      expect(details.map((d) => d.path)).toEqual(expect.arrayContaining(path));
    } else {
      expect(details.map((d) => `${d.path} ${d.message}`).join(' | ')).toContain(path);
    }
    expect(await folioState(33)).toEqual(before);
    expect(await documentCount()).toBe(docs);
  });
});

describe('roles', () => {
  it('a viewer cannot issue (403) and nothing is consumed', async () => {
    const viewer = t.as(await createTestKey(t.ctx, rut, 'viewer'));
    const before = await folioState(33);
    const res = await post(factura(), viewer);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN_ROLE');
    expect(await folioState(33)).toEqual(before);
  });
});

describe('folios', () => {
  it('exhausted folios → 422 naming the type and pointing at folios_sii; a new range fixes it', async () => {
    const { issuer: other, api: key } = await createTestTenant(t);
    await generateSandboxRange(t.ctx, other, 34, 2);
    const req = { type: 34, receiver: RECEIVER, items: [{ name: 'Servicio exento', qty: 1, price: 1000 }] };
    const send = () => key.post(`/api/${other.rut}/emitir`, req);
    expect((await send()).json().folio).toBe(1);
    expect((await send()).json().folio).toBe(2);
    const res = await send();
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('FOLIOS_EXHAUSTED');
    expect(res.json().error).toMatch(/34/);
    expect(res.json().error).toMatch(/folios_sii/);
    const more = await key.post(`/api/${other.rut}/folios_sii`, { tipo_dte: 34, cantidad: 5 });
    expect(more.statusCode, more.body).toBe(200);
    expect(more.json()).toMatchObject({ ok: true, type: 34, from: 3, to: 7, count: 5 });
    expect((await send()).json().folio).toBe(3);
    const folios = await key.get(`/api/${other.rut}/folios`);
    expect(folios.json().data).toEqual([
      {
        type: 34,
        available: 4,
        ranges: [
          expect.objectContaining({ from: 1, to: 2, next: 3, available: 0 }),
          expect.objectContaining({ from: 3, to: 7, next: 4, available: 4 }),
        ],
        low_threshold: 20,
        to_annul: [],
      },
    ]);
  });

  it('sandbox ranges never expire, even for types whose live CAFs do (33: 180 days)', async () => {
    await post(factura());
    const res = await api.get(`/api/${rut}/folios`);
    const ranges = res.json().data.find((d: { type: number }) => d.type === 33).ranges;
    expect(ranges.length).toBeGreaterThan(0);
    for (const r of ranges) expect(r).toMatchObject({ expires_at: null, expired: false });
  });

  it('folios_sii refuses bad bodies', async () => {
    for (const payload of [
      { tipo_dte: 99, cantidad: 5 },
      { tipo_dte: 33, cantidad: 0 },
      { tipo_dte: 33, cantidad: 10_001 },
      { tipo_dte: 33 },
    ]) {
      const res = await api.post(`/api/${rut}/folios_sii`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('references and voiding', () => {
  it('a credit note voiding with different totals → 400 and nothing changes', async () => {
    const f = (await post(factura())).json();
    const res = await post({
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      items: [{ name: 'Devolución parcial', qty: 1, price: 100 }],
      refs: [{ type: 33, folio: f.folio, date: f.date, code: 1, reason: 'Anula' }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('TOTALS_MISMATCH');
    const doc = await t.ctx.db.prisma.document.findFirst({ where: { folio: f.folio, type: 33 } });
    expect(doc?.estadoSii).toBe('local');
  });

  it('a reference to a folio this issuer never issued is refused for DTE types, accepted for 801', async () => {
    const unknown = await post({
      type: 56,
      receiver: RECEIVER,
      items: [{ name: 'Ajuste', qty: 1, price: 100 }],
      refs: [{ type: 33, folio: 999_999, date: '2026-01-01', reason: 'x' }],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('REFERENCE_NOT_FOUND');
    const oc = await post({
      ...factura(),
      refs: [{ type: 801, folio: 4500012345, date: '2026-01-01', reason: 'Orden de compra' }],
    });
    expect(oc.statusCode, oc.body).toBe(200);
  });
});

describe('the default date', () => {
  it.each([
    // Summer (UTC−3): 22:30 in Santiago is already 01:30 of the next day in UTC.
    ['2026-11-24T01:30:00Z', '2026-11-23'],
    // Winter (UTC−4): 23:59 in Santiago, 03:59 UTC of the next day.
    ['2026-07-15T03:59:00Z', '2026-07-14'],
    // 21:00 sharp in Santiago (summer), and just after midnight: the date has moved.
    ['2026-11-24T00:00:00Z', '2026-11-23'],
    ['2026-11-24T03:00:30Z', '2026-11-24'],
  ])('issued at %s (UTC) the document is dated %s, the day in Santiago', async (at, expected) => {
    const clocked = await buildTestApp({ clock: manualClock(at), shareDatabaseOf: t });
    const { rut: r, api: k } = await createTestTenant(clocked);
    const res = await k.post(`/api/${r}/emitir`, factura());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().date).toBe(expected);
    const xml = await k.get(`/api/${r}/xml/33/${res.json().folio}`);
    expect(xml.rawPayload.toString('latin1')).toContain(`<FchEmis>${expected}</FchEmis>`);
  });
});
