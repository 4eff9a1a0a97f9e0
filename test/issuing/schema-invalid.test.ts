/**
 * "A failure there is our bug (500 `DOCUMENT_SCHEMA_INVALID` …); nothing is stored and the folio
 * goes back" (README, "The issue request"). The request rules keep every request-made value
 * inside the XSD, so the path is reached the way a real bug would reach it: through data that
 * did not pass those rules. The issuer's row is written as an operator's SQL could write it
 * (an Acteco of 7 digits; the XSD allows 6, and `issuer create|update` refuses it), so the
 * bytes Timbre builds genuinely fail the official schema. No product seam is involved. The edit
 * is announced on the change feed, as the README asks of an operator's SQL (running instances
 * keep the issuer of each API key in memory).
 */
import { expect, it } from 'vitest';
import { changing } from '../../src/admin/changes.ts';
import { buildTestApp, createTestTenant } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

it('a document whose bytes fail the XSD is a 500 DOCUMENT_SCHEMA_INVALID: nothing stored, the folio goes back', async () => {
  const t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  const { issuer, rut, api } = await createTestTenant(t);
  const first = await api.post(`/api/${rut}/emitir`, factura());
  expect(first.statusCode).toBe(200);
  const folio = first.json().folio as number;

  const editIssuer = (acteco: string) =>
    changing(t.ctx, { kind: 'issuer', issuerId: issuer.id }, (tx) =>
      tx.issuer.update({ where: { id: issuer.id }, data: { acteco: [acteco] } }),
    );
  await editIssuer('4752019');
  const documents = () => t.db.prisma.document.count({ where: { issuerId: issuer.id } });
  const events = () => t.db.prisma.event.count({ where: { issuerId: issuer.id } });
  const [docsBefore, eventsBefore] = [await documents(), await events()];

  const failed = await api.post(`/api/${rut}/emitir`, factura());
  expect(failed.statusCode).toBe(500);
  const body = failed.json();
  expect(body).toMatchObject({ ok: false, code: 'DOCUMENT_SCHEMA_INVALID' });
  expect(body.error).toMatch(/XSD/);
  expect(body.request_id).toBe(failed.headers['x-request-id']);
  // The XSD's complaint is in the log for us, not in the answer for the client.
  expect(JSON.stringify(body)).not.toMatch(/Acteco/);
  const logged = t.logs.find((l) => l.includes('generated DTE does not verify'));
  expect(logged).toMatch(/Acteco/);
  expect(JSON.parse(logged!)).toMatchObject({ type: 33, folio: folio + 1 });

  expect(await documents()).toBe(docsBefore);
  expect(await events()).toBe(eventsBefore);
  // Released, not left to its lease: the reservation is free to take at once.
  const held = await t.db.prisma.$queryRaw<Array<{ folio: number; released: boolean }>>`
    SELECT folio, lease_until = '-infinity' AS released FROM folio_reservations WHERE issuer_id = ${issuer.id}::uuid`;
  expect(held).toEqual([{ folio: folio + 1, released: true }]);

  // Repaired, the next document takes the folio the failed one had reserved.
  await editIssuer('475201');
  const next = await api.post(`/api/${rut}/emitir`, factura());
  expect(next.statusCode).toBe(200);
  expect(next.json().folio).toBe(folio + 1);
});
