-- CreateTable
CREATE TABLE "cessions" (
    "id" UUID NOT NULL,
    "issuer_id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "cedente_email" TEXT NOT NULL,
    "cesionario_rut" TEXT NOT NULL,
    "cesionario_razon_social" TEXT NOT NULL,
    "cesionario_direccion" TEXT NOT NULL,
    "cesionario_email" TEXT NOT NULL,
    "monto" BIGINT NOT NULL,
    "ultimo_vencimiento" DATE NOT NULL,
    "otras_condiciones" TEXT,
    "email_deudor" TEXT,
    "aec" BYTEA NOT NULL,
    "estado" TEXT NOT NULL,
    "sii_estado" TEXT,
    "sii_glosa" TEXT,
    "track_id" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "polls" INTEGER NOT NULL DEFAULT 0,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "upload_started_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "holder_rut" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "cessions_issuer_id_created_at_idx" ON "cessions"("issuer_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "cessions_estado_next_run_at_idx" ON "cessions"("estado", "next_run_at");

-- CreateIndex
CREATE INDEX "cessions_document_id_idx" ON "cessions"("document_id");

-- CreateIndex
CREATE UNIQUE INDEX "cessions_one_live_per_document" ON "cessions"("issuer_id", "document_id") WHERE (estado = ANY (ARRAY['pendiente'::text, 'enviada'::text, 'aceptada'::text]));

-- AddForeignKey
ALTER TABLE "cessions" ADD CONSTRAINT "cessions_issuer_id_fkey" FOREIGN KEY ("issuer_id") REFERENCES "issuers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cessions" ADD CONSTRAINT "cessions_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
