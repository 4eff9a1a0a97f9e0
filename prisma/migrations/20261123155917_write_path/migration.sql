-- DropIndex
DROP INDEX "documents_issuer_id_receiver_rut_idx";

-- DropIndex
DROP INDEX "documents_public_token_key";

-- CreateTable
CREATE TABLE "document_count_deltas" (
    "issuer_id" UUID NOT NULL,
    "date" DATE NOT NULL,
    "type" INTEGER NOT NULL,
    "estado_sii" TEXT NOT NULL,
    "search_text" TEXT NOT NULL,
    "delta" INTEGER NOT NULL
);

-- CreateIndex
CREATE INDEX "documents_credit_notes_receiver_idx" ON "documents"("issuer_id", "receiver_rut") WHERE (type = 61);

-- CreateIndex
CREATE INDEX "documents_voided_by_id_idx" ON "documents"("voided_by_id") WHERE (voided_by_id IS NOT NULL);

-- Everything below is written by hand (Prisma has no syntax for triggers or functions).
--
-- What one document insert costs PostgreSQL, measured per index and trigger by
-- bench/write-path.ts (BENCHMARKS.md, "Write path"). This migration:
-- - drops documents_public_token_key (the token is random and never looked up: a download finds
--   its document by issuer, type and folio and compares the token) and the receiver_rut index,
--   replaced by the two partial indexes above, which the other documents' inserts skip;
-- - replaces the statement-level triggers that upserted three counter rows per write with one
--   row trigger appending to document_count_deltas, folded into the counters in batches.

-- The deltas table churns (rows appended by every write, deleted by every fold): vacuum it
-- after every thousand dead rows instead of after a fifth of the table.
ALTER TABLE "document_count_deltas" SET (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0);

