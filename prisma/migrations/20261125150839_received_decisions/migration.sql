-- CreateEnum
CREATE TYPE "DecisionState" AS ENUM ('pending', 'done', 'refused', 'local');

-- AlterTable
ALTER TABLE "email_messages" ADD COLUMN     "decision_id" UUID,
ALTER COLUMN "document_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "received_decisions" (
    "id" UUID NOT NULL,
    "number" BIGSERIAL NOT NULL,
    "issuer_id" UUID NOT NULL,
    "received_document_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "actions" TEXT[],
    "registered" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "motivo" TEXT,
    "glosa" TEXT,
    "recinto" TEXT,
    "state" "DecisionState" NOT NULL,
    "cod_resp" INTEGER,
    "desc_resp" TEXT,
    "last_error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "resultado_xml" BYTEA,
    "recibos_xml" BYTEA,
    "email_to" TEXT[],
    "decided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "received_decisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "received_decisions_number_key" ON "received_decisions"("number");

-- CreateIndex
CREATE INDEX "received_decisions_state_next_run_at_idx" ON "received_decisions"("state", "next_run_at");

-- CreateIndex
CREATE INDEX "received_decisions_received_document_id_created_at_idx" ON "received_decisions"("received_document_id", "created_at");

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_decision_id_fkey" FOREIGN KEY ("decision_id") REFERENCES "received_decisions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_decisions" ADD CONSTRAINT "received_decisions_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_decisions" ADD CONSTRAINT "received_decisions_received_document_id_fkey" FOREIGN KEY ("received_document_id") REFERENCES "received_documents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
