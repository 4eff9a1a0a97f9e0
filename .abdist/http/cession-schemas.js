/** zod schemas of cesiones (README "Cesión"): the ceder body, a cesión, its short form on a document. */
import { z } from 'zod';
import { isRealDate } from '../dte/calendar-date.js';
import { isEmailAddress } from '../dte/email-address.js';
import { normalizeRut } from '../dte/rut.js';
import { refusedCharacter } from '../dte/xml-text.js';
import { ruleIssue } from '../rules.js';
/** Text written into the AEC: one line, ISO-8859-1, the XSD's lengths. */
function aecText(min, max) {
    return z
        .string()
        .trim()
        .refine((s) => s.length >= min, ruleIssue('string.too_short', { min }))
        .refine((s) => [...s].length <= max, ruleIssue('text.too_long', { max }))
        .superRefine((s, ctx) => {
        const refused = refusedCharacter(s);
        if (refused)
            ctx.addIssue({ code: 'custom', ...ruleIssue('text.char_not_allowed', { char: refused }) });
    })
        .refine((s) => !/[\n\t]/.test(s), ruleIssue('text.multiline'));
}
const email = z
    .string()
    .max(80)
    .refine((s) => s.length >= 6 && isEmailAddress(s), ruleIssue('email.invalid'));
const rut = z
    .string()
    .max(20)
    .refine((s) => normalizeRut(s) !== null, ruleIssue('rut.invalid'));
export const cedeBody = z.strictObject({
    type: z
        .number()
        .int()
        .meta({ enum: [33, 34, 46], description: 'Document type: 33, 34 or 46.' }),
    folio: z.number().int().min(1),
    cesionario: z
        .strictObject({
        rut: rut.meta({ description: "The cesionario's RUT (the factoring company), e.g. 76354771-K." }),
        razon_social: aecText(1, 100),
        direccion: aecText(5, 80),
        email: email.meta({ description: "The cesionario's e-mail (eMail, 6 to 80)." }),
    })
        .meta({ description: 'Who the factura is ceded to.' }),
    monto: z
        .number()
        .int()
        .min(1)
        .optional()
        .meta({ description: "MontoCesion: at most the document's total (default: the total)." }),
    ultimo_vencimiento: z
        .string()
        .refine(isRealDate, ruleIssue('date.invalid'))
        .meta({ format: 'date', description: "UltimoVencimiento: the last due date, on or after the document's date." }),
    otras_condiciones: aecText(1, 512).optional().meta({ description: 'OtrasCondiciones (≤ 512).' }),
    email_deudor: email.optional().meta({ description: "eMailDeudor: the debtor's e-mail, to be told of the cesión." }),
    cedente_email: email
        .optional()
        .meta({ description: "The cedente's eMail in the AEC; default: the issuer's intercambio mailbox address." }),
});
const CESSION_STATE_DOC = 'pendiente (stored, not yet taken by the SII; retried) · enviada (uploaded, track id) · aceptada (EOK: the cesionario holds the factura) · rechazada (refused; see sii_estado, sii_glosa)';
export const cessionSchema = z.object({
    id: z.string(),
    type: z.number().int(),
    folio: z.number().int(),
    seq: z.number().int().describe('SeqCesion (1: the issuer cedes its own factura)'),
    estado: z.enum(['pendiente', 'enviada', 'aceptada', 'rechazada']).describe(CESSION_STATE_DOC),
    cesionario: z.object({ rut: z.string(), razon_social: z.string(), direccion: z.string(), email: z.string() }),
    monto: z.number().int(),
    ultimo_vencimiento: z.string().meta({ format: 'date' }),
    otras_condiciones: z.string().nullable(),
    email_deudor: z.string().nullable(),
    tenedor: z
        .string()
        .nullable()
        .describe("Who holds the factura at the SII's registry once the cesión is registered: the cesionario"),
    sii_estado: z
        .string()
        .nullable()
        .describe('The RPETC state: STATUS n of the upload, then ESTADO_ENVIO (UPL, RCP, RSC, RFS, RCR, RDC, RCS, EOK …)'),
    sii_glosa: z.string().nullable(),
    track_id: z.string().nullable(),
    attempts: z.number().int(),
    last_error: z.string().nullable().describe('Why the SII could not be reached yet (it is retried)'),
    aec_url: z.string().meta({ format: 'uri', description: 'The signed AEC, byte-exact (API key)' }),
    created_at: z.string(),
    updated_at: z.string(),
});
export const documentCessionSchema = z
    .object({
    id: z.string(),
    estado: z.enum(['pendiente', 'enviada', 'aceptada', 'rechazada']),
    cesionario: z.object({ rut: z.string(), razon_social: z.string() }),
    tenedor: z.string().nullable(),
    sii_estado: z.string().nullable(),
    sii_glosa: z.string().nullable(),
})
    .nullable()
    .optional()
    .meta({ description: 'The cesión of this document in flight or accepted (GET /cesiones); null otherwise' });
export const cessionExample = {
    id: '0b6f3c1e-2d4a-4f5e-9a7b-8c9d0e1f2a3b',
    type: 33,
    folio: 170,
    seq: 1,
    estado: 'aceptada',
    cesionario: {
        rut: '96516320-4',
        razon_social: 'Factoring del Sur S.A.',
        direccion: 'Av. Apoquindo 3000, Las Condes',
        email: 'operaciones@factoringdelsur.cl',
    },
    monto: 21396,
    ultimo_vencimiento: '2026-12-23',
    otras_condiciones: null,
    email_deudor: 'pagos@losandes.cl',
    tenedor: '96516320-4',
    sii_estado: 'EOK',
    sii_glosa: 'Cesion Aceptada',
    track_id: '4567',
    attempts: 1,
    last_error: null,
    aec_url: 'https://timbre.example/api/76354771-K/cesiones/0b6f3c1e-2d4a-4f5e-9a7b-8c9d0e1f2a3b/aec',
    created_at: '2026-11-27T13:05:42.120Z',
    updated_at: '2026-11-27T13:05:44.010Z',
};
