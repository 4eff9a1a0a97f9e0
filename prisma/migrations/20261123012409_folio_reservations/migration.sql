-- CreateTable
CREATE TABLE "folio_reservations" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "type" INTEGER NOT NULL,
    "caf_id" UUID NOT NULL,
    "folio" INTEGER NOT NULL,
    "token" UUID NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "folio_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "folio_reservations_issuer_id_environment_type_lease_until_idx" ON "folio_reservations"("issuer_id", "environment", "type", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "folio_reservations_issuer_id_environment_type_folio_key" ON "folio_reservations"("issuer_id", "environment", "type", "folio");

-- AddForeignKey
ALTER TABLE "folio_reservations" ADD CONSTRAINT "folio_reservations_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "folio_reservations" ADD CONSTRAINT "folio_reservations_caf_id_fkey" FOREIGN KEY ("caf_id") REFERENCES "cafs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