-- Writers wait while the triggers are swapped and the counters compacted (to the end of the
-- migration's transaction), so no write is counted twice or missed.
LOCK TABLE "documents" IN SHARE ROW EXCLUSIVE MODE;

DROP TRIGGER "documents_count_insert" ON "documents";
DROP TRIGGER "documents_count_update" ON "documents";
DROP TRIGGER "documents_count_delete" ON "documents";
DROP FUNCTION "documents_count_insert"();
DROP FUNCTION "documents_count_update"();
DROP FUNCTION "documents_count_delete"();
DROP FUNCTION "documents_count_shard"();

-- One delta row per counted change, in the writer's transaction: +1 for an inserted document,
-- -1 for a deleted one, -1 (old values) and +1 (new values) for an update of a counted column.
-- A plain heap append: no index, no lock on any shared row, so concurrent writers never meet.
CREATE FUNCTION "documents_count_delta"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO "document_count_deltas" ("issuer_id", "date", "type", "estado_sii", "search_text", "delta")
    VALUES (OLD."issuer_id", OLD."date", OLD."type", OLD."estado_sii", OLD."search_text", -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "document_count_deltas" ("issuer_id", "date", "type", "estado_sii", "search_text", "delta")
    VALUES (NEW."issuer_id", NEW."date", NEW."type", NEW."estado_sii", NEW."search_text", 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "documents_count_delta_insert" AFTER INSERT ON "documents"
  FOR EACH ROW EXECUTE FUNCTION "documents_count_delta"();
-- Most updates (track ids, SII answers, attempts) change no counted column and fire nothing.
CREATE TRIGGER "documents_count_delta_update"
  AFTER UPDATE OF "issuer_id", "date", "type", "estado_sii", "search_text" ON "documents"
  FOR EACH ROW
  WHEN ((OLD."issuer_id", OLD."date", OLD."type", OLD."estado_sii", OLD."search_text")
        IS DISTINCT FROM (NEW."issuer_id", NEW."date", NEW."type", NEW."estado_sii", NEW."search_text"))
  EXECUTE FUNCTION "documents_count_delta"();
CREATE TRIGGER "documents_count_delta_delete" AFTER DELETE ON "documents"
  FOR EACH ROW EXECUTE FUNCTION "documents_count_delta"();

CREATE OR REPLACE FUNCTION "documents_count_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "document_counts";
  DELETE FROM "receiver_counts";
  DELETE FROM "receiver_search_texts";
  DELETE FROM "document_count_deltas";
  RETURN NULL;
END
$$;

-- Moves every committed delta into the counters, in one statement: the deleted deltas and the
-- counters they are added to commit together, so a reader (whose statement sees one snapshot)
-- sees each change either still as a delta or already in a counter, never both or neither.
-- Counters are upserted in key order (two folds never deadlock); one fold runs at a time (the
-- others return 0 at once: the running one, or the next, folds their rows). New receivers get
-- their receiver_search_texts row here, once per fold, instead of a probe on every insert.
-- Returns the number of deltas folded. Called by the jobs' sweep and by every list request
-- (src/issuing/list-documents.ts); the counts are exact whether or not it has run.
CREATE FUNCTION "fold_document_counts"() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  folded bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(727466101) THEN
    RETURN 0;
  END IF;
  WITH moved AS (
    DELETE FROM "document_count_deltas"
    RETURNING "issuer_id", "date", "type", "estado_sii", "search_text", "delta"
  ), by_period AS (
    INSERT INTO "document_counts" AS c ("issuer_id", "grain", "period", "type", "estado_sii", "shard", "count")
    SELECT m."issuer_id", p.grain, p.period, m."type", m."estado_sii", 0, sum(m."delta")
    FROM moved m
    CROSS JOIN LATERAL (VALUES ('day'::"CountGrain", m."date"),
                               ('month'::"CountGrain", date_trunc('month', m."date"::timestamp)::date)) AS p (grain, period)
    GROUP BY 1, 2, 3, 4, 5
    HAVING sum(m."delta") <> 0
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ("issuer_id", "grain", "period", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count"
  ), by_receiver AS (
    INSERT INTO "receiver_counts" AS c ("issuer_id", "search_text", "type", "estado_sii", "shard", "count")
    SELECT "issuer_id", "search_text", "type", "estado_sii", 0, sum("delta")
    FROM moved
    GROUP BY 1, 2, 3, 4
    HAVING sum("delta") <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT ("issuer_id", "search_text", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count"
  ), receivers AS (
    INSERT INTO "receiver_search_texts" ("issuer_id", "search_text")
    SELECT DISTINCT "issuer_id", "search_text" FROM moved WHERE "delta" > 0
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING
  )
  SELECT count(*) INTO folded FROM moved;
  RETURN folded;
END
$$;

-- Fewer counter rows: the per-connection shards of the old triggers (up to 8 rows per key,
-- there to spread row-lock contention between concurrent inserts, which no longer touch the
-- counters) are summed into shard 0, the only one folds write.
WITH gone AS (
  DELETE FROM "document_counts" WHERE "shard" <> 0
  RETURNING "issuer_id", "grain", "period", "type", "estado_sii", "count"
)
INSERT INTO "document_counts" AS c ("issuer_id", "grain", "period", "type", "estado_sii", "shard", "count")
SELECT "issuer_id", "grain", "period", "type", "estado_sii", 0, sum("count") FROM gone
GROUP BY 1, 2, 3, 4, 5
ON CONFLICT ("issuer_id", "grain", "period", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";

WITH gone AS (
  DELETE FROM "receiver_counts" WHERE "shard" <> 0
  RETURNING "issuer_id", "search_text", "type", "estado_sii", "count"
)
INSERT INTO "receiver_counts" AS c ("issuer_id", "search_text", "type", "estado_sii", "shard", "count")
SELECT "issuer_id", "search_text", "type", "estado_sii", 0, sum("count") FROM gone
GROUP BY 1, 2, 3, 4
ON CONFLICT ("issuer_id", "search_text", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";
