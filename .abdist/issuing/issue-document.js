import { computeDocument } from '../dte/totals.js';
import { AppError } from '../errors.js';
import { ruleDetail } from '../rules.js';
import { compareDates, fromDbDate } from '../dte/calendar-date.js';
import { dateOfInstantInSantiago, santiagoTimestamp } from '../dte/chile-time.js';
import { issueEmailState } from './email-queue.js';
import { checkFolioStock, folioThreshold, stockCheckDue, stockChecked } from './folio-alerts.js';
import { packContent } from './document-content.js';
import { documentInsert } from './document-insert.js';
import { voidReferencedDocuments } from './document-state.js';
import { fileUrls, totalsView } from '../events/document-view.js';
import { environmentOf } from '../admin/environment.js';
import { checkReferences, receiverFromTarget, recheckReferences } from './references.js';
import { ensureSandboxCaf, releaseReservation, reserveFolio } from './folios.js';
import { cafMaterialById, signingCertificate } from './key-material.js';
import { buildSubmissionEnvelope, submitNow } from './submissions.js';
import { commitTogether } from '../db/group-commit.js';
export function issuerInfo(issuer) {
    return {
        rut: issuer.rut,
        name: issuer.name,
        giro: issuer.giro,
        acteco: issuer.acteco,
        address: issuer.address,
        comuna: issuer.comuna,
        city: issuer.city,
        vatRate: issuer.vatRate,
        // Sandbox issuers need no SII resolution; the printed stamp then says "Res. 0" and dates it
        // the day the issuer was created, in Santiago (a date-only column is stored at UTC midnight).
        resolutionDate: issuer.resolutionDate
            ? fromDbDate(issuer.resolutionDate)
            : dateOfInstantInSantiago(issuer.createdAt),
        resolutionNumber: issuer.resolutionNumber ?? 0,
        ...(issuer.siiOffice && { siiOffice: issuer.siiOffice }),
    };
}
export async function issueDocument(ctx, issuer, req, opts = {}) {
    const env = environmentOf(issuer);
    const now = ctx.clock();
    const date = req.date ?? dateOfInstantInSantiago(now);
    const info = issuerInfo(issuer);
    // Totals and every request rule before anything is reserved (folio 0 is a placeholder).
    const computed = computeDocument(req, {
        issuer: info,
        folio: 0,
        date,
        ufClp: ctx.config.UF_CLP,
        ...(ctx.config.SII_SOFTWARE_PROVIDER_RUT && { softwareProviderRut: ctx.config.SII_SOFTWARE_PROVIDER_RUT }),
    });
    // Live: the certificate must be valid before a folio is taken (422 otherwise). Sandbox always
    // has one (its generated certificate when none was imported), and whether one was imported
    // comes with the folio reservation, a round trip fewer, unless the list is already in memory.
    const certificateNow = env === 'live' || ctx.caches.certificateList(issuer.id) !== undefined;
    const early = certificateNow ? (await signingCertificate(ctx, issuer, env === 'live')).cert : null;
    if (env === 'live')
        assertLiveConfigured(issuer);
    const references = await checkReferences(ctx, issuer, env, computed);
    const { target } = references;
    const draft = computed.type === 61
        ? { ...computed, receiver: await receiverFromTarget(ctx, computed.receiver, target) }
        : computed;
    if (env === 'sandbox')
        await ensureSandboxCaf(ctx, issuer, draft.type);
    const timestamp = santiagoTimestamp(now);
    // SII format rule 9: a CAF's expiry is judged against the real date, not the (possibly earlier) FchEmis
    // the caller sends, so a backdated document never consumes an expired CAF (CAF-3-517).
    const today = dateOfInstantInSantiago(now);
    const reservationInput = {
        issuerId: issuer.id,
        environment: env,
        type: draft.type,
        today: compareDates(date, today) > 0 ? date : today,
    };
    // A retry after a lost lease adds its folio and signing time to the same stages.
    const timings = { folio: 0, sign: 0, store: 0 };
    for (let attempt = 1;; attempt++) {
        let mark = performance.now();
        const reservation = await reserveFolio(ctx, reservationInput);
        timings.folio += performance.now() - mark;
        let stored;
        try {
            // Outside any transaction: stamping and signing run in parallel across requests.
            const doc = { ...draft, folio: reservation.folio };
            const cert = early ??
                (await signingCertificate(ctx, issuer, false, { hasImported: reservation.hasImportedCertificate })).cert;
            mark = performance.now();
            const built = await buildSigned(ctx, { doc, cafId: reservation.cafId, cert, env, timestamp });
            timings.sign += performance.now() - mark;
            mark = performance.now();
            const envelope = env === 'live' ? await buildSubmissionEnvelope(ctx, issuer, built.bytes, doc.type) : null;
            stored = await persistDocument(ctx, {
                issuer,
                env,
                date,
                req,
                doc,
                reservation,
                built,
                envelope,
                references,
                opts,
            });
            timings.store += performance.now() - mark;
        }
        catch (err) {
            // The folio goes back at once, whatever failed (the transaction rolled back).
            await releaseReservation(ctx, reservation).catch((e) => ctx.log.error({ err: e }, 'could not release a folio reservation; its lease will expire'));
            if (err instanceof LeaseLost && attempt < 3) {
                ctx.log.warn({ folio: reservation.folio, attempt }, 'folio reservation lost to another request; retrying');
                continue;
            }
            throw err;
        }
        ctx.jobs?.nudge();
        if (!stored.submissionId)
            return { document: stored.created, env, timings };
        const uploadStart = performance.now();
        const submitted = await submitAfterCommit(ctx, stored.created, stored.submissionId);
        return { ...submitted, timings: { ...timings, sii: performance.now() - uploadStart } };
    }
}
/**
 * The persist stage: confirm the reserved folio, insert the document with its signed bytes,
 * link the Idempotency-Key, queue the e-mail and the live submission, write the event — one SQL
 * statement (document-insert.ts), all of it or nothing, committed together with the documents
 * that are written at the same moment (src/db/group-commit.ts: one commit, one WAL flush for
 * them all; alone, it is one round trip and one implicit transaction). Two rarer
 * cases need more in the same transaction and run that statement inside a Prisma transaction:
 * a note whose rules depend on other notes (it locks the documents it references and checks
 * them again, references.ts; a sandbox voiding note also voids its reference there), and a
 * folio stock under the issuer's alert threshold that this process has not checked at that
 * level yet (folio-alerts.ts `stockCheckDue`). Either way all of it commits or none of it does.
 */
