import { recordEvent } from '../events/record.js';
import { EstadoSii } from '../generated/prisma/client.js';
import { documentContent } from './document-content.js';
import { documentView } from '../events/document-view.js';
import { emailViewOf } from '../events/email-view.js';
export { EstadoSii };
/** Every state, in the order of a document's life (the schema's enum). */
export const ESTADOS_SII = Object.values(EstadoSii);
/** States the SII will not move any more (save a void). */
const FINAL_STATES = ['aceptado', 'aceptado_con_reparos', 'rechazado', 'anulado'];
/** States in which the SII holds the document as valid. */
const ACCEPTED_STATES = ['aceptado', 'aceptado_con_reparos'];
export function isFinal(state) {
    return FINAL_STATES.includes(state);
}
export function isAccepted(state) {
    return ACCEPTED_STATES.includes(state);
}
/** The event that announces arriving in a state (none for the in-between states). */
const EVENT_OF = {
    aceptado: 'document.accepted',
    aceptado_con_reparos: 'document.accepted_with_objections',
    rechazado: 'document.rejected',
    anulado: 'document.voided',
};
/**
 * The state a document ends in when `proposed` is learned while it is in `from`. Returns
 * `from` when the proposal must not win.
 */
export function resolveState(from, proposed) {
    if (from === proposed)
        return from;
    if (from === 'anulado')
        return from;
    if (proposed === 'anulado')
        return isAccepted(from) || from === 'local' ? proposed : from;
    if (from === 'local')
        return from; // sandbox documents never reach the SII
    if (from === 'aceptado')
        return proposed === 'aceptado_con_reparos' ? proposed : from;
    if (from === 'aceptado_con_reparos')
        return from;
    // pendiente, enviado, rechazado: whatever the SII now says (rechazado → pendiente is a resubmit).
    return proposed;
}
/**
 * Applies a change to a document inside the caller's transaction (see the header). Returns the
 * document as written.
 */
export async function transition(ctx, tx, documentId, issuerRut, change) {
    const [locked] = await tx.$queryRaw `
    SELECT estado_sii, estado_before_void FROM documents WHERE id = ${documentId}::uuid FOR UPDATE`;
    if (!locked)
        throw new Error(`document ${documentId} not found`);
    const from = locked.estado_sii;
    const restoring = change.restore === true && from === 'anulado' && change.to !== undefined;
    // A restored document goes back to the state it had before it was voided (recorded then;
    // `change.to` only for rows voided before that was recorded).
    const to = change.to ? (restoring ? (locked.estado_before_void ?? change.to) : resolveState(from, change.to)) : from;
    const document = await tx.document.update({
        where: { id: documentId },
        data: {
            ...change.extra,
            ...(to !== from && { estadoSii: to }),
            ...(change.siiCode !== undefined && { siiCode: change.siiCode }),
            ...(change.siiGlosa !== undefined && { siiGlosa: change.siiGlosa }),
            ...(to === 'anulado' && to !== from && { estadoBeforeVoid: from }),
            ...(to === 'anulado' && change.voidedById && { voidedById: change.voidedById }),
            ...(restoring && { voidedById: null, estadoBeforeVoid: null }),
        },
    });
    if (to === from)
        return document;
    ctx.log.info({
        document: documentId,
        type: document.type,
        folio: document.folio,
        from,
        to,
        reason: change.reason,
        siiCode: document.siiCode,
    }, 'document state changed');
    if (document.environment === 'live') {
        if (isAccepted(to)) {
            await tx.emailMessage.updateMany({
                where: { documentId, state: 'waiting' },
                data: { state: 'pending', nextRunAt: ctx.clock() },
            });
            // A factura's customer has 8 days at the SII's claims registry: follow them from now on
            // (src/issuing/receiver-actions.ts).
            if (document.type === 33 || document.type === 34) {
                await tx.registryWatch.upsert({
                    where: { documentId },
                    create: { issuerId: document.issuerId, documentId, nextCheckAt: ctx.clock(), createdAt: ctx.clock() },
                    update: {},
                });
            }
        }
        else if (to === 'rechazado') {
            await tx.emailMessage.updateMany({ where: { documentId, state: 'waiting' }, data: { state: 'cancelled' } });
        }
    }
    const type = restoring ? 'document.restored' : EVENT_OF[to];
    if (type) {
        await recordEvent(tx, {
            issuerId: document.issuerId,
            type,
            documentId,
            fromDocument: true,
            data: await documentEventData(ctx, tx, issuerRut, document, { previous: from, reason: change.reason }),
        }, ctx.clock());
    }
    if (!restoring && (to === 'aceptado' || (to === 'aceptado_con_reparos' && !isAccepted(from)))) {
        await voidReferencedDocuments(ctx, tx, issuerRut, document);
    }
    return document;
}
/**
 * What a voiding note (CodRef 1) does once it is valid (at issue in sandbox, when the SII
 * accepts it in live, docs/design.md §5): a 61 voids the documents it references; a 56 voiding a 61
 * voids that 61 and restores the documents the 61 had voided ([FMT] CodRef; [MUE] notes).
 */
export async function voidReferencedDocuments(ctx, tx, issuerRut, note) {
    if (note.type !== 61 && note.type !== 56)
        return;
    const { model } = await documentContent(ctx, note);
    for (const ref of model.refs ?? []) {
        if (ref.code !== 1 || !/^\d+$/.test(ref.type) || !/^\d+$/.test(ref.folio))
            continue;
        if (note.type === 56 && ref.type !== '61')
            continue;
        const target = await tx.document.findUnique({
            where: {
                issuerId_type_folio_environment: {
                    issuerId: note.issuerId,
                    type: Number(ref.type),
                    folio: Number(ref.folio),
                    environment: note.environment,
                },
            },
            select: { id: true },
        });
        if (!target)
            continue;
        if (note.type === 56) {
            const voidedByTarget = await tx.document.findMany({
                where: { voidedById: target.id, estadoSii: 'anulado' },
                select: { id: true },
            });
            for (const original of voidedByTarget) {
                await transition(ctx, tx, original.id, issuerRut, {
                    // The state it had before the void wins (transition); this is the fallback.
                    to: note.environment === 'sandbox' ? 'local' : 'aceptado',
                    reason: `credit note ${ref.folio}, which voided it, was voided by debit note ${note.folio}`,
                    restore: true,
                });
            }
        }
        await transition(ctx, tx, target.id, issuerRut, {
            to: 'anulado',
            reason: `voided by ${note.type === 56 ? 'debit' : 'credit'} note ${note.folio} (CodRef 1)`,
            voidedById: note.id,
        });
    }
}
/** A document event's `data`: the list entry (docs/design.md §5) plus the SII's raw answer. */
export async function documentEventData(ctx, tx, issuerRut, document, extra = {}) {
    const email = await tx.emailMessage.findFirst({
        where: { documentId: document.id },
        orderBy: { createdAt: 'desc' },
    });
    const voidedBy = document.voidedById
        ? await tx.document.findUnique({ where: { id: document.voidedById }, select: { type: true, folio: true } })
        : null;
    return {
        ...documentView(ctx.config, issuerRut, document, undefined, voidedBy),
        email: emailViewOf(email),
        sii: document.environment === 'live'
            ? { estado: document.siiCode, glosa: document.siiGlosa, track_id: document.trackId }
            : null,
        ...(extra.previous && { previous_estado_sii: extra.previous }),
        ...(extra.reason && { reason: extra.reason }),
    };
}
