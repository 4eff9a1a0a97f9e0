-- CreateEnum
CREATE TYPE "CountGrain" AS ENUM ('day', 'month');

-- DropIndex
DROP INDEX "documents_issuer_id_created_at_idx";

-- DropIndex
DROP INDEX "documents_issuer_id_date_idx";

-- DropIndex
DROP INDEX "documents_issuer_id_estado_sii_created_at_idx";

-- DropIndex
DROP INDEX "documents_issuer_id_type_created_at_idx";

-- DropIndex
DROP INDEX "documents_search_text_trgm_idx";

-- CreateTable
CREATE TABLE "document_counts" (
    "issuer_id" UUID NOT NULL,
    "grain" "CountGrain" NOT NULL,
    "period" DATE NOT NULL,
    "type" INTEGER NOT NULL,
    "estado_sii" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL DEFAULT 0,
    "count" BIGINT NOT NULL,

    CONSTRAINT "document_counts_pkey" PRIMARY KEY ("issuer_id","grain","period","type","estado_sii","shard")
);

-- CreateTable
CREATE TABLE "receiver_counts" (
    "issuer_id" UUID NOT NULL,
    "search_text" TEXT NOT NULL,
    "type" INTEGER NOT NULL,
    "estado_sii" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL DEFAULT 0,
    "count" BIGINT NOT NULL,

    CONSTRAINT "receiver_counts_pkey" PRIMARY KEY ("issuer_id","search_text","type","estado_sii","shard")
);

-- CreateTable
CREATE TABLE "receiver_search_texts" (
    "issuer_id" UUID NOT NULL,
    "search_text" TEXT NOT NULL,

    CONSTRAINT "receiver_search_texts_pkey" PRIMARY KEY ("issuer_id","search_text")
);

