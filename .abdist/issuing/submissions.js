/**
 * Submitting live documents to the SII and following them to a final state (docs/design.md §6).
 *
 * Each live document gets a `submissions` row in the same transaction that stores it, with the
 * signed envelope (EnvioDTE / EnvioBOLETA) around its signed DTE. After the commit a step
 * function moves the row forward, one SII call at a time:
 *
 *   queued ──upload──▶ uploaded ──poll…──▶ done          (STATUS 0 or 99: track id)
 *     │  ▲                                 ▲
 *     │  └── SII unreachable: retry later  │ refused (STATUS 1,2,3,6,7,8) or final verdict
 *     └──▶ sending ──no answer──▶ ambiguous ──ask QueryEstDte──▶ (DOK …) done
 *                                            └─ not there (FAU): send the SAME bytes again
 *
 * The state is written before each upload ("sending"), so a process killed mid-upload leaves
 * a trace: whoever picks the row up next treats it as ambiguous and asks the SII before sending
 * again. Re-sending uses the very same envelope bytes, which the SII recognises (STATUS 99 with
 * the first track id) if the first upload did arrive: no document is ever uploaded twice as a
 * new submission. A lease column lets many instances share the work without two processing
 * the same row; the SII is never called inside a database transaction.
 */
import { createHash } from 'node:crypto';
import { fromDbDate } from '../dte/calendar-date.js';
import { buildEnvelope, envelopeKindOf, envelopeSchemaErrors } from '../dte/envelope.js';
import { AppError } from '../errors.js';
import { SiiAmbiguousError, SiiAuthError, SiiProtocolError, SiiUnavailableError, } from '../sii/types.js';
import { santiagoTimestamp } from '../dte/chile-time.js';
import { signedXmlOf } from './document-content.js';
import { transition } from './document-state.js';
import { signingCertificate } from './key-material.js';
import { documentStatusQuery, estadoOfDocument, FINAL_UPLOAD_REFUSALS, isNotReceived, verdictOfUpload, } from './sii-states.js';
/**
 * Document-status checks of a boleta after an ambiguous upload before it is sent again
 * (with SII_POLL_INTERVAL_MS doubling: 15 s … 8 min, ~16 min in all by default).
 */
const BOLETA_AMBIGUOUS_CHECKS = 6;
/** How long a worker owns a submission it is processing (longer than any SII call). */
const LEASE_MS = 3 * 60_000;
const MAX_BACKOFF_MS = 30 * 60_000;
export function backoff(base, attempt) {
    return Math.min(MAX_BACKOFF_MS, base * 2 ** Math.max(0, attempt - 1));
}
/** The Carátula data of an issuer; live issuers must have their SII resolution configured. */
export function caratulaOf(issuer, senderRut, timestamp) {
    return {
        issuerRut: issuer.rut,
        senderRut,
        resolutionDate: fromDbDate(issuer.resolutionDate) ?? '',
        resolutionNumber: issuer.resolutionNumber ?? 0,
        timestamp,
    };
}
/**
 * The signed envelope (EnvioDTE / EnvioBOLETA) of one signed DTE, built outside any transaction
 * and validated against its official XSD before anyone can store it: one that fails is our bug,
 * so it throws DOCUMENT_SCHEMA_INVALID (at issue: nothing is stored and the folio goes back; at
 * a resubmit: no submission is created).
 */
