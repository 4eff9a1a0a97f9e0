-- Note rules under concurrency (references.ts re-checks them with the referenced document
-- locked), a document's state as an enum, the state a voided document goes back to, and at
-- most one open submission per document.

-- CreateEnum
CREATE TYPE "EstadoSii" AS ENUM ('local', 'pendiente', 'enviado', 'aceptado', 'aceptado_con_reparos', 'rechazado', 'anulado');

-- estado_sii: text -> enum, in place (the rows keep their state), in the documents and in the
-- three counting tables the trigger and the fold fill from them. The counting trigger's WHEN
-- clause names the column, so it is dropped and recreated around the change.
DROP TRIGGER "documents_count_delta_update" ON "documents";
ALTER TABLE "documents" ALTER COLUMN "estado_sii" TYPE "EstadoSii" USING "estado_sii"::"EstadoSii";
ALTER TABLE "document_counts" ALTER COLUMN "estado_sii" TYPE "EstadoSii" USING "estado_sii"::"EstadoSii";
ALTER TABLE "receiver_counts" ALTER COLUMN "estado_sii" TYPE "EstadoSii" USING "estado_sii"::"EstadoSii";
ALTER TABLE "document_count_deltas" ALTER COLUMN "estado_sii" TYPE "EstadoSii" USING "estado_sii"::"EstadoSii";
CREATE TRIGGER "documents_count_delta_update"
  AFTER UPDATE OF "issuer_id", "date", "type", "estado_sii", "search_text" ON "documents"
  FOR EACH ROW
  WHEN ((OLD."issuer_id", OLD."date", OLD."type", OLD."estado_sii", OLD."search_text")
        IS DISTINCT FROM (NEW."issuer_id", NEW."date", NEW."type", NEW."estado_sii", NEW."search_text"))
  EXECUTE FUNCTION "documents_count_delta"();

-- AlterTable
ALTER TABLE "documents" ADD COLUMN "estado_before_void" "EstadoSii";

-- The notes index covers debit notes too (a 56 voiding a 61).
DROP INDEX "documents_credit_notes_receiver_idx";
CREATE INDEX "documents_notes_receiver_idx" ON "documents"("issuer_id", "receiver_rut") WHERE (type = ANY (ARRAY[56, 61]));

-- At most one open submission per document. Two open ones could only come from the race this
-- index closes (two concurrent resubmits); the older of such a pair is closed first.
UPDATE "submissions" s SET "state" = 'done', "last_error" = 'superseded by a newer submission of the same document'
 WHERE s."state" <> 'done'
   AND EXISTS (SELECT 1 FROM "submissions" n
                WHERE n."document_id" = s."document_id" AND n."state" <> 'done'
                  AND (n."created_at", n."id") > (s."created_at", s."id"));
CREATE UNIQUE INDEX "submissions_one_open_per_document" ON "submissions"("document_id") WHERE (state <> 'done');
