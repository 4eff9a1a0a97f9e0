import { recordEvent } from '../events/record.js';
import { consultarFechaRecepcionSii, listarEventosHistDoc } from '../sii/registro-reclamo.js';
import { SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.js';
import { documentEventData } from './document-state.js';
import { ACTION_NAMES, outcomeOf, receiverActionView, } from '../events/receiver-action-view.js';
import { signingCertificate } from './key-material.js';
import { backoff } from './submissions.js';
const CLAIM_WINDOW_MS = 8 * 24 * 3_600_000;
const LEASE_MS = 3 * 60_000;
/** Past this age a document whose reception the SII never gave is no longer asked about. */
const GIVE_UP_MS = 12 * 24 * 3_600_000;
/** After the deadline, one last look this much later catches events registered at the very end. */
const LAST_LOOK_MS = 60_000;
const EVENT_OF_ACTION = {
    ERM: 'document.receipt_acknowledged',
    ACD: 'document.accepted_by_receiver',
    RCD: 'document.claimed',
    RFP: 'document.claimed',
    RFT: 'document.claimed',
};
/** The watch of one document, for its detail. */
export async function receiverActionOf(ctx, documentId) {
    return receiverActionView(await ctx.db.prisma.registryWatch.findUnique({ where: { documentId } }));
}
/** Asks the registry about every due watch (up to `limit`), one at a time; failures wait on the row. */
export async function checkReceiverActions(ctx, limit = 20) {
    const now = ctx.clock();
    const due = await ctx.db.prisma.registryWatch.findMany({
        where: { nextCheckAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
        select: { id: true },
        orderBy: { nextCheckAt: 'asc' },
        take: limit,
    });
    let done = 0;
    for (const { id } of due)
        if (await checkWatch(ctx, id))
            done++;
    return done;
}
async function checkWatch(ctx, id) {
    const now = ctx.clock();
    const claimed = await ctx.db.prisma.registryWatch.updateMany({
        where: { id, nextCheckAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
        data: { leaseUntil: new Date(now.getTime() + LEASE_MS) },
    });
    if (claimed.count === 0)
        return false;
    const w = await ctx.db.prisma.registryWatch.findUniqueOrThrow({
        where: { id },
        include: { document: true, issuer: true },
    });
    const later = async (error, delayMs) => {
        const attempts = w.attempts + 1;
        const giveUp = now.getTime() - w.createdAt.getTime() > GIVE_UP_MS;
        await ctx.db.prisma.registryWatch.update({
            where: { id },
            data: {
                attempts,
                lastError: error,
                leaseUntil: null,
                nextCheckAt: giveUp ? null : new Date(now.getTime() + delayMs),
            },
        });
        return false;
    };
    const retry = (error) => later(error, backoff(ctx.config.SII_RETRY_BASE_MS, w.attempts + 1));
    try {
        const { cert } = await signingCertificate(ctx, w.issuer, true);
        const caller = { sii: ctx.sii, cert };
        const key = { rutEmisor: w.issuer.rut, tipoDoc: w.document.type, folio: w.document.folio };
        let reception = w.siiReceivedAt;
        if (!reception) {
            const answer = await consultarFechaRecepcionSii(caller, key);
            if (!answer.fechaRecepcion)
                return later(`El SII no informa la recepción: ${answer.descResp}`, ctx.config.REGISTRY_POLL_MS);
            reception = answer.fechaRecepcion;
        }
        const deadline = new Date(reception.getTime() + CLAIM_WINDOW_MS);
        const listing = await listarEventosHistDoc(caller, key);
        if (listing.codResp !== 15 && listing.codResp !== 16) {
            return retry(`listarEventosHistDoc ${listing.codResp}: ${listing.descResp || listing.glosa}`);
        }
        const events = listing.eventos.map((e) => ({
            accion: e.accion === 'OTRO' ? e.codEvento : e.accion,
            rut: e.rutResponsable,
            fecha: e.fecha,
            at: e.at?.toISOString() ?? null,
        }));
        const pastDeadline = now.getTime() >= deadline.getTime();
        const { outcome, claim } = outcomeOf(events, pastDeadline);
        const nextCheckAt = pastDeadline
            ? null
            : new Date(Math.min(now.getTime() + ctx.config.REGISTRY_POLL_MS, deadline.getTime() + LAST_LOOK_MS));
        await ctx.db.prisma.$transaction(async (tx) => {
            await tx.registryWatch.update({
                where: { id },
                data: {
                    siiReceivedAt: reception,
                    deadline,
                    events: events,
                    outcome,
                    claim,
                    nextCheckAt,
                    leaseUntil: null,
                    attempts: 0,
                    lastError: null,
                    checkedAt: now,
                },
            });
            const announce = async (type, dedupe, extra) => {
                const data = await documentEventData(ctx, tx, w.issuer.rut, w.document);
                await recordEvent(tx, {
                    issuerId: w.issuerId,
                    type,
                    documentId: w.documentId,
                    dedupeKey: `${type}:${w.documentId}${dedupe}`,
                    data: { ...data, ...extra },
                }, now);
            };
            const view = receiverActionView({
                events: events,
                outcome,
                claim,
                siiReceivedAt: reception,
                deadline,
                checkedAt: now,
            });
            for (const e of events) {
                const type = EVENT_OF_ACTION[e.accion];
                if (!type)
                    continue;
                await announce(type, type === 'document.claimed' ? `:${e.accion}` : '', {
                    receiver_action: view,
                    action: { code: e.accion, description: ACTION_NAMES[e.accion], rut: e.rut, at: e.at },
                });
            }
            if (outcome === 'aceptado_tacitamente')
                await announce('document.tacitly_accepted', '', { receiver_action: view });
        });
        ctx.jobs?.nudge();
        return true;
    }
    catch (e) {
        if (e instanceof SiiUnavailableError)
            return retry('El SII no está disponible; se reintentará.');
        if (e instanceof SiiAuthError)
            return retry(`El SII rechazó la autenticación: ${e.message}`);
        if (e instanceof SiiProtocolError)
            return retry(`Respuesta del SII ilegible: ${e.message}`);
        if (e instanceof Error && 'code' in e)
            return retry(e.message);
        await ctx.db.prisma.registryWatch.update({ where: { id }, data: { leaseUntil: null } });
        throw e;
    }
}
