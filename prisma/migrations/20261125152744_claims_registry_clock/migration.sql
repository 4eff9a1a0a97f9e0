-- AlterTable
ALTER TABLE "received_documents" ADD COLUMN     "deadline" TIMESTAMPTZ(3),
ADD COLUMN     "reception_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reception_check_at" TIMESTAMPTZ(3),
ADD COLUMN     "reception_error" TEXT,
ADD COLUMN     "reception_lease_until" TIMESTAMPTZ(3),
ADD COLUMN     "sii_received_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "registry_watches" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "sii_received_at" TIMESTAMPTZ(3),
    "deadline" TIMESTAMPTZ(3),
    "events" JSONB NOT NULL DEFAULT '[]',
    "outcome" TEXT,
    "claim" TEXT,
    "next_check_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "checked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "registry_watches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "registry_watches_document_id_key" ON "registry_watches"("document_id");

-- CreateIndex
CREATE INDEX "registry_watches_next_check_at_idx" ON "registry_watches"("next_check_at");

-- CreateIndex
CREATE INDEX "registry_watches_issuer_id_idx" ON "registry_watches"("issuer_id");

-- CreateIndex
CREATE INDEX "received_documents_issuer_id_deadline_idx" ON "received_documents"("issuer_id", "deadline");

-- CreateIndex
CREATE INDEX "received_documents_reception_check_at_idx" ON "received_documents"("reception_check_at");

-- AddForeignKey
ALTER TABLE "registry_watches" ADD CONSTRAINT "registry_watches_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "registry_watches" ADD CONSTRAINT "registry_watches_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
