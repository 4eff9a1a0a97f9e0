-- AlterTable
ALTER TABLE "issuers" ADD COLUMN     "sii_office" TEXT;
