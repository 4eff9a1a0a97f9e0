-- CreateEnum
CREATE TYPE "SubmissionState" AS ENUM ('queued', 'sending', 'ambiguous', 'uploaded', 'done');

-- CreateTable
CREATE TABLE "submissions" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "envelope" BYTEA NOT NULL,
    "envelope_sha256" TEXT NOT NULL,
    "state" "SubmissionState" NOT NULL DEFAULT 'queued',
    "track_id" TEXT,
    "upload_status" INTEGER,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "polls" INTEGER NOT NULL DEFAULT 0,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "submissions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "submissions_state_next_run_at_idx" ON "submissions"("state", "next_run_at");

-- CreateIndex
CREATE INDEX "submissions_document_id_idx" ON "submissions"("document_id");

-- CreateIndex
CREATE INDEX "submissions_issuer_id_idx" ON "submissions"("issuer_id");

-- AddForeignKey
ALTER TABLE "submissions" ADD CONSTRAINT "submissions_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "submissions" ADD CONSTRAINT "submissions_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
