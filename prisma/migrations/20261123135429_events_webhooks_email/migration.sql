-- CreateEnum
CREATE TYPE "DeliveryState" AS ENUM ('pending', 'sending', 'delivered', 'failed');

-- CreateEnum
CREATE TYPE "EmailState" AS ENUM ('waiting', 'pending', 'sending', 'sent', 'failed', 'disabled', 'cancelled');

-- AlterTable
ALTER TABLE "issuers" ADD COLUMN     "folio_alerts" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "document_id" UUID,
    "dedupe_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "description" TEXT NOT NULL DEFAULT '',
    "secret_encrypted" BYTEA NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "failing_since" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "state" "DeliveryState" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_messages" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "to" TEXT[],
    "state" "EmailState" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "message_id" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "email_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_dedupe_key_key" ON "events"("dedupe_key");

-- CreateIndex
CREATE INDEX "events_issuer_id_created_at_id_idx" ON "events"("issuer_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "events_issuer_id_type_created_at_id_idx" ON "events"("issuer_id", "type", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "events_document_id_idx" ON "events"("document_id");

-- CreateIndex
CREATE INDEX "webhook_endpoints_issuer_id_idx" ON "webhook_endpoints"("issuer_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_state_next_run_at_idx" ON "webhook_deliveries"("state", "next_run_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_state_idx" ON "webhook_deliveries"("endpoint_id", "state");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_event_id_endpoint_id_key" ON "webhook_deliveries"("event_id", "endpoint_id");

-- CreateIndex
CREATE INDEX "webhook_attempts_delivery_id_attempt_idx" ON "webhook_attempts"("delivery_id", "attempt");

-- CreateIndex
CREATE INDEX "email_messages_state_next_run_at_idx" ON "email_messages"("state", "next_run_at");

-- CreateIndex
CREATE INDEX "email_messages_document_id_created_at_idx" ON "email_messages"("document_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
