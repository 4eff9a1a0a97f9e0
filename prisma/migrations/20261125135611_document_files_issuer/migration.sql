-- Every issuer-owned table carries issuer_id (docs/scaling-out.md): the stored PDFs get their
-- document's issuer. Added nullable, filled from documents, then required.
ALTER TABLE "document_files" ADD COLUMN "issuer_id" UUID;
UPDATE "document_files" f SET "issuer_id" = d."issuer_id" FROM "documents" d WHERE d."id" = f."document_id";
ALTER TABLE "document_files" ALTER COLUMN "issuer_id" SET NOT NULL;