-- CreateIndex
CREATE INDEX "receiver_counts_search_text_trgm_idx" ON "receiver_counts" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "receiver_search_texts_search_text_trgm_idx" ON "receiver_search_texts" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "documents_issuer_id_date_created_at_id_idx" ON "documents"("issuer_id", "date" DESC, "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "documents_issuer_id_type_date_created_at_id_idx" ON "documents"("issuer_id", "type", "date" DESC, "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "documents_issuer_id_estado_sii_date_created_at_id_idx" ON "documents"("issuer_id", "estado_sii", "date" DESC, "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "documents_issuer_id_type_estado_sii_date_created_at_id_idx" ON "documents"("issuer_id", "type", "estado_sii", "date" DESC, "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "documents_issuer_id_search_text_idx" ON "documents"("issuer_id", "search_text", "date", "type", "estado_sii", "created_at", "id");

-- AddForeignKey
ALTER TABLE "document_counts" ADD CONSTRAINT "document_counts_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "receiver_counts" ADD CONSTRAINT "receiver_counts_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "receiver_search_texts" ADD CONSTRAINT "receiver_search_texts_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Everything below is written by hand: Prisma has no syntax for storage parameters or
-- triggers.

-- A document row takes ~1.5 KB of heap by default: TOAST moves values out of line only until
-- the row fits in ~2 KB, so the request, the model and the TED stay inline (compressed). The
-- list reads only the small columns. With a 512-byte target the four large values go to the
-- TOAST table and ~19 rows fit in a heap page instead of ~5, so whatever must visit the heap
-- (the rows of a page, a `q` filter on an ordered scan) reads a quarter of the pages. 512 and
-- not less: below the size of the small columns (~350 bytes) TOAST would also move
-- search_text and receiver_name out of line, and reading them would cost a TOAST lookup each.
-- Applies to rows written from now on.
ALTER TABLE "documents" SET (toast_tuple_target = 512);

-- document_counts, receiver_counts and receiver_search_texts are maintained by statement-level
-- triggers with transition tables: a few grouped statements per statement on documents,
-- whether it writes one document or a million, and no application code. Counters are upserted
-- in key order, so concurrent statements lock shared counters in the same order; ON CONFLICT
-- DO UPDATE adds to the committed value under the row lock, so no increment is ever lost, and
-- the counters commit or roll back with the documents. Counters that fall to 0 are kept (they
-- add nothing to a sum).
-- Counters are sharded: every key has up to 8 rows, and a writer adds to the one of its
-- connection (backend pid mod 8). Without it, every document of one issuer, type and day
-- updates the same day and month rows, and concurrent issuing queues on their row locks until
-- each transaction commits; with it, concurrent transactions on different connections rarely
-- meet. Sums read all the shards of a key.
CREATE FUNCTION "documents_count_shard"() RETURNS smallint LANGUAGE sql STABLE AS $$
  SELECT (pg_backend_pid() % 8)::smallint
$$;

CREATE FUNCTION "documents_count_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "document_counts" AS c ("issuer_id", "grain", "period", "type", "estado_sii", "shard", "count")
  SELECT d."issuer_id", p.grain, p.period, d."type", d."estado_sii", "documents_count_shard"(), count(*)
  FROM new_documents d
  CROSS JOIN LATERAL (VALUES ('day'::"CountGrain", d."date"),
                             ('month'::"CountGrain", date_trunc('month', d."date"::timestamp)::date)) AS p (grain, period)
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT ("issuer_id", "grain", "period", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";

  INSERT INTO "receiver_counts" AS c ("issuer_id", "search_text", "type", "estado_sii", "shard", "count")
  SELECT "issuer_id", "search_text", "type", "estado_sii", "documents_count_shard"(), count(*)
  FROM new_documents
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("issuer_id", "search_text", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";

  INSERT INTO "receiver_search_texts" ("issuer_id", "search_text")
  SELECT DISTINCT "issuer_id", "search_text" FROM new_documents
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

-- Most updates (track ids, SII answers, attempts) change no counted column: their -1 and +1
-- cancel out and nothing is written.
CREATE FUNCTION "documents_count_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "document_counts" AS c ("issuer_id", "grain", "period", "type", "estado_sii", "shard", "count")
  SELECT d."issuer_id", p.grain, p.period, d."type", d."estado_sii", "documents_count_shard"(), sum(d.delta)
  FROM (SELECT "issuer_id", "type", "estado_sii", "date", -1 AS delta FROM old_documents
        UNION ALL
        SELECT "issuer_id", "type", "estado_sii", "date", 1 FROM new_documents) d
  CROSS JOIN LATERAL (VALUES ('day'::"CountGrain", d."date"),
                             ('month'::"CountGrain", date_trunc('month', d."date"::timestamp)::date)) AS p (grain, period)
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d.delta) <> 0
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT ("issuer_id", "grain", "period", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";

  INSERT INTO "receiver_counts" AS c ("issuer_id", "search_text", "type", "estado_sii", "shard", "count")
  SELECT "issuer_id", "search_text", "type", "estado_sii", "documents_count_shard"(), sum(delta)
  FROM (SELECT "issuer_id", "search_text", "type", "estado_sii", -1 AS delta FROM old_documents
        UNION ALL
        SELECT "issuer_id", "search_text", "type", "estado_sii", 1 FROM new_documents) d
  GROUP BY 1, 2, 3, 4
  HAVING sum(delta) <> 0
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("issuer_id", "search_text", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";

  INSERT INTO "receiver_search_texts" ("issuer_id", "search_text")
  SELECT DISTINCT n."issuer_id", n."search_text"
  FROM new_documents n JOIN old_documents o ON o."id" = n."id"
  WHERE (n."issuer_id", n."search_text") IS DISTINCT FROM (o."issuer_id", o."search_text")
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE FUNCTION "documents_count_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "document_counts" AS c ("issuer_id", "grain", "period", "type", "estado_sii", "shard", "count")
  SELECT d."issuer_id", p.grain, p.period, d."type", d."estado_sii", "documents_count_shard"(), -count(*)
  FROM old_documents d
  CROSS JOIN LATERAL (VALUES ('day'::"CountGrain", d."date"),
                             ('month'::"CountGrain", date_trunc('month', d."date"::timestamp)::date)) AS p (grain, period)
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT ("issuer_id", "grain", "period", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";

  INSERT INTO "receiver_counts" AS c ("issuer_id", "search_text", "type", "estado_sii", "shard", "count")
  SELECT "issuer_id", "search_text", "type", "estado_sii", "documents_count_shard"(), -count(*)
  FROM old_documents
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("issuer_id", "search_text", "type", "estado_sii", "shard") DO UPDATE SET "count" = c."count" + EXCLUDED."count";
  RETURN NULL;
END
$$;

CREATE FUNCTION "documents_count_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "document_counts";
  DELETE FROM "receiver_counts";
  DELETE FROM "receiver_search_texts";
  RETURN NULL;
END
$$;

-- Writers wait while the triggers are created and the existing documents counted (the lock
-- lasts to the end of the migration's transaction), so a service instance still running
-- during the deploy gets no document counted twice or missed.
LOCK TABLE "documents" IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER "documents_count_insert" AFTER INSERT ON "documents"
  REFERENCING NEW TABLE AS new_documents
  FOR EACH STATEMENT EXECUTE FUNCTION "documents_count_insert"();
CREATE TRIGGER "documents_count_update" AFTER UPDATE ON "documents"
  REFERENCING OLD TABLE AS old_documents NEW TABLE AS new_documents
  FOR EACH STATEMENT EXECUTE FUNCTION "documents_count_update"();
CREATE TRIGGER "documents_count_delete" AFTER DELETE ON "documents"
  REFERENCING OLD TABLE AS old_documents
  FOR EACH STATEMENT EXECUTE FUNCTION "documents_count_delete"();
CREATE TRIGGER "documents_count_truncate" AFTER TRUNCATE ON "documents"
  FOR EACH STATEMENT EXECUTE FUNCTION "documents_count_truncate"();

INSERT INTO "document_counts" ("issuer_id", "grain", "period", "type", "estado_sii", "count")
SELECT d."issuer_id", p.grain, p.period, d."type", d."estado_sii", count(*)
FROM "documents" d
CROSS JOIN LATERAL (VALUES ('day'::"CountGrain", d."date"),
                           ('month'::"CountGrain", date_trunc('month', d."date"::timestamp)::date)) AS p (grain, period)
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO "receiver_counts" ("issuer_id", "search_text", "type", "estado_sii", "count")
SELECT "issuer_id", "search_text", "type", "estado_sii", count(*) FROM "documents" GROUP BY 1, 2, 3, 4;

INSERT INTO "receiver_search_texts" ("issuer_id", "search_text")
SELECT DISTINCT "issuer_id", "search_text" FROM "documents";
