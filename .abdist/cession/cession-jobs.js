import { recordEvent } from '../events/record.js';
import { signingCertificate } from '../issuing/key-material.js';
import { backoff } from '../issuing/submissions.js';
import { SiiAmbiguousError, SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.js';
import { cessionView } from '../events/cession-view.js';
/** How long a worker owns a cesión it is processing (longer than any SII call). */
const LEASE_MS = 3 * 60_000;
/**
 * getEstCesion checks after an ambiguous upload before the AEC is sent again (SII_POLL_INTERVAL_MS
 * doubling: 15 s … 2 min, ~4 min in all by default): the registry processes an AEC in steps.
 */
const AMBIGUOUS_CHECKS = 4;
/**
 * RTCAnotEnvio STATUS codes that refuse an upload for good (RPUP); the rest are retried. Their
 * Spanish meaning comes with the answer (src/sii/rpetc.ts RPETC_UPLOAD_STATUS).
 */
const FINAL_UPLOAD_REFUSALS = new Set([1, 2, 4, 6]);
/** This worker's lease on a cesión ended and another worker took it over. */
class LeaseLost extends Error {
}
async function claim(ctx, id, force) {
    const now = ctx.clock();
    const rows = await ctx.db.prisma.$queryRaw `
    UPDATE cessions
       SET lease_until = ${new Date(now.getTime() + LEASE_MS)}, updated_at = ${now}
     WHERE id = ${id}::uuid
       AND estado IN ('pendiente', 'enviada')
       AND (lease_until IS NULL OR lease_until < ${now})
       AND (${force} OR next_run_at <= ${now})
     RETURNING id`;
    if (rows.length === 0)
        return null;
    return ctx.db.prisma.cession.findUniqueOrThrow({ where: { id } });
}
/** Runs a cesión's next step if it is due (or `force`) and nobody holds it; false when there was nothing to do. */
export async function runCession(ctx, id, opts = {}) {
    const cession = await claim(ctx, id, opts.force ?? false);
    if (!cession)
        return false;
    let outcome;
    let sc = null;
    try {
        sc = await loadContext(ctx, cession);
        outcome = await step(ctx, sc);
    }
    catch (err) {
        if (err instanceof LeaseLost) {
            ctx.log.warn({ cession: id }, 'cesión lease lost before the upload; the new holder goes on');
            return false;
        }
        ctx.log.error({ err, cession: id }, 'cesión step failed');
        outcome = {
            estado: cession.estado,
            nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, cession.attempts + 1),
            data: { lastError: `internal error: ${err.message}` },
        };
    }
    return save(ctx, cession, sc, outcome);
}
/** The first step of a cesión just stored (the ceder call), at once. */
export async function runCessionNow(ctx, id) {
    return runCession(ctx, id, { force: true });
}
async function loadContext(ctx, cession) {
    const document = await ctx.db.prisma.document.findUniqueOrThrow({ where: { id: cession.documentId } });
    const issuer = await ctx.db.prisma.issuer.findUniqueOrThrow({ where: { id: cession.issuerId } });
    const { cert } = await signingCertificate(ctx, issuer, true);
    return { cession, document, issuer, cert };
}
/** Writes a step's outcome (and its event) while this worker still holds the lease. */
async function save(ctx, c, sc, o) {
    const now = ctx.clock();
    const nextRunAt = o.nextInMs === null ? now : new Date(now.getTime() + o.nextInMs);
    const saved = await ctx.db.prisma.$transaction(async (tx) => {
        const held = await tx.cession.updateMany({
            where: { id: c.id, leaseUntil: c.leaseUntil },
            data: { estado: o.estado, leaseUntil: null, nextRunAt, ...o.data },
        });
        if (held.count === 0) {
            ctx.log.warn({ cession: c.id, estado: o.estado }, 'cesión lease lost during the step; its outcome is dropped');
            return false;
        }
        if (o.event && sc) {
            const updated = await tx.cession.findUniqueOrThrow({ where: { id: c.id } });
            await recordEvent(tx, {
                issuerId: c.issuerId,
                type: o.event,
                documentId: c.documentId,
                dedupeKey: `${o.event}:${c.id}`,
                data: { cesion: cessionView(ctx.config, sc.issuer.rut, updated, sc.document) },
            }, now);
        }
        return true;
    });
    if (saved && o.event)
        ctx.jobs?.nudge();
    return saved;
}
function describe(err) {
    if (err instanceof SiiUnavailableError)
        return `the SII could not be reached (${err.message})`;
    if (err instanceof SiiAmbiguousError)
        return `no answer from the SII after sending (${err.message})`;
    if (err instanceof SiiAuthError)
        return `the SII refused authentication (${err.message})`;
    if (err instanceof SiiProtocolError)
        return `unexpected answer from the SII (${err.message})`;
    return err.message;
}
async function step(ctx, sc) {
    const c = sc.cession;
    if (c.estado === 'enviada')
        return poll(ctx, sc);
    if (c.uploadStartedAt)
        return resolveAmbiguous(ctx, sc);
    return upload(ctx, sc);
}
async function upload(ctx, sc) {
    const { cession: c, issuer, document, cert } = sc;
    // Recorded before the call: a crash during the upload must leave a trace (see the header).
    const held = await ctx.db.prisma.cession.updateMany({
        where: { id: c.id, leaseUntil: c.leaseUntil },
        data: { uploadStartedAt: ctx.clock(), attempts: { increment: 1 } },
    });
    if (held.count === 0)
        throw new LeaseLost();
    const attempt = c.attempts + 1;
    let answer;
    try {
        answer = await ctx.sii.rpetc.uploadAec({
            cert,
            companyRut: issuer.rut,
            email: c.cedenteEmail,
            aec: Buffer.from(c.aec),
            fileName: `AEC_${issuer.rut}_T${document.type}_F${document.folio}_S${c.seq}.xml`,
        });
    }
    catch (err) {
        const failure = describe(err);
        ctx.log.warn({ cession: c.id, attempt, reason: failure }, 'AEC upload failed');
        if (err instanceof SiiAmbiguousError || err instanceof SiiProtocolError) {
            // It may have arrived: the registry is asked before anything is sent again.
            return { estado: 'pendiente', nextInMs: ctx.config.SII_POLL_INTERVAL_MS, data: { lastError: failure, polls: 0 } };
        }
        return {
            estado: 'pendiente',
            nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, attempt),
            data: { lastError: failure, uploadStartedAt: null },
        };
    }
    return uploadAnswer(ctx, answer, attempt);
}
function uploadAnswer(ctx, answer, attempt) {
    const siiEstado = `STATUS ${answer.status}`;
    if (answer.status === 0 && answer.trackId) {
        return {
            estado: 'enviada',
            nextInMs: ctx.config.SII_POLL_INTERVAL_MS,
            data: {
                trackId: answer.trackId,
                siiEstado,
                siiGlosa: answer.glosa,
                uploadStartedAt: null,
                polls: 0,
                lastError: null,
            },
        };
    }
    if (FINAL_UPLOAD_REFUSALS.has(answer.status)) {
        return {
            estado: 'rechazada',
            nextInMs: null,
            data: { siiEstado, siiGlosa: answer.glosa, uploadStartedAt: null, lastError: null },
            event: 'cession.rejected',
        };
    }
    return {
        estado: 'pendiente',
        nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, attempt),
        data: {
            siiEstado,
            siiGlosa: answer.glosa,
            uploadStartedAt: null,
            lastError: `the SII did not take the upload (${siiEstado}: ${answer.glosa})`,
        },
    };
}
/**
 * Whether the registry shows the document ceded (getEstCesion's general answer, ESTADO 0). That
 * answer names no holder (RUT_TENEDOR comes only with the cesión's IdCesion, which neither the
 * upload nor getEstEnvio gives); a first cesión can only be the issuer's, and Timbre keeps at
 * most one live cesión per document, so a ceded document here is this cesión registered.
 */
