/**
 * Missed documents (README "Missed documents (RCV)"): the SII's RCV compras CSV (real exports,
 * test/fixtures/rcv/) is imported through `POST /api/{rut}/rcv` and reconciled with the received
 * documents: an entry with no received document of the same supplier, type and folio is listed as
 * "en el SII, no recibido por correo" with its 8-day deadline from the SII's reception.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { santiagoTimestamp } from '../../src/dte/chile-time.ts';
import { buildTestApp, createTestKey, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';

let t: TestApp;
let supplier: Supplier;

beforeAll(async () => {
  supplier = standInSupplier();
  t = await buildTestApp({ env: { TIMBRE_EXTRA_CAF_KEYS: supplier.siiPublicKeyPem } });
});

const DAY_MS = 24 * 3_600_000;
const HEADER =
  'Nro;Tipo Doc;Tipo Compra;RUT Proveedor;Razon Social;Folio;Fecha Docto;Fecha Recepcion;Fecha Acuse;Monto Exento;Monto Neto;Monto IVA Recuperable;Monto Iva No Recuperable;Codigo IVA No Rec.;Monto Total';

const fixture = (name: string) => readFileSync(`test/fixtures/rcv/${name}`);

function importCsv(api: KeyClient, rut: string, body: Buffer | string, contentType = 'text/csv') {
  return api.inject({
    method: 'POST',
    url: `/api/${rut}/rcv`,
    headers: { 'content-type': contentType },
    payload: body,
  });
}

/** "DD/MM/YYYY HH:MM:SS" in Santiago, as the SII writes Fecha Recepcion. */
function siiDateTime(d: Date): string {
  const [date, time] = santiagoTimestamp(d).split('T') as [string, string];
  const [y, m, day] = date.split('-');
  return `${day}/${m}/${y} ${time}`;
}

