-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "name" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "one_time_secrets" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "label" JSONB NOT NULL,
    "secret_encrypted" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "one_time_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "one_time_secrets_created_at_idx" ON "one_time_secrets"("created_at");
