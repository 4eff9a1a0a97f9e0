-- Trigram search on documents.search_text (the `q` filter of GET /emisiones).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('owner', 'editor', 'viewer');

-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('sandbox', 'live');

-- CreateEnum
CREATE TYPE "CertificateKind" AS ENUM ('imported', 'sandbox_generated');

-- CreateEnum
CREATE TYPE "CafSource" AS ENUM ('imported', 'sandbox_generated', 'sii_requested');

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issuers" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "rut" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "giro" TEXT NOT NULL,
    "acteco" TEXT[],
    "address" TEXT NOT NULL,
    "comuna" TEXT NOT NULL,
    "city" TEXT,
    "sii_ambiente" INTEGER NOT NULL DEFAULT 0,
    "vat_rate" INTEGER NOT NULL DEFAULT 19,
    "resolution_date" DATE,
    "resolution_number" INTEGER,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "issuers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "certificates" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "kind" "CertificateKind" NOT NULL DEFAULT 'imported',
    "p12_encrypted" BYTEA NOT NULL,
    "password_encrypted" BYTEA NOT NULL,
    "holder_rut" TEXT NOT NULL,
    "subject_name" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "not_before" TIMESTAMPTZ(3) NOT NULL,
    "not_after" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "certificates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cafs" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "source" "CafSource" NOT NULL,
    "type" INTEGER NOT NULL,
    "range_from" INTEGER NOT NULL,
    "range_to" INTEGER NOT NULL,
    "next_folio" INTEGER NOT NULL,
    "authorised_at" DATE NOT NULL,
    "expires_at" DATE,
    "idk" INTEGER NOT NULL,
    "caf_xml" TEXT NOT NULL,
    "private_key_encrypted" BYTEA NOT NULL,
    "original_encrypted" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cafs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "role" "Role" NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "documents" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "type" INTEGER NOT NULL,
    "folio" INTEGER NOT NULL,
    "caf_id" UUID NOT NULL,
    "date" DATE NOT NULL,
    "receiver_rut" TEXT NOT NULL,
    "receiver_name" TEXT NOT NULL,
    "search_text" TEXT NOT NULL,
    "net" BIGINT NOT NULL,
    "exempt" BIGINT NOT NULL,
    "vat" BIGINT NOT NULL,
    "vat_rate" INTEGER NOT NULL,
    "total" BIGINT NOT NULL,
    "request" JSONB NOT NULL,
    "model" JSONB NOT NULL,
    "signed_xml" BYTEA NOT NULL,
    "ted" TEXT NOT NULL,
    "public_token" TEXT NOT NULL,
    "estado_sii" TEXT NOT NULL,
    "sii_estado" TEXT,
    "sii_glosa" TEXT,
    "track_id" TEXT,
    "sii_checked_at" TIMESTAMPTZ(3),
    "submitted_at" TIMESTAMPTZ(3),
    "submit_attempts" INTEGER NOT NULL DEFAULT 0,
    "last_submit_error" TEXT,
    "voided_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settings" (
    "key" TEXT NOT NULL,
    "value" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settings_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "document_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "issuers_rut_key" ON "issuers"("rut");

-- CreateIndex
CREATE INDEX "issuers_account_id_idx" ON "issuers"("account_id");

-- CreateIndex
CREATE INDEX "certificates_issuer_id_kind_not_after_idx" ON "certificates"("issuer_id", "kind", "not_after");

-- CreateIndex
CREATE INDEX "cafs_issuer_id_environment_type_authorised_at_idx" ON "cafs"("issuer_id", "environment", "type", "authorised_at");

-- CreateIndex
CREATE UNIQUE INDEX "cafs_issuer_id_environment_type_range_from_key" ON "cafs"("issuer_id", "environment", "type", "range_from");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_revoked_at_idx" ON "api_keys"("account_id", "revoked_at");

-- CreateIndex
CREATE INDEX "api_keys_issuer_id_idx" ON "api_keys"("issuer_id");

-- CreateIndex
CREATE UNIQUE INDEX "documents_public_token_key" ON "documents"("public_token");

-- CreateIndex
CREATE INDEX "documents_issuer_id_created_at_idx" ON "documents"("issuer_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "documents_issuer_id_type_created_at_idx" ON "documents"("issuer_id", "type", "created_at" DESC);

-- CreateIndex
CREATE INDEX "documents_issuer_id_estado_sii_created_at_idx" ON "documents"("issuer_id", "estado_sii", "created_at" DESC);

-- CreateIndex
CREATE INDEX "documents_issuer_id_date_idx" ON "documents"("issuer_id", "date");

-- CreateIndex
CREATE INDEX "documents_issuer_id_receiver_rut_idx" ON "documents"("issuer_id", "receiver_rut");

-- CreateIndex
CREATE INDEX "documents_search_text_trgm_idx" ON "documents" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "documents_issuer_id_type_folio_environment_key" ON "documents"("issuer_id", "type", "folio", "environment");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_keys_issuer_id_key_key" ON "idempotency_keys"("issuer_id", "key");

-- AddForeignKey
ALTER TABLE "issuers" ADD CONSTRAINT "issuers_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "certificates" ADD CONSTRAINT "certificates_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cafs" ADD CONSTRAINT "cafs_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_caf_id_fkey" FOREIGN KEY ("caf_id") REFERENCES "cafs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
