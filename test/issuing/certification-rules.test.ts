/**
 * The SII's format rules that the XSD does not check (README "SII format rules"), each in a test
 * named after its rule, through the HTTP API with a real database (sandbox issuer). Sources: the SII's "Formato
 * Documentos Tributarios Electrónicos" v2.2 (FMT), "Manual de Muestras Impresas" (MUE) and
 * "Formato Boletas Electrónicas" v4.2 (FMTB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';
import { documentContent, signedXmlOf } from '../../src/issuing/document-content.ts';

/** The real date of the run (the injected clock): 2026-11-23 in Santiago. */
const NOW = new Date('2026-11-23T15:00:00Z');
const UF = 1000; // 135 UF = 135 000 pesos in this file

let t: TestApp;
let rut: string;
let issuerName: string;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await buildTestApp({
    clock: () => NOW,
    env: { UF_CLP: String(UF), SII_SOFTWARE_PROVIDER_RUT: '76354771-K' },
  });
  const issuer = await createTestIssuer(t.ctx);
  rut = issuer.rut;
  issuerName = issuer.name;
  auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'owner')}` };
});

afterAll(async () => {
  await t.close();
});

interface Issued {
  type: number;
  folio: number;
  date: string;
  estado_sii: string;
  totals: { net: number; exempt: number; vat: number; total: number };
}

const post = (payload: unknown) =>
  t.app.inject({ method: 'POST', url: `/api/${rut}/emitir`, headers: auth, payload: payload as object });

async function issue(payload: unknown): Promise<Issued> {
  const res = await post(payload);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A 400 whose details name `path`; nothing stored. */
async function refused(payload: unknown, path: string, code = 'VALIDATION_FAILED'): Promise<string> {
  const before = await t.ctx.db.prisma.document.count();
  const res = await post(payload);
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json();
  expect(body.code).toBe(code);
  expect(body.details.map((d: { path: string }) => d.path)).toContain(path);
  expect(await t.ctx.db.prisma.document.count()).toBe(before);
  return body.details.find((d: { path: string }) => d.path === path).message;
}

async function xmlOf(d: { type: number; folio: number }): Promise<string> {
  const row = await t.ctx.db.prisma.document.findFirstOrThrow({ where: { type: d.type, folio: d.folio } });
  return (await signedXmlOf(t.ctx, row)).toString('latin1');
}

async function estadoOf(d: { type: number; folio: number }): Promise<string> {
  const row = await t.ctx.db.prisma.document.findFirstOrThrow({ where: { type: d.type, folio: d.folio } });
  return row.estadoSii;
}

const leaf = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

const refTo = (d: Issued, over: Record<string, unknown> = {}) => ({
  type: d.type,
  folio: d.folio,
  date: d.date,
  reason: 'Anula documento',
  ...over,
});

describe('rule 1: FmaPago (FMT field 13)', () => {
  it('is written on every non-boleta type, 1 (contado) by default, and as sent', async () => {
    expect(leaf(await xmlOf(await issue(factura())), 'FmaPago')).toBe('1');
    expect(leaf(await xmlOf(await issue(factura({ payment: 2 }))), 'FmaPago')).toBe('2');
    expect(leaf(await xmlOf(await issue(requestFor(52))), 'FmaPago')).toBe('1');
  });

  it('boletas have no FmaPago: none is written, and `payment` on a boleta is a 400', async () => {
    expect(await xmlOf(await issue(requestFor(39)))).not.toContain('FmaPago');
    await refused({ ...(requestFor(39) as object), payment: 1 }, 'payment');
  });
});

describe('rule 2: receiver fields per type (FMT 57, 60, 61)', () => {
  it('a 61 with only rut and name takes giro, address and comuna from the referenced document', async () => {
    const original = await issue(factura());
    const note = await issue({
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      refs: [refTo(original, { code: 3, reason: 'Descuento' })],
      items: [{ name: 'Descuento por volumen', qty: 1, price: 1000 }],
    });
    const xml = await xmlOf(note);
    expect(leaf(xml, 'GiroRecep')).toBe(RECEIVER.activity);
    expect(leaf(xml, 'CmnaRecep')).toBe(RECEIVER.comuna);
    expect(xml).toContain('<DirRecep>Av. Libertador B. O&#8217;Higgins 1449, of. 2°</DirRecep>');
  });
});

describe('rule 3: references (FMT Referencias, MUE)', () => {
  it('a note names the receiver of the document it modifies', async () => {
    const original = await issue(factura());
    await refused(
      { type: 61, receiver: { rut: '13185095-6', name: 'Otro' }, refs: [refTo(original)], items: factura().items },
      'receiver.rut',
    );
  });

  it('FchRef is the referenced document’s date', async () => {
    const original = await issue(factura({ date: '2026-11-20' }));
    const message = await refused(
      {
        type: 61,
        receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
        refs: [refTo(original, { date: '2026-11-21' })],
        items: factura().items,
      },
      'refs[0].date',
    );
    expect(message).toContain('2026-11-20');
  });

  it('a note never credits more than what remains after earlier notes', async () => {
    const original = await issue(factura({ items: [{ name: 'Caja', qty: 1, price: 10000 }] })); // 11 900
    const credit = (price: number) => ({
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      refs: [refTo(original, { code: 3, reason: 'Descuento' })],
      items: [{ name: 'Descuento', qty: 1, price }],
    });
    await issue(credit(6000)); // 7 140 credited, 4 760 remain
    await refused(credit(5000), 'items', 'TOTALS_MISMATCH'); // 5 950 > 4 760
    await issue(credit(4000)); // 4 760
    await refused(credit(1), 'items', 'TOTALS_MISMATCH');
  });

  it('a 56 voids only a credit note, and voiding the 61 restores the original', async () => {
    const original = await issue(factura());
    await refused(
      { type: 56, receiver: RECEIVER, refs: [refTo(original, { code: 1 })], items: factura().items },
      'refs[0].code',
    );
    const note = await issue({
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      refs: [refTo(original)],
      items: factura().items,
    });
    expect(await estadoOf(original)).toBe('anulado');
    const debit = await issue({
      type: 56,
      receiver: RECEIVER,
      refs: [refTo(note, { code: 1 })],
      items: factura().items,
    });
    expect(leaf(await xmlOf(debit), 'CodRef')).toBe('1');
    expect(await estadoOf(note)).toBe('anulado');
    expect(await estadoOf(original)).toBe('local');
    // Each change is announced once: the original voided, then restored; the note voided.
    const events = await t.app.inject({ method: 'GET', url: `/api/${rut}/events?limit=100`, headers: auth });
    const about = (d: Issued) =>
      events
        .json()
        .data.filter(
          (e: { data: { type?: number; folio?: number } }) => e.data.type === d.type && e.data.folio === d.folio,
        )
        .map((e: { type: string }) => e.type)
        .sort();
    expect(about(original)).toEqual(['document.issued', 'document.restored', 'document.voided']);
    expect(about(note)).toEqual(['document.issued', 'document.voided']);
  });

  it('CodRef 2 exists only on a 61; a note does not void a guía or a paper document', async () => {
    const guia = await issue(requestFor(52));
    await refused(
      { type: 61, receiver: { rut: RECEIVER.rut, name: RECEIVER.name }, refs: [refTo(guia)], items: factura().items },
      'refs[0].type',
    );
    await refused(
      {
        type: 61,
        receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
        refs: [{ type: 30, folio: 77, date: '2026-01-05', code: 1 }],
        items: factura().items,
      },
      'refs[0].type',
    );
  });

  it('references to non-tax documents carry no CodRef and never default to one', async () => {
    const original = await issue(factura());
    const note = await issue({
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      refs: [refTo(original), { type: 801, folio: 'OC-4471', date: '2026-11-02', reason: 'Orden de compra' }],
      items: factura().items,
    });
    const refs = [...(await xmlOf(note)).matchAll(/<Referencia>([\s\S]*?)<\/Referencia>/g)].map((m) => m[1]!);
    expect(refs).toHaveLength(2);
    expect(leaf(refs[0]!, 'CodRef')).toBe('1');
    expect(leaf(refs[1]!, 'TpoDocRef')).toBe('801');
    expect(refs[1]).not.toContain('CodRef');
    await refused(
      {
        type: 61,
        receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
        refs: [refTo(original), { type: 801, folio: 'OC-4471', date: '2026-11-02', code: 1 }],
        items: factura().items,
      },
      'refs[1].code',
    );
  });
});

describe('rule 4: notes on a boleta take gross prices (FMT field 10 MntBruto)', () => {
  it('a 61 voids boleta 39 of 680 exactly', async () => {
    const boleta = await issue({ type: 39, items: [{ name: 'Pan amasado', qty: 1, price: 680 }] });
    expect(boleta.totals).toMatchObject({ net: 571, vat: 109, total: 680 });
    const note = await issue({
      type: 61,
      receiver: { rut: '66666666-6', name: 'Cliente boleta' },
      refs: [refTo(boleta)],
      items: [{ name: 'Pan amasado', qty: 1, price: 680 }],
    });
    expect(note.totals).toMatchObject({ net: 571, vat: 109, total: 680 });
    const xml = await xmlOf(note);
    expect(leaf(xml, 'MntBruto')).toBe('1');
    expect(leaf(xml, 'MntTotal')).toBe('680');
    expect(await estadoOf(boleta)).toBe('anulado');
  });
});

describe('rule 5: notes on a factura de compra carry its VAT retention (ImptoReten 15)', () => {
  it('a 61 voids a 46', async () => {
    const compra = await issue({ ...(requestFor(46) as object), items: [{ name: 'Chatarra', qty: 1, price: 10000 }] });
    expect(compra.totals.total).toBe(10000);
    const seller = (requestFor(46) as { receiver: { rut: string; name: string } }).receiver;
    const note = await issue({
      type: 61,
      receiver: { rut: seller.rut, name: seller.name },
      refs: [refTo(compra)],
      items: [{ name: 'Chatarra', qty: 1, price: 10000 }],
    });
    expect(note.totals).toMatchObject({ net: 10000, vat: 1900, total: 10000 });
    const xml = await xmlOf(note);
    expect(leaf(xml, 'TipoImp')).toBe('15');
    expect(leaf(xml, 'MontoImp')).toBe('1900');
    expect(await estadoOf(compra)).toBe('anulado');
  });
});

describe('rule 6: guía 52', () => {
  it('IndTraslado 5 (internal transfer) has the issuer as receiver', async () => {
    const guia = await issue({ type: 52, dispatch: { transfer_type: 5 }, items: [{ name: 'Estanterías', qty: 4 }] });
    const xml = await xmlOf(guia);
    expect(leaf(xml, 'RUTRecep')).toBe(rut);
    expect(leaf(xml, 'RznSocRecep')).toBe(issuerName.replace('&', '&amp;'));
    await refused({ ...(requestFor(52) as object), dispatch: { transfer_type: 5 } }, 'receiver.rut');
  });

  it('IndTraslado 1 (a sale) needs prices; 8/9 (exports) are a clear 400', async () => {
    await refused({ ...(requestFor(52) as object), dispatch: { transfer_type: 1 } }, 'items[0].price');
    const message = await refused(
      { ...(requestFor(52) as object), dispatch: { transfer_type: 9 } },
      'dispatch.transfer_type',
    );
    expect(message).toMatch(/export/);
  });

  it('dispatch.transport is written as Transporte; DirDest/CmnaDest when the issuer delivers', async () => {
    await refused(
      { ...(requestFor(52) as object), dispatch: { transfer_type: 6, dispatch_type: 2 } },
      'dispatch.transport.address',
    );
    const guia = await issue({
      ...(requestFor(52) as object),
      dispatch: {
        transfer_type: 6,
        dispatch_type: 2,
        transport: {
          plate: 'KXLB12',
          carrier_rut: '76354771-K',
          driver: { rut: '13185095-6', name: 'Pedro Soto' },
          address: 'Camino a Melipilla 9800',
          comuna: 'Maipú',
          city: 'Santiago',
        },
      },
    });
    const transporte = /<Transporte>([\s\S]*?)<\/Transporte>/.exec(await xmlOf(guia))?.[1] ?? '';
    expect(transporte.replace(/>\s+</g, '><').trim()).toBe(
      '<Patente>KXLB12</Patente><RUTTrans>76354771-K</RUTTrans><Chofer><RUTChofer>13185095-6</RUTChofer>' +
        '<NombreChofer>Pedro Soto</NombreChofer></Chofer><DirDest>Camino a Melipilla 9800</DirDest>' +
        '<CmnaDest>Maipú</CmnaDest><CiudadDest>Santiago</CiudadDest>',
    );
  });
});

describe('rule 7: boletas (FMTB)', () => {
  const big = { type: 39, items: [{ name: 'Televisor', qty: 1, price: 135001 }] };

  it('above 135 UF the buyer is identified and MedioPago given', async () => {
    await issue({ type: 39, items: [{ name: 'Televisor', qty: 1, price: 135000 }] }); // exactly 135 UF
    await refused(big, 'receiver.rut');
    await refused({ ...big, receiver: { rut: '13185095-6' } }, 'receiver.name');
    await refused({ ...big, receiver: { rut: '13185095-6', name: 'José Muñoz' } }, 'payment_method');
    const ok = await issue({ ...big, receiver: { rut: '13185095-6', name: 'José Muñoz' }, payment_method: 2 });
    expect(leaf(await xmlOf(ok), 'MedioPago')).toBe('2');
  });

  it('service_indicator 2 needs its period, due date and address (PeriodoDesde/Hasta, FchVenc, DirRecep)', async () => {
    const base = { ...(requestFor(39) as object), service_indicator: 2 };
    await refused(base, 'service_period');
    await refused(base, 'due_date');
    const ok = await issue({
      ...base,
      receiver: { rut: '13185095-6', address: 'Los Aromos 44' },
      service_period: { from: '2026-10-01', to: '2026-10-31' },
      due_date: '2026-11-30',
    });
    const xml = await xmlOf(ok);
    expect(leaf(xml, 'PeriodoDesde')).toBe('2026-10-01');
    expect(leaf(xml, 'PeriodoHasta')).toBe('2026-10-31');
    expect(leaf(xml, 'FchVenc')).toBe('2026-11-30');
  });

  it('RUTProvSW is written when configured (SII_SOFTWARE_PROVIDER_RUT)', async () => {
    expect(leaf(await xmlOf(await issue(requestFor(41))), 'RUTProvSW')).toBe('76354771-K');
    expect(await xmlOf(await issue(factura()))).not.toContain('RUTProvSW');
  });
});

describe('rule 10: exempt documents 34/41 do not mark lines IndExe (FMT footnote 10)', () => {
  it('34 and 41 carry MntExe and no IndExe', async () => {
    for (const type of [34, 41]) {
      const xml = await xmlOf(await issue(requestFor(type)));
      expect(xml).not.toContain('IndExe');
      expect(leaf(xml, 'MntExe')).toBe(leaf(xml, 'MntTotal'));
    }
  });
});

describe('rule 8: a percentage discount always carries its amount (FMT Detalle 30)', () => {
  it('DescuentoPct is written with DescuentoMonto', async () => {
    const xml = await xmlOf(
      await issue(factura({ items: [{ name: 'Tornillo', qty: 3, price: 50, discount_pct: 1 }] })),
    );
    expect(leaf(xml, 'DescuentoPct')).toBe('1');
    expect(leaf(xml, 'DescuentoMonto')).toBe('2'); // 150 × 1 % = 1.5 → 2
    expect(leaf(xml, 'MontoItem')).toBe('148');
  });

  it('a discount that rounds to $0 is refused (DescuentoMonto is at least 1 in DTE_v10.xsd)', async () => {
    await refused(
      factura({ items: [{ name: 'Tornillo', qty: 1, price: 10, discount_pct: 1 }] }),
      'items[0].discount_pct',
    );
  });
});

describe('rule 11: TED text escapes quotes as the MUE says', () => {
  it('a receiver and an item named only with quotes give a non-empty RSR and IT1', async () => {
    const d = await issue(
      factura({ receiver: { ...RECEIVER, name: '"\'"' }, items: [{ name: '""', qty: 1, price: 100 }] }),
    );
    const row = await t.ctx.db.prisma.document.findFirstOrThrow({ where: { type: d.type, folio: d.folio } });
    const { ted } = await documentContent(t.ctx, row);
    expect(ted).toContain('<RSR>&quot;&apos;&quot;</RSR>');
    expect(ted).toContain('<IT1>&quot;&quot;</IT1>');
  });
});

describe('rule 9: dates and the CAF', () => {
  it('FchEmis is never before the CAF’s FA, in sandbox too (TED-1-646), and consumes no folio', async () => {
    await issue(factura()); // the sandbox range exists (FA 2025-01-01)
    const caf = await t.ctx.db.prisma.caf.findFirstOrThrow({ where: { type: 33 } });
    expect(caf.authorisedAt.toISOString().slice(0, 10)).toBe('2025-01-01');
    const message = await refused(factura({ date: '2024-12-31' }), 'date');
    expect(message).toContain('2025-01-01');
    const again = await issue(factura());
    const after = await t.ctx.db.prisma.caf.findFirstOrThrow({ where: { id: caf.id } });
    expect(after.nextFolio).toBe(again.folio + 1);
  });

  it('a CAF’s expiry is judged against the real date: a backdated document does not consume an expired CAF (CAF-3-517)', async () => {
    const issued = await issue({ ...(requestFor(34) as object) });
    const caf = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { type: 34, folio: issued.folio, environment: 'sandbox' },
      select: { cafId: true },
    });
    const before = await t.ctx.db.prisma.caf.findUniqueOrThrow({ where: { id: caf.cafId } });
    // The range expired on 2026-06-01; the document says 2026-05-15 but it is 2026-11-23.
    await t.ctx.db.prisma.caf.update({
      where: { id: caf.cafId },
      data: { expiresAt: new Date('2026-06-01T00:00:00Z') },
    });
    try {
      const res = await post({ ...(requestFor(34) as object), date: '2026-05-15' });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().code).toBe('FOLIOS_EXHAUSTED');
    } finally {
      // Other tests of this file issue 34s from the same range, in any order.
      await t.ctx.db.prisma.caf.update({ where: { id: caf.cafId }, data: { expiresAt: before.expiresAt } });
    }
  });
});
