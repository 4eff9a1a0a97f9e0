/**
 * zod schemas of events (docs/design.md §9) for the routes' OpenAPI: the envelope `{ id, type,
 * created_at, data }` and each type's `data`. A webhook delivery's body is exactly one of these.
 */
import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.js';
import { cessionSchema } from './cession-schemas.js';
import { documentSchema } from './schemas.js';
const siiRaw = z
    .object({ estado: z.string().nullable(), glosa: z.string().nullable(), track_id: z.string().nullable() })
    .nullable()
    .describe("The SII's raw answer (live documents)");
/** document.*: the list entry of GET /api/{rut}/emisiones plus the SII's raw answer. */
const documentEventData = documentSchema.extend({
    sii: siiRaw,
    previous_estado_sii: z.string().optional().describe('The state before this change'),
    reason: z.string().optional().describe('Why the state changed'),
    last_error: z.string().nullable().optional().describe('document.submission_delayed: the last submission error'),
    attempts: z.number().int().optional().describe('document.submission_delayed: upload attempts so far'),
    action: z
        .object({ code: z.string(), description: z.string(), rut: z.string(), at: z.string().nullable() })
        .optional()
        .describe("The customer's action at the SII's claims registry (ERM, ACD, RCD, RFP, RFT)"),
});
const folioEventData = z.object({
    type: z.number().int(),
    env: z.enum(['sandbox', 'live']),
    available: z.number().int(),
    threshold: z.number().int(),
});
const cafExpiringData = z.object({
    type: z.number().int(),
    env: z.enum(['sandbox', 'live']),
    from: z.number().int(),
    to: z.number().int(),
    available: z.number().int(),
    expires_at: z.string(),
    days_left: z.number().int(),
    threshold_days: z.number().int(),
});
const certificateEventData = z.object({
    holder_rut: z.string(),
    subject: z.string(),
    fingerprint: z.string(),
    not_after: z.string(),
    days_left: z.number().int(),
    threshold_days: z.number().int().optional(),
});
const emailEventData = z.object({
    type: z.number().int(),
    folio: z.number().int(),
    issuer: z.string(),
    to: z.array(z.string()),
    message_id: z.string().nullable().optional(),
    at: z.string().optional(),
    error: z.string().nullable().optional(),
    attempts: z.number().int().optional(),
    decision: z.number().int().optional().describe("A decision's answer to a supplier: the decision's number"),
});
const pingData = z.object({ endpoint_id: z.string(), url: z.string() });
const webhookDisabledData = z.object({
    endpoint_id: z.string(),
    url: z.string(),
    failing_since: z.string(),
    last_error: z.string().nullable(),
});
/** received.document: the list entry of GET /api/{rut}/recibidos. */
export const receivedDocumentEventData = z.object({
    emisor: z.object({ rut: z.string(), name: z.string() }),
    type: z.number().int(),
    folio: z.number().int(),
    date: z.string(),
    totals: z.object({ net: z.number().int(), exempt: z.number().int(), vat: z.number().int(), total: z.number().int() }),
    estado: z.string(),
    envelope: z.number().int(),
    xml_url: z.string(),
    created_at: z.string(),
    plazo: z
        .object({
        sii_received_at: z.string().nullable().describe("The SII's reception (sandbox: Timbre's), ISO 8601"),
        deadline: z.string().nullable().describe('Reception + 8 × 24 h: claims close then'),
        days_left: z.number().int().nullable().describe('Whole days left (0 in the last day)'),
        expired: z.boolean().describe('Past the deadline: accepted unless claimed'),
        pending_reason: z.string().nullable().describe('Why the reception is not known yet (live)'),
    })
        .nullable()
        .describe('The 8-day clock to accept or claim at the SII (33, 34, 43; null for other types)'),
});
/** received.refused: a refused envelope, or one refused DTE of an accepted envelope. */
const receivedRefusedData = z.object({
    envelope: z.number().int().describe("Timbre's number of the received envelope (CodEnvio)"),
    file_name: z.string(),
    estado_recep_env: z.number().int().describe('EstadoRecepEnv: 0 when only a DTE was refused'),
    glosa: z.string(),
    reason: z.string().nullable().describe('Why, in Spanish'),
    type: z.number().int().nullable().optional(),
    folio: z.number().int().nullable().optional(),
    emisor_rut: z.string().nullable().optional(),
    estado_recep_dte: z.number().int().optional().describe('EstadoRecepDTE of the refused DTE'),
});
/** received.accepted, received.claimed, received.decision_refused: the decision (its API view). */
export const decisionSchema = z.object({
    number: z.number().int().describe("Timbre's number of the decision (the answer's IdRespuesta)"),
    document: z.object({ emisor: z.string(), type: z.number().int(), folio: z.number().int() }),
    kind: z.enum(['accept', 'claim']),
    actions: z.array(z.enum(['ACD', 'RCD', 'ERM', 'RFP', 'RFT'])).describe("The registry's accionDoc, in order"),
    registered: z.array(z.enum(['ACD', 'RCD', 'ERM', 'RFP', 'RFT'])).describe('Those the SII has recorded'),
    motivo: z.enum(['contenido', 'falta_parcial', 'falta_total']).nullable(),
    glosa: z.string().nullable(),
    recinto: z.string().nullable(),
    state: z
        .enum(['pending', 'done', 'refused', 'local'])
        .describe('pending: being registered at the SII (retried); done; refused by the SII; local: sandbox'),
    sii: z
        .object({ cod_resp: z.number().int(), desc_resp: z.string() })
        .nullable()
        .describe("The registry's last answer"),
    last_error: z.string().nullable().describe('Why the SII could not be reached yet (it is retried)'),
    attempts: z.number().int(),
    email_to: z.array(z.string()),
    resultado_url: z.string().nullable().describe('The signed RespuestaDTE with ResultadoDTE'),
    recibos_url: z.string().nullable().describe('The signed EnvioRecibos (with ERM)'),
    decided_at: z.string().nullable(),
    created_at: z.string(),
});
const decisionEventData = decisionSchema.extend({ emisor_name: z.string() });
const envelope = (types, data) => z.object({ id: z.string(), type: z.enum(types), created_at: z.string(), data });
/** One event, whatever its type (the body of every webhook delivery). */
export const eventSchema = z.union([
    envelope([
        'document.issued',
        'document.accepted',
        'document.accepted_with_objections',
        'document.rejected',
        'document.voided',
        'document.restored',
        'document.submission_delayed',
        'document.receipt_acknowledged',
        'document.accepted_by_receiver',
        'document.claimed',
        'document.tacitly_accepted',
    ], documentEventData),
    envelope(['folios.low', 'folios.exhausted'], folioEventData),
    envelope(['caf.expiring'], cafExpiringData),
    envelope(['certificate.expiring', 'certificate.expired'], certificateEventData),
    envelope(['email.sent', 'email.failed'], emailEventData),
    envelope(['ping'], pingData),
    envelope(['webhook.disabled'], webhookDisabledData),
    envelope(['received.document'], receivedDocumentEventData),
    envelope(['received.refused'], receivedRefusedData),
    envelope(['received.accepted', 'received.claimed', 'received.decision_refused'], decisionEventData),
    envelope(['received.deadline_near', 'received.tacitly_accepted'], receivedDocumentEventData),
    envelope(['cession.registered', 'cession.rejected'], z.object({ cesion: cessionSchema })),
]);
export const eventTypeSchema = z.enum(EVENT_TYPES, { message: `must be one of ${EVENT_TYPES.join(', ')}` });
export const endpointSchema = z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    created_at: z.string(),
    disabled_at: z.string().nullable(),
    failing_since: z.string().nullable(),
});
export const idParams = z.object({ rut: z.string().max(20), id: z.string().max(64) });