export async function buildSubmissionEnvelope(ctx, issuer, signedXml, type, at = ctx.clock()) {
    const { cert } = await signingCertificate(ctx, issuer, true);
    const kind = envelopeKindOf(type);
    const envelope = buildEnvelope(kind, [{ type, signedXml }], caratulaOf(issuer, cert.holderRut ?? '', santiagoTimestamp(at)), cert);
    const errors = envelopeSchemaErrors(kind, envelope);
    if (errors.length > 0) {
        ctx.log.error({ issuer: issuer.rut, type, errors: errors.slice(0, 5) }, 'generated envelope fails its XSD');
        throw new AppError('DOCUMENT_SCHEMA_INVALID', 'The envelope for the SII failed XSD validation (a Timbre bug); nothing was stored or sent.', { cause: errors.join('; ') });
    }
    return envelope;
}
/** Records an envelope as a queued submission, inside the caller's transaction. */
async function insertSubmission(tx, issuer, document, envelope) {
    return tx.submission.create({
        data: {
            issuerId: issuer.id,
            documentId: document.id,
            service: envelopeKindOf(document.type),
            envelope: new Uint8Array(envelope),
            envelopeSha256: createHash('sha256').update(envelope).digest('hex'),
            state: 'queued',
        },
    });
}
/** A new submission of a stored document (resubmit after an envelope-level rejection). */
export async function createSubmission(ctx, input) {
    const signedXml = await signedXmlOf(ctx, input.document);
    // The new envelope must not be byte-identical to an earlier one of this document: DTEUpload
    // would answer STATUS 99 with the old (rejected) track id instead of taking it. Its only
    // varying part is the signing timestamp, in whole seconds, so a resubmit within the same
    // second as the previous envelope is stamped a second later.
    const earlier = await ctx.db.prisma.submission.findMany({
        where: { documentId: input.document.id },
        select: { envelopeSha256: true },
    });
    const taken = new Set(earlier.map((e) => e.envelopeSha256));
    let at = ctx.clock();
    let envelope = await buildSubmissionEnvelope(ctx, input.issuer, signedXml, input.document.type, at);
    while (taken.has(createHash('sha256').update(envelope).digest('hex'))) {
        at = new Date(at.getTime() + 1000);
        envelope = await buildSubmissionEnvelope(ctx, input.issuer, signedXml, input.document.type, at);
    }
    return ctx.db.prisma.$transaction((tx) => insertSubmission(tx, input.issuer, input.document, envelope));
}
/**
 * Takes the lease of a submission that is due. A row found in `sending` whose lease expired
 * belonged to a process that died mid-upload: it becomes `ambiguous`.
 */
async function claim(ctx, id, force) {
    const now = ctx.clock();
    const rows = await ctx.db.prisma.$queryRaw `
    UPDATE submissions
       SET lease_until = ${new Date(now.getTime() + LEASE_MS)},
           state = CASE WHEN state = 'sending' THEN 'ambiguous'::"SubmissionState" ELSE state END,
           updated_at = ${now}
     WHERE id = ${id}::uuid
       AND state <> 'done'
       AND (lease_until IS NULL OR lease_until < ${now})
       AND (${force} OR next_run_at <= ${now})
     RETURNING id`;
    if (rows.length === 0)
        return null;
    return ctx.db.prisma.submission.findUniqueOrThrow({ where: { id } });
}
/**
 * Runs the next step of a submission if it is due (or `force`) and nobody else holds it.
 * Returns null when there was nothing to do.
 */
export async function runSubmission(ctx, id, opts = {}) {
    const submission = await claim(ctx, id, opts.force ?? false);
    if (!submission)
        return null;
    let outcome;
    try {
        outcome = await step(ctx, submission);
    }
    catch (err) {
        if (err instanceof LeaseLost) {
            ctx.log.warn({ submission: id }, 'submission lease lost before the upload; the new holder goes on');
            return null;
        }
        // Our own failure (e.g. the certificate cannot be read): keep the row, retry later.
        ctx.log.error({ err, submission: id }, 'submission step failed');
        outcome = {
            state: submission.state === 'sending' ? 'ambiguous' : submission.state,
            nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, submission.attempts + 1),
            submission: { lastError: err.message },
            failure: 'internal error while submitting',
        };
    }
    return save(ctx, submission, outcome);
}
/** This worker's lease on a submission ended and another worker took it over. */
class LeaseLost extends Error {
}
/**
 * Runs a submission's next step now (the issue call, a resubmit); the row says when the one
 * after is due, where the jobs find it (src/jobs.ts). Null when another worker holds it now.
 */
export async function submitNow(ctx, submissionId) {
    return runSubmission(ctx, submissionId, { force: true });
}
/**
 * Writes a step's outcome, only while this worker still holds the lease it claimed: a step that
 * outlived its lease (a slow SII) was taken over by another worker, whose view wins; this one's
 * outcome is dropped (null). The other worker found the row `sending` and asks the SII before
 * sending anything again, so nothing is lost.
 */
