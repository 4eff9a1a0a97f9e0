-- The two statements every issue runs (the folio reservation, src/issuing/folios.ts, and the
-- write of the document, src/issuing/document-insert.ts) as PL/pgSQL functions. PL/pgSQL keeps
-- the plan of each statement in the server session that ran it, so a call is planned once per
-- server connection, as a named prepared statement would be, also where named statements
-- cannot be used: behind a transaction pooler (PgBouncer before 1.21, DB_NAMED_STATEMENTS off),
-- each issue planned both statements again, about 2.6 ms of PostgreSQL CPU per document
-- (BENCHMARKS.md, "Issuing through PgBouncer"). The statements themselves are unchanged; the
-- code keeps their text next to the comments that explain them and checks in a test that the
-- functions hold the same text.

CREATE FUNCTION timbre_reserve_folio(
  timestamptz, uuid, uuid, "Environment", int, timestamptz, date
) RETURNS TABLE (id text, caf_id text, folio int, available int, last_size int, has_imported_certificate boolean)
LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH reclaimed AS (
      UPDATE folio_reservations r
         SET lease_until = $1, token = $2::uuid
       WHERE r.id = (
         SELECT fr.id FROM folio_reservations fr JOIN cafs c ON c.id = fr.caf_id
          WHERE fr.issuer_id = $3::uuid
            AND fr.environment = $4::"Environment"
            AND fr.type = $5::int
            AND fr.lease_until < $6
            AND (c.expires_at IS NULL OR c.expires_at >= $7::date)
          ORDER BY fr.folio
          LIMIT 1
          FOR UPDATE OF fr SKIP LOCKED)
      RETURNING r.id, r.caf_id, r.folio),
    picked AS (
      SELECT id FROM cafs
       WHERE issuer_id = $3::uuid
         AND environment = $4::"Environment"
         AND type = $5::int
         AND next_folio <= range_to
         AND (expires_at IS NULL OR expires_at >= $7::date)
         AND NOT EXISTS (SELECT 1 FROM reclaimed)
       ORDER BY authorised_at, range_from
       LIMIT 1
       FOR UPDATE),
    bumped AS (
      UPDATE cafs SET next_folio = cafs.next_folio + 1
        FROM picked
       WHERE cafs.id = picked.id AND cafs.next_folio <= cafs.range_to
      RETURNING cafs.id, cafs.next_folio - 1 AS folio),
    fresh AS (
      INSERT INTO folio_reservations (id, issuer_id, environment, type, caf_id, folio, token, lease_until)
      SELECT gen_random_uuid(), $3::uuid, $4::"Environment", $5::int, bumped.id, bumped.folio, $2::uuid, $1
        FROM bumped
      RETURNING id, caf_id, folio),
    stock AS (
      SELECT coalesce(sum(CASE WHEN expires_at IS NULL OR expires_at >= $7::date
                               THEN greatest(range_to - next_folio + 1, 0) ELSE 0 END), 0)::int AS available,
             (array_agg(range_to - range_from + 1 ORDER BY authorised_at DESC, range_from DESC))[1]::int AS last_size
        FROM cafs WHERE issuer_id = $3::uuid AND environment = $4::"Environment" AND type = $5::int),
    relaxed AS (SELECT set_config('synchronous_commit', 'off', true) AS synchronous_commit)
    SELECT t.id::text, t.caf_id::text, t.folio,
           stock.available - (SELECT count(*) FROM bumped)::int AS available, stock.last_size,
           EXISTS (SELECT 1 FROM certificates WHERE issuer_id = $3::uuid AND kind = 'imported') AS has_imported_certificate
      FROM (SELECT id, caf_id, folio FROM reclaimed UNION ALL SELECT id, caf_id, folio FROM fresh) t, stock, relaxed;
END
$fn$;

CREATE FUNCTION timbre_insert_document(
  uuid, uuid, uuid, uuid, "Environment", int, int, uuid, date, text, text,
  text, bigint, bigint, bigint, int, bigint, jsonb, jsonb, bytea, text,
  text, text, timestamptz, uuid, uuid, text[], "EmailState", timestamptz,
  uuid, text, bytea, text, uuid, jsonb
) RETURNS TABLE (id text)
LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
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
    SELECT id::text FROM doc;
END
$fn$;
