-- AlterTable
ALTER TABLE "sign_in_tokens" ADD COLUMN     "purpose" TEXT NOT NULL DEFAULT 'sign_in';

-- AlterTable
ALTER TABLE "users" ALTER COLUMN "password_hash" DROP NOT NULL;

-- DropTable
DROP TABLE "sign_in_failures";

-- CreateTable
CREATE TABLE "sign_in_attempts" (
    "key" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_attempts_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "sign_in_attempts_window_start_idx" ON "sign_in_attempts"("window_start");
