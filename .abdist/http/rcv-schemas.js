/** zod schemas of the RCV import and its missing documents (README "Missed documents (RCV)"). */
import { z } from 'zod';
export const faltanteSchema = z.object({
    emisor_rut: z.string().meta({ description: 'The supplier (RUT Proveedor).' }),
    razon_social: z.string(),
    tipo_dte: z.number().int(),
    folio: z.number().int(),
    fecha_docto: z.string().meta({ format: 'date' }),
    fecha_recepcion: z.string().meta({ format: 'date-time', description: "The SII's reception (Fecha Recepcion)." }),
    monto_total: z.number().int(),
    estado: z.string().meta({ enum: ['en el SII, no recibido por correo'] }),
    mensaje: z.string().meta({ description: 'What it means and what to do (Spanish).' }),
    vence_at: z
        .string()
        .nullable()
        .meta({ format: 'date-time', description: 'fecha_recepcion + 8 × 24 h for 33/34/43; null for other types.' }),
    dias_restantes: z.number().int().nullable().meta({ description: 'Whole days left (0 in the last day).' }),
    vencido: z.boolean(),
    imported_at: z.string().meta({ format: 'date-time' }),
});
export const faltanteExample = {
    emisor_rut: '12345678-5',
    razon_social: 'Fake Company S.A.',
    tipo_dte: 33,
    folio: 31000097,
    fecha_docto: '2026-11-20',
    fecha_recepcion: '2026-11-21T03:15:30.000Z',
    monto_total: 32554,
    estado: 'en el SII, no recibido por correo',
    mensaje: 'El SII registra este documento, pero no llegó al buzón: pídalo al proveedor; quedan 2 días para reclamar.',
    vence_at: '2026-11-29T03:15:30.000Z',
    dias_restantes: 2,
    vencido: false,
    imported_at: '2026-11-27T11:00:00.000Z',
};
export const rcvImportSchema = z.object({
    ok: z.literal(true),
    imported: z.number().int().meta({ description: 'Rows read from the file (one per document).' }),
    nuevos: z.number().int().meta({ description: 'Of them, documents not imported before.' }),
    faltantes: z.array(faltanteSchema).meta({ description: 'Every imported entry with no received document.' }),
});
