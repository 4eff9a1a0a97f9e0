/**
 * The write of an issued document (src/issuing/document-insert.ts) is one statement: the
 * document, its e-mail row, its Idempotency-Key link and its `document.issued` event are written
 * together. The same statement runs inside a transaction when the issue has more to do: a
 * credit note that voids its factura. Both ways must store the same things.
 */
import { expect, it } from 'vitest';
import { eventPayloads } from '../../src/events/record.ts';
import { buildTestApp, createTestTenant, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';

async function storedWith(t: TestApp, issuerId: string, type: number, folio: number, idempotencyKey: string) {
  const doc = await t.db.prisma.document.findFirstOrThrow({ where: { issuerId, type, folio } });
  const emails = await t.db.prisma.emailMessage.findMany({ where: { documentId: doc.id } });
  const events = await t.db.prisma.event.findMany({ where: { documentId: doc.id, type: 'document.issued' } });
  const key = await t.db.prisma.idempotencyKey.findFirstOrThrow({ where: { issuerId, key: idempotencyKey } });
  return { doc, emails, events, key };
}

it('a document written alone and one written with the void of its reference store the same rows', async () => {
  const t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  const { issuer, rut, api } = await createTestTenant(t);

  // One statement: a factura with a receiver e-mail and an Idempotency-Key.
  const first = await api.post(`/api/${rut}/emitir`, factura(), { 'idempotency-key': 'write-factura' });
  expect(first.statusCode, first.body).toBe(200);
  const { folio, date, totals } = first.json();
  const alone = await storedWith(t, issuer.id, 33, folio, 'write-factura');
  expect(alone.emails.map((e) => e.to)).toEqual([[RECEIVER.email]]);
  expect(alone.events).toHaveLength(1);
  // Stored without what the document row gives back (its list entry's fixed columns), read whole.
  expect(alone.events[0]!.fromDocument).toBe(true);
  expect(alone.events[0]!.data).not.toHaveProperty('folio');
  expect((await eventPayloads(t.ctx, alone.events))[0]!.data).toMatchObject({ folio, email: { to: [RECEIVER.email] } });
  expect(alone.key.documentId).toBe(alone.doc.id);

  // Inside the voiding transaction: a credit note for the whole factura.
  const note = await api.post(
    `/api/${rut}/emitir`,
    {
      type: 61,
      receiver: RECEIVER,
      items: factura().items,
      refs: [{ type: 33, folio: String(folio), date, code: 1, reason: 'Anula factura' }],
    },
    { 'idempotency-key': 'write-note' },
  );
  expect(note.statusCode, note.body).toBe(200);
  expect(note.json().totals.total).toBe(totals.total);
  const voiding = await storedWith(t, issuer.id, 61, note.json().folio, 'write-note');
  expect(voiding.emails.map((e) => e.to)).toEqual([[RECEIVER.email]]);
  expect(voiding.events).toHaveLength(1);
  expect(voiding.key.documentId).toBe(voiding.doc.id);
  const voided = await t.db.prisma.document.findUniqueOrThrow({ where: { id: alone.doc.id } });
  expect(voided).toMatchObject({ estadoSii: 'anulado', voidedById: voiding.doc.id });
  // Nothing is left reserved by either write.
  expect(await t.db.prisma.folioReservation.count({ where: { issuerId: issuer.id } })).toBe(0);
});
