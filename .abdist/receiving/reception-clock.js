import { signingCertificate } from '../issuing/key-material.js';
import { backoff } from '../issuing/submissions.js';
import { consultarFechaRecepcionSii } from '../sii/registro-reclamo.js';
import { SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.js';
/** The registry's document types ([WSRR] tipoDoc): factura, factura exenta, liquidación-factura. */
const REGISTRY_TYPES = [33, 34, 43];
/** 8 × 24 h (docs/claims-registry.md §3). */
const CLAIM_WINDOW_MS = 8 * 24 * 3_600_000;
const DAY_MS = 24 * 3_600_000;
/** How long Timbre keeps asking the SII for a reception it does not have: past the window itself. */
const RECEPTION_GIVE_UP_MS = 10 * DAY_MS;
/** How long a worker owns a row it is asking the SII about (longer than any SII call). */
const LEASE_MS = 3 * 60_000;
/** The first delay between two questions about the same reception; doubles up to 30 min. */
const RECEPTION_RETRY_BASE_MS = 60_000;
export const deadlineOf = (reception) => new Date(reception.getTime() + CLAIM_WINDOW_MS);
/** The clock columns of a newly received document. */
export function initialClock(issuer, type, now) {
    if (!REGISTRY_TYPES.includes(type))
        return {};
    if (issuer.siiAmbiente === 0)
        return { siiReceivedAt: now, deadline: deadlineOf(now) };
    return { receptionCheckAt: now };
}
/** The clock of a received document as the API shows it; null for types outside the registry. */
export function plazoOf(d, now) {
    if (!REGISTRY_TYPES.includes(d.type))
        return null;
    if (!d.siiReceivedAt || !d.deadline) {
        return {
            sii_received_at: null,
            deadline: null,
            days_left: null,
            expired: false,
            pending_reason: d.receptionError ?? 'El SII aún no informa la fecha de recepción.',
        };
    }
    const ms = d.deadline.getTime() - now.getTime();
    return {
        sii_received_at: d.siiReceivedAt.toISOString(),
        deadline: d.deadline.toISOString(),
        days_left: ms > 0 ? Math.floor(ms / DAY_MS) : 0,
        expired: ms <= 0,
        pending_reason: null,
    };
}
/** Rows whose reception is due to be asked, not held by a live lease. */
async function dueReceptions(ctx, limit) {
    const now = ctx.clock();
    const rows = await ctx.db.prisma.receivedDocument.findMany({
        where: {
            receptionCheckAt: { lte: now },
            OR: [{ receptionLeaseUntil: null }, { receptionLeaseUntil: { lt: now } }],
        },
        select: { id: true },
        orderBy: { receptionCheckAt: 'asc' },
        take: limit,
    });
    return rows.map((r) => r.id);
}
/**
 * Asks the SII for the reception of every due row (up to `limit`), one at a time; returns how
 * many got their date. Failures are recorded on the row and retried later; none is thrown.
 */
export async function checkReceptions(ctx, limit = 20) {
    let found = 0;
    for (const id of await dueReceptions(ctx, limit)) {
        if (await checkReception(ctx, id))
            found++;
    }
    return found;
}
async function checkReception(ctx, id) {
    const now = ctx.clock();
    // The lease: only one worker asks about a row at a time (another instance's claim wins).
    const claimed = await ctx.db.prisma.receivedDocument.updateMany({
        where: {
            id,
            receptionCheckAt: { lte: now },
            OR: [{ receptionLeaseUntil: null }, { receptionLeaseUntil: { lt: now } }],
        },
        data: { receptionLeaseUntil: new Date(now.getTime() + LEASE_MS) },
    });
    if (claimed.count === 0)
        return false;
    const row = await ctx.db.prisma.receivedDocument.findUniqueOrThrow({ where: { id }, include: { issuer: true } });
    const retry = async (error) => {
        const attempts = row.receptionAttempts + 1;
        const giveUp = ctx.clock().getTime() - row.createdAt.getTime() > RECEPTION_GIVE_UP_MS;
        await ctx.db.prisma.receivedDocument.update({
            where: { id },
            data: {
                receptionAttempts: attempts,
                receptionError: error,
                receptionLeaseUntil: null,
                receptionCheckAt: giveUp ? null : new Date(ctx.clock().getTime() + backoff(RECEPTION_RETRY_BASE_MS, attempts)),
            },
        });
        return false;
    };
    let cert;
    try {
        ({ cert } = await signingCertificate(ctx, row.issuer, true));
    }
    catch (e) {
        return retry(`Sin certificado para consultar al SII: ${e.message}`);
    }
    try {
        const answer = await consultarFechaRecepcionSii({ sii: ctx.sii, cert }, { rutEmisor: row.emisorRut, tipoDoc: row.type, folio: row.folio });
        if (!answer.fechaRecepcion)
            return retry(`El SII no informa la recepción: ${answer.descResp}`);
        await ctx.db.prisma.receivedDocument.update({
            where: { id },
            data: {
                siiReceivedAt: answer.fechaRecepcion,
                deadline: deadlineOf(answer.fechaRecepcion),
                receptionCheckAt: null,
                receptionLeaseUntil: null,
                receptionError: null,
                receptionAttempts: row.receptionAttempts + 1,
            },
        });
        return true;
    }
    catch (e) {
        if (e instanceof SiiUnavailableError)
            return retry('El SII no está disponible; se reintentará.');
        if (e instanceof SiiAuthError)
            return retry(`El SII rechazó la autenticación: ${e.message}`);
        if (e instanceof SiiProtocolError)
            return retry(`Respuesta del SII ilegible: ${e.message}`);
        await ctx.db.prisma.receivedDocument.update({ where: { id }, data: { receptionLeaseUntil: null } });
        throw e;
    }
}
