-- AlterTable
ALTER TABLE "events" ADD COLUMN     "from_document" BOOLEAN NOT NULL DEFAULT false;