async function save(ctx, submission, o) {
    const now = ctx.clock();
    const nextRunAt = o.nextInMs === null ? null : new Date(now.getTime() + o.nextInMs);
    const issuerRut = await rutOfIssuer(ctx, submission.issuerId);
    const { estadoSii, siiCode, siiGlosa, ...extra } = o.document ?? {};
    return ctx.db.prisma.$transaction(async (tx) => {
        const held = await tx.submission.updateMany({
            where: { id: submission.id, leaseUntil: submission.leaseUntil },
            data: {
                state: o.state,
                leaseUntil: null,
                nextRunAt: nextRunAt ?? now,
                ...o.submission,
            },
        });
        if (held.count === 0) {
            ctx.log.warn({ submission: submission.id, state: o.state }, 'submission lease lost during the step; its outcome is left to the new holder');
            return null;
        }
        const updated = await tx.submission.findUniqueOrThrow({ where: { id: submission.id } });
        // The document's state is owned by document-state.ts, which also announces the change.
        const document = await transition(ctx, tx, submission.documentId, issuerRut, {
            ...(estadoSii && { to: estadoSii }),
            reason: `submission ${submission.id}: ${o.state}${o.failure ? ` (${o.failure})` : ''}`,
            ...(siiCode !== undefined && { siiCode }),
            ...(siiGlosa !== undefined && { siiGlosa }),
            extra: {
                ...extra,
                siiCheckedAt: now,
                ...(o.failure !== undefined && { lastSubmitError: o.failure }),
            },
        });
        return { submission: updated, document, nextRunAt, failure: o.failure ?? null };
    });
}
/** The RUT of an issuer by id (cached for the process: a RUT never changes). */
async function rutOfIssuer(ctx, issuerId) {
    const cached = ctx.caches.issuerRuts.get(issuerId);
    if (cached)
        return cached;
    const { rut } = await ctx.db.prisma.issuer.findUniqueOrThrow({ where: { id: issuerId }, select: { rut: true } });
    ctx.caches.issuerRuts.set(issuerId, rut);
    return rut;
}
async function step(ctx, s) {
    if (s.state === 'done' || s.state === 'sending')
        return { state: s.state, nextInMs: null };
    // Read once per step; every branch below works from it.
    const sc = await loadContext(ctx, s);
    switch (s.state) {
        case 'queued':
            return upload(ctx, s, sc);
        case 'ambiguous':
            return resolveAmbiguous(ctx, s, sc);
        case 'uploaded':
            return poll(ctx, s, sc);
    }
}
async function loadContext(ctx, s) {
    const document = await ctx.db.prisma.document.findUniqueOrThrow({ where: { id: s.documentId } });
    const issuer = await ctx.db.prisma.issuer.findUniqueOrThrow({ where: { id: s.issuerId } });
    const { cert } = await signingCertificate(ctx, issuer, true);
    return { document, issuer, cert, service: s.service };
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
/**
 * Checked again right before every upload, on the stored bytes (an envelope stored before this
 * check existed, or damaged since): one that fails its XSD is never uploaded. It stays queued,
 * retried at the longest backoff, with the reason on the submission and the document
 * (`last_submit_error`) for an operator: it is our bug, and the SII would only refuse it.
 */
function invalidEnvelope(ctx, s) {
    const errors = envelopeSchemaErrors(s.service, s.envelope);
    if (errors.length === 0)
        return null;
    ctx.log.error({ submission: s.id, errors: errors.slice(0, 5) }, 'stored envelope fails its XSD; not uploaded');
    const failure = `the envelope fails XSD validation (a Timbre bug), not uploaded: ${errors.slice(0, 3).join('; ')}`;
    return { state: 'queued', nextInMs: MAX_BACKOFF_MS, submission: { lastError: failure }, failure };
}
async function upload(ctx, s, sc) {
    const { document, issuer, cert, service } = sc;
    const invalid = invalidEnvelope(ctx, s);
    if (invalid)
        return invalid;
    // Recorded before the call: a crash during the upload must leave a trace (see header). Only
    // while this worker holds the lease: one that lost it never uploads.
    await ctx.db.prisma.$transaction(async (tx) => {
        const held = await tx.submission.updateMany({
            where: { id: s.id, leaseUntil: s.leaseUntil },
            data: { state: 'sending', attempts: { increment: 1 } },
        });
        if (held.count === 0)
            throw new LeaseLost();
        await tx.document.update({ where: { id: document.id }, data: { submitAttempts: { increment: 1 } } });
    });
    const attempt = s.attempts + 1;
    let result;
    try {
        result = await ctx.sii.upload({
            service,
            cert,
            issuerRut: issuer.rut,
            envelope: Buffer.from(s.envelope),
            filename: `EnvioDTE_${issuer.rut}_T${document.type}_F${document.folio}.xml`,
        });
    }
    catch (err) {
        const failure = describe(err);
        ctx.log.warn({ submission: s.id, attempt, reason: failure }, 'SII upload failed');
        if (err instanceof SiiAmbiguousError) {
            return {
                state: 'ambiguous',
                nextInMs: ctx.config.SII_RETRY_BASE_MS,
                submission: { lastError: failure },
                failure,
            };
        }
        return {
            state: 'queued',
            nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, attempt),
            submission: { lastError: failure },
            failure,
        };
    }
    return uploadAnswer(ctx, result, attempt);
}
function uploadAnswer(ctx, result, attempt) {
    const detail = result.detail.join('; ');
    if ((result.status === 0 || result.status === 99) && result.trackId) {
        const glosa = result.status === 99 ? `Archivo ya recibido (track id ${result.trackId})` : 'Envío recibido';
        return {
            state: 'uploaded',
            nextInMs: ctx.config.SII_POLL_INTERVAL_MS,
            submission: { trackId: result.trackId, uploadStatus: result.status, polls: 0, lastError: null },
            document: {
                estadoSii: 'enviado',
                siiCode: result.status === 99 ? 'STATUS 99' : 'REC',
                siiGlosa: glosa,
                trackId: result.trackId,
                submittedAt: ctx.clock(),
                lastSubmitError: null,
            },
        };
    }
    const refusal = FINAL_UPLOAD_REFUSALS[result.status];
    if (refusal) {
        return {
            state: 'done',
            nextInMs: null,
            submission: { uploadStatus: result.status, lastError: detail || refusal },
            document: {
                estadoSii: 'rechazado',
                siiCode: `STATUS ${result.status}`,
                siiGlosa: detail ? `${refusal}: ${detail}` : refusal,
            },
        };
    }
    // 5 (token), 9 (system blocked), anything else: try again later.
    const failure = `the SII did not accept the upload (STATUS ${result.status}${detail ? `: ${detail}` : ''})`;
    return {
        state: 'queued',
        nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, attempt),
        submission: { uploadStatus: result.status, lastError: failure },
        failure,
    };
}
function documentStatusOf(ctx, { document, issuer, cert }) {
    return ctx.sii.documentStatus(documentStatusQuery(document, issuer.rut, cert));
}
/** The upload may have arrived: ask the SII about the document before sending anything. */
async function resolveAmbiguous(ctx, s, sc) {
    let status;
    try {
        status = await documentStatusOf(ctx, sc);
    }
    catch (err) {
        const failure = describe(err);
        return {
            state: 'ambiguous',
            nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, s.attempts),
            submission: { lastError: failure },
            failure,
        };
    }
    const estado = estadoOfDocument(status);
    if (estado) {
        const trackId = s.trackId ?? (await trackIdOfReceivedUpload(ctx, s, sc));
        return {
            state: 'done',
            nextInMs: null,
            ...(trackId && { submission: { trackId } }),
            document: {
                estadoSii: estado,
                siiCode: status.estado,
                siiGlosa: status.glosa,
                lastSubmitError: null,
                ...(trackId && { trackId }),
            },
        };
    }
    if (!isNotReceived(status)) {
        return {
            state: 'ambiguous',
            nextInMs: backoff(ctx.config.SII_RETRY_BASE_MS, s.attempts),
            submission: { lastError: `document status ${status.estado}: ${status.glosa}` },
        };
    }
    // Boletas: the REST upload has no "already received" answer (an identical file comes back
    // as a new envío that ends in RPT), and a received boleta is unknown to the estado query
    // until processed. So first give the SII time to process what it may have received.
    if (s.service === 'boleta' && s.polls < BOLETA_AMBIGUOUS_CHECKS) {
        const polls = s.polls + 1;
        return {
            state: 'ambiguous',
            nextInMs: backoff(ctx.config.SII_POLL_INTERVAL_MS, polls),
            submission: { polls, lastError: 'the SII has not reported the document yet' },
        };
    }
    // Not known to the SII as a processed document: send the same bytes again. If the first
    // upload did arrive, DTEUpload answers STATUS 99 with its track id.
    return upload(ctx, { ...s, state: 'queued' }, sc);
}
/** DTEUpload answers an identical file with STATUS 99 and the first track id for 900 s. */
const SII_REPEAT_WINDOW_MS = 900_000;
/**
 * The track id of an upload whose answer never came back, once QueryEstDte says the SII has
 * the document (QueryEstDte answers no track id). Without it a user sees an accepted live
 * document with no track id. DTEUpload recognises the very same bytes within 900 s (STATUS 99
 * with the first track id, see the header): sending them once more is the only way to learn it,
 * and nothing new is submitted. Outside that window, or for boletas (the REST upload has no
 * "already received" answer: the same file becomes a new envío), nothing is sent and the track
 * id stays unknown. Any failure here is only logged: the document's state is already known.
 */