async function persistDocument(ctx, input) {
    const { issuer, env, date, doc, reservation } = input;
    const now = ctx.clock();
    const to = input.req.receiver?.email ? [input.req.receiver.email] : [];
    const packed = await packContent(ctx, {
        issuerId: issuer.id,
        cafId: reservation.cafId,
        content: { xml: input.built.bytes, ted: input.built.ted, model: doc, request: input.req },
    });
    const insert = documentInsert({
        config: ctx.config,
        issuer,
        env,
        date,
        req: input.req,
        doc,
        reservation,
        packed,
        envelope: input.envelope,
        idempotencyId: input.opts.idempotencyId ?? null,
        emailTo: to,
        emailState: issueEmailState(ctx, env),
        now,
    });
    const created = insert.document;
    const locks = input.references.lockIds.length > 0;
    const threshold = folioThreshold(issuer, doc.type, reservation.stock.lastRangeSize);
    const stockAt = { issuerId: issuer.id, env, type: doc.type };
    const stockCheck = stockCheckDue(ctx.db, stockAt, reservation.stock.available, threshold);
    if (!locks && !stockCheck) {
        // Documents written while another write commits share the next commit (src/db/group-commit.ts).
        const rowCount = await commitTogether(ctx.db.pool, ctx.db.statement('insert-document', insert.text, insert.call, insert.values));
        if (rowCount !== 1)
            throw new LeaseLost();
        return { created, submissionId: insert.submissionId };
    }
    const { stock } = await ctx.db.prisma.$transaction(async (tx) => {
        // The rules that depend on other notes, again, with the referenced documents locked.
        const references = await recheckReferences(ctx, tx, issuer, env, doc, input.references);
        const rows = await tx.$queryRawUnsafe(insert.text, ...insert.values);
        if (rows.length !== 1)
            throw new LeaseLost();
        // Sandbox: a voiding credit note voids at once (live waits for the SII's acceptance;
        // document-state.ts owns the rule and announces document.voided).
        if (references.voided && env === 'sandbox')
            await voidReferencedDocuments(ctx, tx, issuer.rut, created);
        return {
            stock: stockCheck ? await checkFolioStock(tx, { issuer, env, type: doc.type, today: date, now }) : null,
        };
    }, { timeout: 30_000, maxWait: 30_000 });
    // Committed: later issues at this stock or lower have nothing new to announce.
    if (stock !== null)
        stockChecked(ctx.db, stockAt, stock);
    return { created, submissionId: insert.submissionId };
}
/** This request kept its reserved folio longer than its lease and another request took it. */
class LeaseLost extends Error {
}
/**
 * TED, XML, XMLDSig and the last check of one document: the CPU-heavy stage, no transaction
 * open, run by `ctx.signer` in a worker thread (SIGN_WORKERS) so the event loop stays free.
 */
