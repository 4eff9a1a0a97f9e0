-- Documents keep their signed XML, TED, model and request packed in signed_xml (one zlib stream
-- against a dictionary of the issuer, src/issuing/document-content.ts). Existing rows stay as they
-- are and are read as they are: plain XML in signed_xml, the rest in request, model and ted.

-- AlterTable
ALTER TABLE "documents" ALTER COLUMN "request" DROP NOT NULL,
ALTER COLUMN "model" DROP NOT NULL,
ALTER COLUMN "ted" DROP NOT NULL;

-- CreateTable
CREATE TABLE "xml_dictionaries" (
    "issuer_id" UUID NOT NULL,
    "sha256" BYTEA NOT NULL,
    "bytes" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "xml_dictionaries_pkey" PRIMARY KEY ("issuer_id","sha256")
);

-- AddForeignKey
ALTER TABLE "xml_dictionaries" ADD CONSTRAINT "xml_dictionaries_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
