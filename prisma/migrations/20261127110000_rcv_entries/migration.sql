-- CreateTable
CREATE TABLE "rcv_entries" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "issuer_rut" TEXT NOT NULL,
    "razon_social" TEXT NOT NULL,
    "type" INTEGER NOT NULL,
    "folio" BIGINT NOT NULL,
    "fecha_docto" DATE NOT NULL,
    "fecha_recepcion" TIMESTAMPTZ(3) NOT NULL,
    "monto_total" BIGINT NOT NULL,
    "imported_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rcv_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "rcv_entries_issuer_id_issuer_rut_type_folio_key" ON "rcv_entries"("issuer_id", "issuer_rut", "type", "folio");

-- CreateIndex
CREATE INDEX "rcv_entries_issuer_id_fecha_recepcion_idx" ON "rcv_entries"("issuer_id", "fecha_recepcion");

-- AddForeignKey
ALTER TABLE "rcv_entries" ADD CONSTRAINT "rcv_entries_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