async function buildSigned(ctx, input) {
    const { doc, timestamp } = input;
    const material = await cafMaterialById(ctx, input.cafId);
    // SII format rule 9: FchEmis is never before the CAF's FA (TED-1-646), in sandbox as in live.
    if (doc.date < material.caf.fa) {
        throw new AppError('VALIDATION_FAILED', `date ${doc.date} is before the authorisation date of the CAF (${material.caf.fa}); the SII would object (TED-1-646).`, { details: [ruleDetail('date', 'date.before_caf', { caf_date: material.caf.fa })] });
    }
    // The bytes about to be stored were re-read by another XML parser (libxml2): XSD, XMLDSig and
    // TED must verify, or nothing is stored and the folio goes back (docs/design.md §7).
    const check = await ctx.signer.sign({ doc, timestamp }, { cert: input.cert, caf: material.caf, cafPrivateKey: material.privateKey });
    if (!check.ok) {
        ctx.log.error({ type: doc.type, folio: doc.folio, errors: check.errors.slice(0, 5) }, 'generated DTE does not verify');
        const code = check.errors.some((e) => /XMLDSig|TED/.test(e))
            ? 'DOCUMENT_NOT_VERIFIABLE'
            : 'DOCUMENT_SCHEMA_INVALID';
        throw new AppError(code, undefined, { cause: check.errors.join('; ') });
    }
    return { ted: check.ted, bytes: check.bytes };
}
/** The SII resolution goes in every envelope's Carátula (FchResol / NroResol, docs/sii-reference.md §6). */
function assertLiveConfigured(issuer) {
    if (!issuer.resolutionDate || issuer.resolutionNumber === null) {
        throw new AppError('ISSUER_NOT_CONFIGURED', `The issuer ${issuer.rut} has no SII resolution (date and number) configured; set it with \`issuer update --resolution-date YYYY-MM-DD --resolution-number N\` before issuing in live.`);
    }
}
/**
 * First submission attempt, right after the commit (never inside the transaction, docs/design.md §6).
 * A failure does not fail the request: the document is saved and the jobs retry it.
 */
async function submitAfterCommit(ctx, document, submissionId) {
    try {
        const step = await submitNow(ctx, submissionId);
        const current = step?.document ?? document;
        const warning = current.estadoSii === 'pendiente'
            ? `The document was saved with folio ${current.folio} but could not be sent to the SII yet: ${step?.failure ?? 'it is queued'}. Timbre retries automatically; follow estado_sii in the list or with emision_estado_dte.`
            : undefined;
        return { document: current, env: 'live', ...(warning && { warning }) };
    }
    catch (err) {
        // The submission stays due in its row: the jobs retry it (src/jobs.ts).
        ctx.log.error({ err, document: document.id }, 'first submission attempt failed');
        return {
            document,
            env: 'live',
            warning: `The document was saved with folio ${document.folio} but could not be sent to the SII yet. Timbre retries automatically.`,
        };
    }
}
/** The stored document behind an id (idempotent recovery). */
export async function documentById(ctx, id) {
    return ctx.db.prisma.document.findUniqueOrThrow({ where: { id } });
}
/** The `sii` block of live documents: raw SII state next to ours (docs/design.md §5). */
function siiBlock(d) {
    return { estado: d.siiCode, glosa: d.siiGlosa, track_id: d.trackId ?? '' };
}
/** The issue response of docs/api.md §2 plus the fields of docs/design.md §5. */
export function issueResponse(ctx, issuer, r) {
    const d = r.document;
    const live = r.env === 'live';
    return {
        ok: true,
        env: r.env,
        sii: live ? siiBlock(d) : null,
        ...(live && { track_id: d.trackId ?? '' }),
        ...(r.warning && { warning: r.warning }),
        type: d.type,
        folio: d.folio,
        date: fromDbDate(d.date),
        estado_sii: d.estadoSii,
        totals: totalsView(d),
        ...fileUrls(ctx.config, issuer.rut, d),
    };
}