async function registryShowsCeded(ctx, sc) {
    const { issuer, document, cert } = sc;
    const est = await ctx.sii.rpetc.getEstCesion({
        cert,
        issuerRut: issuer.rut,
        type: document.type,
        folio: document.folio,
    });
    return est.cedido;
}
/** Registered: the cesionario of this AEC holds the factura now (the registry accepted it as written). */
function accepted(c, glosa) {
    return {
        estado: 'aceptada',
        nextInMs: null,
        data: { siiEstado: 'EOK', siiGlosa: glosa, holderRut: c.cesionarioRut, uploadStartedAt: null, lastError: null },
        event: 'cession.registered',
    };
}
/** An upload whose answer was lost: the registry first; the same bytes again after the window. */
async function resolveAmbiguous(ctx, sc) {
    const c = sc.cession;
    let ceded;
    try {
        ceded = await registryShowsCeded(ctx, sc);
    }
    catch (err) {
        return {
            estado: 'pendiente',
            nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, c.attempts),
            data: { lastError: describe(err) },
        };
    }
    if (ceded)
        return accepted(c, 'El registro de cesiones muestra el documento cedido (getEstCesion)');
    if (c.polls < AMBIGUOUS_CHECKS) {
        const polls = c.polls + 1;
        return {
            estado: 'pendiente',
            nextInMs: backoff(ctx.config.SII_POLL_INTERVAL_MS, polls),
            data: { polls, lastError: 'the upload got no answer and the SII has not registered the cesión yet' },
        };
    }
    return upload(ctx, { ...sc, cession: { ...c, polls: 0, uploadStartedAt: null } });
}
async function poll(ctx, sc) {
    const { cession: c, cert } = sc;
    const polls = c.polls + 1;
    await ctx.db.prisma.cession.update({ where: { id: c.id }, data: { polls } });
    let est;
    try {
        est = await ctx.sii.rpetc.getEstEnvio({ cert, trackId: c.trackId ?? '' });
    }
    catch (err) {
        return {
            estado: 'enviada',
            nextInMs: backoff(ctx.config.SII_POLL_INTERVAL_MS, polls),
            data: { lastError: describe(err) },
        };
    }
    if (!est.final) {
        return {
            estado: 'enviada',
            nextInMs: backoff(ctx.config.SII_POLL_INTERVAL_MS, polls),
            data: { siiEstado: est.estado, siiGlosa: est.glosa, lastError: null },
        };
    }
    if (est.accepted)
        return accepted(c, est.glosa);
    if (c.attempts > 1 && (await registryShowsCeded(ctx, sc).catch(() => false))) {
        // Sent more than once after a lost answer: an earlier upload is the one registered.
        return accepted(c, 'El registro de cesiones muestra el documento cedido (getEstCesion)');
    }
    return {
        estado: 'rechazada',
        nextInMs: null,
        data: { siiEstado: est.estado, siiGlosa: est.glosa, lastError: null },
        event: 'cession.rejected',
    };
}
/** Cesiones due and not held by anyone: what the jobs take up (src/jobs.ts). */
export async function dueCessions(ctx, limit = 10) {
    const now = ctx.clock();
    const rows = await ctx.db.prisma.cession.findMany({
        where: {
            estado: { in: ['pendiente', 'enviada'] },
            nextRunAt: { lte: now },
            OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
        },
        select: { id: true },
        orderBy: { nextRunAt: 'asc' },
        take: limit,
    });
    return rows.map((r) => r.id);
}