async function trackIdOfReceivedUpload(ctx, s, sc) {
    if (s.service !== 'dte' || ctx.clock().getTime() - s.createdAt.getTime() >= SII_REPEAT_WINDOW_MS)
        return null;
    try {
        const result = await ctx.sii.upload({
            service: sc.service,
            cert: sc.cert,
            issuerRut: sc.issuer.rut,
            envelope: Buffer.from(s.envelope),
            filename: `EnvioDTE_${sc.issuer.rut}_T${sc.document.type}_F${sc.document.folio}.xml`,
        });
        return result.status === 99 ? result.trackId : null;
    }
    catch (err) {
        ctx.log.warn({ submission: s.id, reason: describe(err) }, 'could not learn the track id of a received upload');
        return null;
    }
}
async function poll(ctx, s, sc) {
    const { document, issuer, cert, service } = sc;
    const polls = s.polls + 1;
    await ctx.db.prisma.submission.update({ where: { id: s.id }, data: { polls } });
    let status;
    try {
        status = await ctx.sii.uploadStatus({ service, cert, issuerRut: issuer.rut, trackId: s.trackId ?? '' });
    }
    catch (err) {
        return {
            state: 'uploaded',
            nextInMs: backoff(ctx.config.SII_POLL_INTERVAL_MS, polls),
            submission: { lastError: describe(err) },
        };
    }
    const verdict = verdictOfUpload(status, document);
    if (verdict.kind === 'processing') {
        return {
            state: 'uploaded',
            nextInMs: backoff(ctx.config.SII_POLL_INTERVAL_MS, polls),
            document: { siiCode: status.estado, siiGlosa: status.glosa },
        };
    }
    let estado;
    let glosa;
    let raw = status.estado;
    if (verdict.kind === 'final') {
        estado = verdict.estado;
        glosa = verdict.glosa;
    }
    else {
        const doc = await documentStatusOf(ctx, sc);
        const known = estadoOfDocument(doc);
        if (!known) {
            return {
                state: 'uploaded',
                nextInMs: backoff(ctx.config.SII_POLL_INTERVAL_MS, polls),
                document: { siiCode: doc.estado, siiGlosa: doc.glosa },
            };
        }
        estado = known;
        glosa = doc.glosa;
        raw = doc.estado;
    }
    return {
        state: 'done',
        nextInMs: null,
        submission: { lastError: null },
        document: { estadoSii: estado, siiCode: raw, siiGlosa: glosa, lastSubmitError: null },
    };
}
/**
 * How long a submission nobody has tried yet belongs to the call that stored it (an issue, a
 * resubmit), which runs its first step itself right after its commit. A job worker that took it
 * in between (a poll landing between that commit and that call's claim, which a loaded machine
 * or another instance makes likely enough) would upload it while the call answered `pendiente`,
 * "queued", about a document on its way. A row whose storing process died is taken after it.
 */
export const FIRST_STEP_GRACE_MS = 5_000;
/** Submissions that are due and not held by anyone: what the jobs' poll takes up (src/jobs.ts). */
export async function dueSubmissions(ctx, limit = 100) {
    const now = ctx.clock();
    return ctx.db.prisma.submission.findMany({
        where: {
            // The open states one by one: each is a range of the (state, next_run_at) index.
            state: { in: ['queued', 'sending', 'ambiguous', 'uploaded'] },
            nextRunAt: { lte: now },
            OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
            NOT: { state: 'queued', attempts: 0, createdAt: { gt: new Date(now.getTime() - FIRST_STEP_GRACE_MS) } },
        },
        select: { id: true, nextRunAt: true },
        orderBy: { nextRunAt: 'asc' },
        take: limit,
    });
}
