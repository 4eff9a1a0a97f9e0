-- AlterTable
ALTER TABLE "received_documents" ADD COLUMN     "cession_checked_at" TIMESTAMPTZ(3),
ADD COLUMN     "cession_holder_rut" TEXT;