describe('the RCV compras CSV', () => {
  it('imports the real registro export: every entry missing, its deadline from Fecha Recepcion (Santiago)', async () => {
    const { rut, api } = await createTestTenant(t);
    const res = await importCsv(api, rut, fixture('RCV-compra-registro.csv'));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ok: true, imported: 2, nuevos: 2 });
    expect(body.faltantes).toHaveLength(2);
    expect(body.faltantes[0]).toEqual({
      emisor_rut: '12345678-5',
      razon_social: 'Fake Company S.A.',
      tipo_dte: 33,
      folio: 23084,
      fecha_docto: '2019-06-21',
      // 24/06/2019 09:55:53 in Santiago's winter (UTC-4).
      fecha_recepcion: '2019-06-24T13:55:53.000Z',
      monto_total: 285801,
      estado: 'en el SII, no recibido por correo',
      mensaje: expect.stringContaining('ya venció'),
      vence_at: '2019-07-02T13:55:53.000Z',
      dias_restantes: 0,
      vencido: true,
      imported_at: expect.any(String),
    });
    expect(body.faltantes[1]).toMatchObject({ folio: 31000097, fecha_recepcion: '2019-07-03T04:15:30.000Z' });
  });

  it('imports the real pendiente export (no Fecha Acuse column), also as a multipart file', async () => {
    const { rut, api } = await createTestTenant(t);
    const boundary = '----rcv';
    const form = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="RCV.csv"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      fixture('RCV-compra-pendiente.csv'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await importCsv(api, rut, form, `multipart/form-data; boundary=${boundary}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ imported: 2, nuevos: 2 });
    expect(res.json().faltantes.map((f: { folio: number }) => f.folio)).toEqual([9800042, 380007]);
  });

  it('reads Latin-1, CRLF and quoted fields', async () => {
    const { rut, api } = await createTestTenant(t);
    const csv = `${HEADER}\r\n1;33;Del Giro;12345678-5;"Compañía ""Uno""; Ltda.";55;01/11/2026;02/11/2026 10:00:00;;0;100;19;;;119\r\n\r\n`;
    const res = await importCsv(api, rut, Buffer.from(csv, 'latin1'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().faltantes[0]).toMatchObject({
      razon_social: 'Compañía "Uno"; Ltda.',
      folio: 55,
      monto_total: 119,
      // November: Santiago's summer time (UTC-3).
      fecha_recepcion: '2026-11-02T13:00:00.000Z',
    });
  });

  it('is reconciled with the received documents: only what the mailbox did not bring is missing; a re-import does not duplicate', async () => {
    const { issuer, rut, api } = await createTestTenant(t);
    const upload = await api.inject({
      method: 'POST',
      url: `/api/${rut}/recibidos`,
      headers: { 'content-type': 'application/xml' },
      payload: supplier.envelope(rut, [supplier.dte(rut, 7)]),
    });
    expect(upload.json()).toMatchObject({ accepted: true });

    const reception = new Date(t.ctx.clock().getTime() - 2 * DAY_MS - 3_600_000);
    reception.setMilliseconds(0);
    const csv = [
      HEADER,
      `1;33;Del Giro;${SUPPLIER.rut};${SUPPLIER.name};7;20/11/2026;${siiDateTime(reception)};;0;100;19;;;119`,
      `2;33;Del Giro;${SUPPLIER.rut};${SUPPLIER.name};8;20/11/2026;${siiDateTime(reception)};;0;200;38;;;238`,
      `3;61;Del Giro;${SUPPLIER.rut};${SUPPLIER.name};7;20/11/2026;${siiDateTime(reception)};;0;10;2;;;12`,
    ].join('\n');
    const res = await importCsv(api, rut, csv);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ imported: 3, nuevos: 3 });
    expect(body.faltantes.map((f: { tipo_dte: number; folio: number }) => [f.tipo_dte, f.folio])).toEqual([
      [33, 8],
      [61, 7],
    ]);
    expect(body.faltantes[0]).toMatchObject({
      emisor_rut: SUPPLIER.rut,
      estado: 'en el SII, no recibido por correo',
      fecha_recepcion: reception.toISOString(),
      vence_at: new Date(reception.getTime() + 8 * DAY_MS).toISOString(),
      dias_restantes: 5,
      vencido: false,
      monto_total: 238,
    });
    // A nota de crédito is outside the registry's 8-day clock.
    expect(body.faltantes[1]).toMatchObject({ vence_at: null, dias_restantes: null, vencido: false });

    const list = await api.get(`/api/${rut}/rcv/faltantes?limit=1`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toMatchObject({ ok: true, total: 2, page: 1, limit: 1, data: [{ folio: 8, tipo_dte: 33 }] });
    const page2 = await api.get(`/api/${rut}/rcv/faltantes?limit=1&page=2`);
    expect(page2.json().data).toMatchObject([{ folio: 7, tipo_dte: 61 }]);

    const again = await importCsv(api, rut, csv.replace(';119', ';120'));
    expect(again.json()).toMatchObject({ imported: 3, nuevos: 0 });
    expect(await t.db.prisma.rcvEntry.count({ where: { issuerId: issuer.id } })).toBe(3);
    const updated = await t.db.prisma.rcvEntry.findFirstOrThrow({
      where: { issuerId: issuer.id, folio: 7n, type: 33 },
    });
    expect(updated.montoTotal).toBe(120n);
  });

  it('imports a large file in chunks: every row once, the answer capped, the list paged', async () => {
    const { issuer, rut, api } = await createTestTenant(t);
    const lines = Array.from(
      { length: 4_500 },
      (_, i) => `${i + 1};33;Del Giro;12345678-5;Proveedor;${i + 1};01/11/2026;02/11/2026 10:00:00;;0;100;19;;;119`,
    );
    const csv = [HEADER, ...lines].join('\r\n');
    const res = await importCsv(api, rut, csv);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ imported: 4_500, nuevos: 4_500 });
    expect(res.json().faltantes).toHaveLength(1_000);
    expect((await api.get(`/api/${rut}/rcv/faltantes?limit=100&page=45`)).json()).toMatchObject({
      total: 4_500,
      data: expect.arrayContaining([expect.objectContaining({ folio: expect.any(Number) })]),
    });
    expect((await importCsv(api, rut, csv)).json()).toMatchObject({ imported: 4_500, nuevos: 0 });
    expect(await t.db.prisma.rcvEntry.count({ where: { issuerId: issuer.id } })).toBe(4_500);
  });

  it('refuses a file that is not an RCV compras CSV, naming the column, and a bad row, naming it', async () => {
    const { rut, api } = await createTestTenant(t);
    const venta =
      'Nro;Tipo Doc;Tipo Venta;Rut cliente;Razon Social;Folio;Fecha Docto;Fecha Recepcion;Monto Total\n1;33;Del Giro;12345678-5;X;1;01/11/2026;02/11/2026 10:00:00;119\n';
    const res = await importCsv(api, rut, venta);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'VALIDATION_FAILED' });
    expect(res.json().error).toContain('missing column "RUT Proveedor"');

    const badDate = `${HEADER}\n1;33;Del Giro;12345678-5;X;1;01/11/2026;2026-13-40 10:00;;0;100;19;;;119\n`;
    const bad = await importCsv(api, rut, badDate);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain('row 2, column "Fecha Recepcion"');

    const empty = await importCsv(api, rut, '');
    expect(empty.statusCode).toBe(400);
  });

  it('security: a viewer may list but not import (403); another issuer cannot reach it', async () => {
    const { rut } = await createTestTenant(t);
    const viewer = t.as(await createTestKey(t.ctx, rut, 'viewer'));
    const res = await importCsv(viewer, rut, fixture('RCV-compra-registro.csv'));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect((await viewer.get(`/api/${rut}/rcv/faltantes`)).statusCode).toBe(200);
    const other = await createTestTenant(t);
    expect((await importCsv(other.api, rut, fixture('RCV-compra-registro.csv'))).statusCode).toBe(403);
  });
});
