-- CreateEnum
CREATE TYPE "ReceivedState" AS ENUM ('recibido');

-- CreateTable
CREATE TABLE "received_envelopes" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "number" BIGSERIAL NOT NULL,
    "kind" TEXT,
    "source" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "xml" BYTEA NOT NULL,
    "sha256" TEXT NOT NULL,
    "sender_rut" TEXT,
    "emisor_rut" TEXT,
    "receptor_rut" TEXT,
    "set_id" TEXT,
    "estado_recep_env" INTEGER NOT NULL,
    "glosa" TEXT NOT NULL,
    "reason" TEXT,
    "checks" JSONB NOT NULL,
    "documents" JSONB NOT NULL,
    "respuesta_xml" BYTEA,
    "respuesta_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "received_envelopes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "received_documents" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "envelope_id" UUID NOT NULL,
    "emisor_rut" TEXT NOT NULL,
    "emisor_name" TEXT NOT NULL,
    "type" INTEGER NOT NULL,
    "folio" BIGINT NOT NULL,
    "date" DATE NOT NULL,
    "net" BIGINT NOT NULL,
    "exempt" BIGINT NOT NULL,
    "vat" BIGINT NOT NULL,
    "total" BIGINT NOT NULL,
    "xml" BYTEA NOT NULL,
    "sha256" TEXT NOT NULL,
    "model" JSONB NOT NULL,
    "checks" JSONB NOT NULL,
    "state" "ReceivedState" NOT NULL DEFAULT 'recibido',
    "search_text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "received_documents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "received_envelopes_number_key" ON "received_envelopes"("number");

-- CreateIndex
CREATE INDEX "received_envelopes_issuer_id_sha256_idx" ON "received_envelopes"("issuer_id", "sha256");

-- CreateIndex
CREATE INDEX "received_envelopes_issuer_id_created_at_idx" ON "received_envelopes"("issuer_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "received_documents_issuer_id_date_created_at_id_idx" ON "received_documents"("issuer_id", "date" DESC, "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "received_documents_envelope_id_idx" ON "received_documents"("envelope_id");

-- CreateIndex
CREATE UNIQUE INDEX "received_documents_issuer_id_emisor_rut_type_folio_key" ON "received_documents"("issuer_id", "emisor_rut", "type", "folio");

-- AddForeignKey
ALTER TABLE "received_envelopes" ADD CONSTRAINT "received_envelopes_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_documents" ADD CONSTRAINT "received_documents_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_documents" ADD CONSTRAINT "received_documents_envelope_id_fkey" FOREIGN KEY ("envelope_id") REFERENCES "received_envelopes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
