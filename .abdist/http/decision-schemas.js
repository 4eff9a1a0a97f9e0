/** zod schemas of decisions on received documents (README "Accepting and claiming received documents"). */
import { z } from 'zod';
import { isEmailAddress } from '../dte/email-address.js';
import { ruleIssue } from '../rules.js';
import { decisionSchema } from './event-schemas.js';
const address = z.string().refine(isEmailAddress, ruleIssue('email.invalid'));
const email = z
    .array(address)
    .min(1)
    .max(10)
    .optional()
    .meta({ description: "The supplier's addresses for the answer; default: CorreoEmisor of its DTE, if any." });
export const acceptBody = z.strictObject({
    recibo: z
        .strictObject({
        recinto: z
            .string()
            .trim()
            .min(1)
            .max(80)
            .meta({ description: 'Where the goods or services were received (Recinto, ≤ 80).' }),
    })
        .optional()
        .meta({ description: 'The goods or services were received: ERM and an EnvioRecibos too.' }),
    email,
});
export const claimBody = z.strictObject({
    motivo: z
        .enum(['contenido', 'falta_parcial', 'falta_total'])
        .meta({ description: 'contenido → RCD, falta_parcial → RFP, falta_total → RFT.' }),
    glosa: z.string().trim().min(1).max(200).meta({ description: 'The reason, written in the ResultadoDTE.' }),
    email,
});
export const DECISION_ERRORS = [
    'RECEIVED_DOCUMENT_NOT_FOUND',
    'RECEIVED_TYPE_NOT_DECIDABLE',
    'DECISION_ALREADY_REGISTERED',
    'DECISION_NOT_ALLOWED',
    'DECISION_DEADLINE_PASSED',
];
export const decisionExample = {
    number: 41,
    document: { emisor: '76354771-K', type: 33, folio: 170 },
    kind: 'accept',
    actions: ['ACD', 'ERM'],
    registered: ['ACD', 'ERM'],
    motivo: null,
    glosa: null,
    recinto: 'Bodega central, Quilicura',
    state: 'done',
    sii: { cod_resp: 0, desc_resp: 'Accion Completada OK' },
    last_error: null,
    attempts: 1,
    email_to: ['dte@enacon.cl'],
    resultado_url: 'https://timbre.example.cl/api/76086428-5/recibidos_decisiones/41/resultado',
    recibos_url: 'https://timbre.example.cl/api/76086428-5/recibidos_decisiones/41/recibos',
    decided_at: '2026-11-23T13:02:11.000Z',
    created_at: '2026-11-23T13:02:10.000Z',
};
const itemKey = {
    emisor: z.string().max(20).meta({ description: "The supplier's RUT (RUTEmisor)." }),
    type: z.number().int().min(1).max(999),
    folio: z.number().int().min(1).max(9_999_999_999),
};
export const bulkBody = z.strictObject({
    decisions: z
        .array(z.discriminatedUnion('decision', [
        z.strictObject({ ...itemKey, decision: z.literal('aceptar'), ...acceptBody.shape }),
        z.strictObject({ ...itemKey, decision: z.literal('reclamar'), ...claimBody.shape }),
    ]))
        .min(1)
        .max(100),
});
export const bulkResultSchema = z.union([
    z.object({ ok: z.literal(true), decision: decisionSchema }),
    z.object({
        ok: z.literal(false),
        code: z.string().meta({ description: 'The error code the single-document endpoint would answer.' }),
        error: z.string().meta({ description: "Why, with the SII's code and a Spanish explanation." }),
        document: z.object({ emisor: z.string(), type: z.number().int(), folio: z.number().int() }),
        sii_code: z
            .number()
            .int()
            .optional()
            .meta({ description: "A refusal of the SII's matrix: the code the SII would answer (6, 7, 8, 11, 12, 13)." }),
    }),
]);
