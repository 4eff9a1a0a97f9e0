/**
 * The write of an issued document, as ONE SQL statement (README "Performance and scale-out"): confirm the folio
 * reservation, insert the document with its signed bytes, link the Idempotency-Key, queue the
 * receiver's e-mail and the live submission, and write the `document.issued` event with its
 * webhook deliveries. One statement is one implicit transaction: all of it commits or none of
 * it does, and every part hangs on the confirmed reservation (`FROM doc`), so a reservation
 * lost to another request inserts nothing and returns no row.
 *
 * Everything the rows hold is computed here before the statement (ids, timestamps, the event's
 * payload), so the caller gets the stored `Document` without reading it back. The statement has
 * a fixed text, prepared once per connection when run on the pool; the optional parts (e-mail,
 * submission, Idempotency-Key) are switched off by their parameters, not by other SQL.
 *
 * The same statement runs inside a Prisma transaction when the issue has more to do atomically
 * (voiding the referenced document, the folio-stock alert): see issue-document.ts.
 *
 * Where statements cannot be named (behind a transaction pooler, DB_NAMED_STATEMENTS off) the
 * same statement runs as the body of the PL/pgSQL function `timbre_insert_document` (migration
 * 20261127100000_hot_statements_as_functions; test/issuing/hot-statements.test.ts checks that
 * the texts match), called with the same 35 values: PL/pgSQL keeps its plan per server
 * session, so it is planned once per connection there too (planning it on every issue cost
 * ~0.6–1.2 ms of PostgreSQL CPU). With named statements the statement runs as it is.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { toDbDate } from '../dte/calendar-date.js';
import { envelopeKindOf } from '../dte/envelope.js';
import { documentEventStored, documentView, searchable } from '../events/document-view.js';
import { emailViewOf } from '../events/email-view.js';
export const INSERT_SQL = `
  WITH confirmed AS (
    DELETE FROM folio_reservations WHERE id = $1::uuid AND token = $2::uuid RETURNING 1
  ), doc AS (
    INSERT INTO documents (id, issuer_id, environment, type, folio, caf_id, date, receiver_rut, receiver_name,
                           search_text, net, exempt, vat, vat_rate, total, request, model, signed_xml, ted,
                           public_token, estado_sii, submit_attempts, created_at, updated_at)
    SELECT $3::uuid, $4::uuid, $5::"Environment", $6::int, $7::int, $8::uuid, $9::date, $10, $11,
           $12, $13::bigint, $14::bigint, $15::bigint, $16::int, $17::bigint, $18::jsonb, $19::jsonb, $20::bytea, $21,
           $22, $23::"EstadoSii", 0, $24::timestamptz, $24::timestamptz
      FROM confirmed
    RETURNING id, issuer_id
  ), idem AS (
    UPDATE idempotency_keys k SET document_id = doc.id FROM doc WHERE k.id = $25::uuid
  ), email AS (
    INSERT INTO email_messages (id, issuer_id, document_id, "to", state, attempts, next_run_at, created_at, updated_at)
    SELECT $26::uuid, doc.issuer_id, doc.id, $27::text[], $28::"EmailState", 0, $29::timestamptz,
           $24::timestamptz, $24::timestamptz
      FROM doc WHERE $26::uuid IS NOT NULL
  ), submission AS (
    INSERT INTO submissions (id, issuer_id, document_id, service, envelope, envelope_sha256, state, attempts, polls,
                             next_run_at, created_at, updated_at)
    SELECT $30::uuid, doc.issuer_id, doc.id, $31, $32::bytea, $33, 'queued', 0, 0,
           $24::timestamptz, $24::timestamptz, $24::timestamptz
      FROM doc WHERE $30::uuid IS NOT NULL
  ), ev AS (
    INSERT INTO events (id, issuer_id, type, data, document_id, dedupe_key, created_at, from_document)
    SELECT $34::uuid, doc.issuer_id, 'document.issued', $35::jsonb, doc.id, NULL, $29::timestamptz, true FROM doc
    RETURNING id, issuer_id
  ), fan AS (
    INSERT INTO webhook_deliveries (id, issuer_id, event_id, endpoint_id, state, next_run_at, created_at)
    SELECT gen_random_uuid(), ev.issuer_id, ev.id, w.id, 'pending', $29::timestamptz, $29::timestamptz
      FROM ev JOIN webhook_endpoints w ON w.issuer_id = ev.issuer_id
     WHERE w.enabled AND (cardinality(w.events) = 0 OR 'document.issued' = ANY (w.events))
  )
  SELECT id::text FROM doc`;
/** The same statement through its PL/pgSQL function, for when statements cannot be named. */
const INSERT_CALL = `SELECT id FROM timbre_insert_document(${Array.from({ length: 35 }, (_, i) => `$${i + 1}`).join(', ')})`;
/** The statement and the rows it will write, computed in full before it runs. */
export function documentInsert(input) {
    const { issuer, env, doc, reservation, envelope, now } = input;
    const written = new Date();
    const receiverName = doc.receiver.name ?? '';
    const document = {
        id: randomUUID(),
        issuerId: issuer.id,
        environment: env,
        type: doc.type,
        folio: doc.folio,
        cafId: reservation.cafId,
        date: toDbDate(input.date),
        receiverRut: doc.receiver.rut,
        receiverName,
        searchText: searchable(`${doc.receiver.rut} ${receiverName}`),
        net: BigInt(doc.totals.net),
        exempt: BigInt(doc.totals.exempt),
        vat: BigInt(doc.totals.vat),
        vatRate: doc.totals.vatRate,
        total: BigInt(doc.totals.total),
        // In `signedXml`, packed with the signed bytes (document-content.ts).
        request: null,
        model: null,
        signedXml: new Uint8Array(input.packed),
        ted: null,
        publicToken: randomBytes(24).toString('base64url'),
        estadoSii: env === 'sandbox' ? 'local' : 'pendiente',
        siiCode: null,
        siiGlosa: null,
        trackId: null,
        siiCheckedAt: null,
        submittedAt: null,
        submitAttempts: 0,
        lastSubmitError: null,
        voidedById: null,
        estadoBeforeVoid: null,
        createdAt: written,
        updatedAt: written,
    };
    const email = input.emailTo.length > 0
        ? {
            id: randomUUID(),
            issuerId: issuer.id,
            documentId: document.id,
            receivedEnvelopeId: null,
            to: input.emailTo,
            state: input.emailState,
            attempts: 0,
            nextRunAt: now,
            leaseUntil: null,
            lastError: null,
            messageId: null,
            sentAt: null,
            createdAt: written,
            updatedAt: written,
            decisionId: null,
        }
        : null;
    const submissionId = envelope ? randomUUID() : null;
    const eventData = {
        ...documentView(input.config, issuer.rut, document),
        email: emailViewOf(email),
        sii: env === 'live' ? { estado: null, glosa: null, track_id: null } : null,
    };
    const values = [
        reservation.id,
        reservation.token,
        document.id,
        issuer.id,
        env,
        document.type,
        document.folio,
        document.cafId,
        input.date,
        document.receiverRut,
        receiverName,
        document.searchText,
        String(doc.totals.net),
        String(doc.totals.exempt),
        String(doc.totals.vat),
        doc.totals.vatRate,
        String(doc.totals.total),
        null,
        null,
        input.packed,
        null,
        document.publicToken,
        document.estadoSii,
        written.toISOString(),
        input.idempotencyId,
        email?.id ?? null,
        input.emailTo,
        input.emailState,
        now.toISOString(),
        submissionId,
        envelope ? envelopeKindOf(doc.type) : null,
        envelope,
        envelope ? createHash('sha256').update(envelope).digest('hex') : null,
        randomUUID(),
        // Without what the document row gives back (document-view.ts).
        JSON.stringify(documentEventStored(eventData)),
    ];
    return { document, email, submissionId, text: INSERT_SQL, call: INSERT_CALL, values };
}
