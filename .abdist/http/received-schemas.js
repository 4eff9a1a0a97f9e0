/** zod schemas of received documents (README "Received documents") for the routes and their OpenAPI. */
import { z } from 'zod';
import { decisionSchema, receivedDocumentEventData } from './event-schemas.js';
import { rutParam } from './schemas.js';
/** A supplier's factura at the registry of cesiones (README "Cesión"). */
export const receivedCessionSchema = z.object({
    cedido: z.boolean(),
    tenedor: z.string().nullable().meta({ description: 'RUT_TENEDOR: whom to pay; null when not ceded' }),
    checked_at: z.string().meta({ format: 'date-time' }),
    message: z.string().nullable(),
});
const checkSchema = z.object({
    check: z.string().meta({
        description: 'size, dtd, readable, schema, envelope_signature, caratula_receiver, repeated_file, structure; per DTE dte_readable, dte_signature, issuer_rut, receiver_rut, repeated_dte, ted',
    }),
    ok: z.boolean(),
    detail: z.string().meta({ description: 'What was checked and, on failure, what was wrong (Spanish).' }),
});
/** A list entry (the `received.document` event carries the same). */
export const receivedDocumentSchema = receivedDocumentEventData.extend({
    estado: z
        .string()
        .meta({ enum: ['recibido'], description: 'recibido: passed the checks (acceptance and claims come later).' }),
    xml_url: z.string().meta({ format: 'uri', description: 'The DTE as received (needs an API key of the issuer).' }),
});
export const receivedDetailSchema = receivedDocumentSchema.extend({
    receiver: z.object({ rut: z.string(), name: z.string() }),
    lines: z.array(z.object({
        line: z.number().int(),
        name: z.string(),
        qty: z.string().nullable(),
        price: z.string().nullable(),
        amount: z.string(),
        exempt: z.boolean(),
    })),
    refs: z.array(z.object({
        type: z.string(),
        folio: z.string(),
        date: z.string(),
        code: z.string().nullable(),
        reason: z.string().nullable(),
    })),
    checks: z.array(checkSchema),
    ted: z
        .object({ idk: z.number().int(), caf_from: z.number().int(), caf_to: z.number().int() })
        .nullable()
        .meta({ description: "The TED's CAF: the SII key id that signed it and its folio range." }),
    respuesta_url: z.string().nullable().meta({ description: 'The RespuestaDTE that answered its envelope.' }),
    decisions: z
        .array(decisionSchema)
        .meta({ description: 'Its acceptances and claims (…/aceptar, …/reclamar), oldest first.' }),
    pdf_url: z.string().meta({
        format: 'uri',
        description: "The document printed by Timbre, with the supplier's TED (needs an API key of the issuer).",
    }),
    cesion: receivedCessionSchema.nullable().meta({
        description: 'Who holds it at the registry of cesiones, as last asked (POST …/cesion); null: never asked.',
    }),
});
export const receivedCessionExample = {
    cedido: true,
    tenedor: '96516320-4',
    checked_at: '2026-11-27T13:05:42.120Z',
    message: 'The supplier ceded this factura: pay its holder 96516320-4, not the supplier.',
};
export const receptionSchema = z.object({
    ok: z.literal(true),
    number: z.number().int().meta({ description: "Timbre's number for the received file (CodEnvio of the answer)." }),
    file_name: z.string(),
    kind: z.string().nullable().meta({ description: 'EnvioDTE, DTE (a lone document) or null (not readable XML).' }),
    sha256: z.string(),
    accepted: z.boolean().meta({ description: 'True when the envelope passed and at least one DTE was received.' }),
    estado_recep_env: z
        .number()
        .int()
        .meta({
        enum: [0, 1, 2, 3, 90, 91, 99],
        description: 'EstadoRecepEnv: 0 conforme · 1 schema · 2 firma · 3 RUT receptor · 90 repetido · 91 ilegible · 99 otros',
    }),
    glosa: z.string(),
    reason: z.string().nullable().meta({ description: 'Why the envelope was refused (Spanish).' }),
    checks: z.array(checkSchema),
    documents: z.array(z.object({
        index: z.number().int(),
        type: z.number().int().nullable(),
        folio: z.number().int().nullable(),
        emisor_rut: z.string().nullable(),
        estado_recep_dte: z
            .number()
            .int()
            .meta({
            enum: [0, 1, 2, 3, 4, 99],
            description: 'EstadoRecepDTE: 0 OK · 1 firma · 2 RUT emisor · 3 RUT receptor · 4 repetido · 99 otros',
        }),
        glosa: z.string(),
        reason: z.string().nullable(),
        checks: z.array(checkSchema),
    })),
    received: z.array(receivedDocumentSchema),
    respuesta_url: z.string().nullable().meta({ description: 'The signed RespuestaDTE (RecepcionEnvio).' }),
    respuesta_error: z.string().nullable().meta({ description: 'Why no answer was made (a lone DTE, no certificate).' }),
    created_at: z.string().meta({ format: 'date-time' }),
});
const digits = (name, max, description) => z
    .string()
    .regex(/^\d{1,10}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${name} must be between 1 and ${max}`)
    .meta({ type: 'integer', minimum: 1, maximum: max, pattern: undefined, description });
export const receivedParams = z.object({
    rut: rutParam,
    emisor: z.string().max(20).meta({ description: "The supplier's RUT (RUTEmisor), e.g. 76354771-K." }),
    type: digits('type', 999, 'Document type (TipoDTE).'),
    folio: digits('folio', 9_999_999_999, 'Folio.'),
});
export const envelopeParams = z.object({
    rut: rutParam,
    number: digits('number', 9_999_999_999, "Timbre's number for the received file (`number` of the upload's answer)."),
});
export const decisionParams = z.object({
    rut: rutParam,
    number: digits('number', 9_999_999_999, "Timbre's number for a decision (`number` of the decision)."),
});
export const receivedDocumentExample = {
    emisor: { rut: '76354771-K', name: 'INGENIERIA ENACON SPA' },
    type: 33,
    folio: 170,
    date: '2026-11-20',
    totals: { net: 2517900, exempt: 0, vat: 478401, total: 2996301 },
    estado: 'recibido',
    envelope: 12,
    xml_url: 'https://timbre.example.cl/api/76086428-5/recibidos/76354771-K/33/170/xml',
    created_at: '2026-11-23T13:05:42.120Z',
    plazo: {
        sii_received_at: '2026-11-20T13:16:05.000Z',
        deadline: '2026-11-28T13:16:05.000Z',
        days_left: 4,
        expired: false,
        pending_reason: null,
    },
};
