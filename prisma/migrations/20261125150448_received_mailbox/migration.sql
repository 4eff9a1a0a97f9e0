-- CreateEnum
CREATE TYPE "MailboxTls" AS ENUM ('implicit', 'starttls', 'none');

-- AlterTable
ALTER TABLE "email_messages" ADD COLUMN     "received_envelope_id" UUID,
ALTER COLUMN "document_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "received_mailboxes" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "tls" "MailboxTls" NOT NULL,
    "user" TEXT NOT NULL,
    "password_encrypted" BYTEA NOT NULL,
    "folder" TEXT NOT NULL DEFAULT 'INBOX',
    "answer_by_email" BOOLEAN NOT NULL DEFAULT true,
    "uid_validity" BIGINT,
    "last_uid" BIGINT NOT NULL DEFAULT 0,
    "lease_until" TIMESTAMPTZ(3),
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "last_ok_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "received_mailboxes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "received_mailbox_messages" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "mailbox_id" UUID NOT NULL,
    "uid_validity" BIGINT NOT NULL,
    "uid" BIGINT NOT NULL,
    "message_id" TEXT,
    "from_address" TEXT,
    "reply_to" TEXT,
    "subject" TEXT,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "received_mailbox_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "received_mailbox_parts" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "mailbox_id" UUID NOT NULL,
    "uid_validity" BIGINT NOT NULL,
    "uid" BIGINT NOT NULL,
    "part" INTEGER NOT NULL,
    "envelope_id" UUID NOT NULL,
    "from_address" TEXT,
    "reply_to" TEXT,
    "message_id" TEXT,

    CONSTRAINT "received_mailbox_parts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "received_mailboxes_issuer_id_key" ON "received_mailboxes"("issuer_id");

-- CreateIndex
CREATE INDEX "received_mailboxes_next_run_at_idx" ON "received_mailboxes"("next_run_at");

-- CreateIndex
CREATE UNIQUE INDEX "received_mailbox_messages_mailbox_id_uid_validity_uid_key" ON "received_mailbox_messages"("mailbox_id", "uid_validity", "uid");

-- CreateIndex
CREATE INDEX "received_mailbox_parts_envelope_id_idx" ON "received_mailbox_parts"("envelope_id");

-- CreateIndex
CREATE UNIQUE INDEX "received_mailbox_parts_mailbox_id_uid_validity_uid_part_key" ON "received_mailbox_parts"("mailbox_id", "uid_validity", "uid", "part");

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_received_envelope_id_fkey" FOREIGN KEY ("received_envelope_id") REFERENCES "received_envelopes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_mailboxes" ADD CONSTRAINT "received_mailboxes_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_mailbox_messages" ADD CONSTRAINT "received_mailbox_messages_mailbox_id_fkey" FOREIGN KEY ("mailbox_id") REFERENCES "received_mailboxes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_mailbox_parts" ADD CONSTRAINT "received_mailbox_parts_envelope_id_fkey" FOREIGN KEY ("envelope_id") REFERENCES "received_envelopes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An e-mail carries either an issued document or the answer to a received envelope.
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_one_subject"
  CHECK (("document_id" IS NULL) <> ("received_envelope_id" IS NULL));
