/**
 * Receiving a supplier's file (README "Received documents"): run the receiver's checks
 * (checks.ts), record the envelope byte-exact with every result, store the DTEs that passed,
 * answer with a signed RespuestaDTE (respuesta.ts) and record the events
 * (`received.document` per stored DTE, `received.refused` per refused envelope or DTE), all
 * in one transaction: a refusal is recorded with its reason, never half-stored.
 *
 * One issuer's receptions are recorded one at a time (a transaction-scoped advisory lock), and
 * the duplicate lookups are asked again under it, so two uploads of the same file or of the
 * same document cannot both pass the duplicate checks; the unique index on (issuer, emisor,
 * type, folio) is the net under it.
 */
import { calendarDate, toDbDate } from '../dte/calendar-date.js';
import { createHash } from 'node:crypto';
import { trustedCafKeys } from '../admin/cafs.js';
import { santiagoTimestamp } from '../dte/chile-time.js';
import { AppError } from '../errors.js';
import { searchable } from '../events/document-view.js';
import { recordEvent } from '../events/record.js';
import { signingCertificate } from '../issuing/key-material.js';
import { receiveChecker } from './check-pool.js';
import { ESTADO_RECEP_DTE, ESTADO_RECEP_ENV } from './codes.js';
import { answerAddress, answersByEmail, queueAnswerEmail } from './answer-email.js';
import { initialClock } from './reception-clock.js';
import { buildRespuesta } from './respuesta.js';
import { receivedDocumentView, respuestaUrl } from './views.js';
/** NmbEnvio: a plain file name (≤ 80, no path, no control characters). */
function cleanFileName(name, sha256) {
    const base = (name ?? '').split(/[\\/]/).pop() ?? '';
    const clean = base
        .replace(/[^\w.\- ]/g, '_')
        .trim()
        .slice(-80);
    return clean || `envio-${sha256.slice(0, 16)}.xml`;
}
function documentsJson(outcome) {
    return outcome.documents.map((d) => ({
        index: d.index,
        type: d.dte?.type ?? null,
        folio: d.dte?.folio ?? null,
        emisor_rut: d.dte?.issuerRut ?? null,
        estado_recep_dte: d.estado,
        glosa: d.glosa,
        reason: d.reason,
        checks: d.checks,
    }));
}
/** The glosa written in the answer: the code's, with the reason when the code is "Otros". */
const answerGlosa = (glosa, estado, reason) => estado === 99 && reason ? `${glosa}: ${reason}` : glosa;
export async function receiveEnvelope(ctx, issuer, input) {
    const now = ctx.clock();
    // The certificate is read (or, in sandbox, generated) before the transaction, which it
    // would otherwise wait on; without one the file is still received and the answer's absence
    // recorded.
    let cert = null;
    let certError = null;
    try {
        cert = (await signingCertificate(ctx, issuer, issuer.siiAmbiente !== 0)).cert;
    }
    catch (e) {
        if (!(e instanceof AppError))
            throw e;
        certError = e.message;
    }
    const keys = trustedCafKeys(ctx.config.TIMBRE_EXTRA_CAF_KEYS);
    // The checks (parsing, XSD, signatures: tens of milliseconds per DTE) run before the
    // transaction, so no connection or lock is held meanwhile; under the lock, the duplicate
    // lookups are asked again, and only when another reception got there first are the checks
    // run again inside it (rare: the same file or DTE uploaded twice at once).
    const lookups = (db) => ({
        seenFile: async (sha256) => (await db.receivedEnvelope.findFirst({ where: { issuerId: issuer.id, sha256 }, select: { id: true } })) !== null,
        seenDocument: async (emisorRut, type, folio) => (await db.receivedDocument.findUnique({
            where: { issuerId_emisorRut_type_folio: { issuerId: issuer.id, emisorRut, type, folio: BigInt(folio) } },
            select: { id: true },
        })) !== null,
    });
    const checkContext = (db) => ({
        receiverRut: issuer.rut,
        trustedCafKeys: keys,
        ...lookups(db),
    });
    const checker = receiveChecker(ctx.config);
    const first = await checker.check(input.bytes, checkContext(ctx.db.prisma));
    const { envelope, stored } = await ctx.db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw `SELECT pg_advisory_xact_lock(hashtextextended(${`received:${issuer.id}`}, 0))`;
        const outcome = (await stillUnseen(first, lookups(tx)))
            ? first
            : await checker.check(input.bytes, checkContext(tx));
        const fileName = cleanFileName(input.fileName, outcome.sha256);
        let envelope = await tx.receivedEnvelope.create({
            data: {
                issuerId: issuer.id,
                kind: outcome.kind,
                source: input.source,
                fileName,
                xml: new Uint8Array(input.bytes),
                sha256: outcome.sha256,
                senderRut: outcome.caratula?.rutEnvia ?? null,
                emisorRut: outcome.caratula?.rutEmisor ?? null,
                receptorRut: outcome.caratula?.rutReceptor ?? null,
                setId: outcome.setId,
                estadoRecepEnv: outcome.estado,
                glosa: outcome.glosa,
                reason: outcome.reason,
                checks: outcome.checks,
                documents: documentsJson(outcome),
                createdAt: now,
            },
        });
        const stored = [];
        for (const d of outcome.documents) {
            if (d.estado !== ESTADO_RECEP_DTE.OK || !d.dte)
                continue;
            stored.push(await storeDocument(tx, issuer, envelope, d, now));
        }
        const respuesta = answer(outcome, envelope, issuer, cert, certError, now);
        if (respuesta.xml || respuesta.error) {
            envelope = await tx.receivedEnvelope.update({
                where: { id: envelope.id },
                data: {
                    respuestaXml: respuesta.xml ? new Uint8Array(respuesta.xml) : null,
                    respuestaError: respuesta.error,
                },
            });
        }
        if (envelope.respuestaXml && (await answersByEmail(tx, issuer))) {
            const to = answerAddress([input.replyAddress, ...outcome.documents.map((d) => d.dte?.issuerEmail)]);
            if (to)
                await queueAnswerEmail(ctx, tx, issuer, envelope, to, now);
        }
        await input.alongside?.(tx, envelope);
        await recordEvents(ctx, tx, issuer, envelope, outcome, stored, now);
        return { envelope, stored };
    }, { timeout: 60_000 });
    ctx.jobs?.nudge();
    return receptionView(ctx, issuer, envelope, stored);
}
/** True when no reception recorded since the checks ran makes this file or a DTE it passed a duplicate. */
async function stillUnseen(outcome, seen) {
    const fileChecked = outcome.checks.some((c) => c.check === 'repeated_file' && c.ok);
    if (fileChecked && (await seen.seenFile(outcome.sha256)))
        return false;
    for (const d of outcome.documents) {
        if (d.estado === ESTADO_RECEP_DTE.OK &&
            d.dte &&
            (await seen.seenDocument(d.dte.issuerRut, d.dte.type, d.dte.folio))) {
            return false;
        }
    }
    return true;
}
async function storeDocument(tx, issuer, envelope, d, now) {
    const dte = d.dte;
    return tx.receivedDocument.create({
        data: {
            issuerId: issuer.id,
            envelopeId: envelope.id,
            emisorRut: dte.issuerRut,
            emisorName: dte.issuerName,
            type: dte.type,
            folio: BigInt(dte.folio),
            date: toDbDate(calendarDate(dte.date)),
            net: BigInt(dte.net),
            exempt: BigInt(dte.exempt),
            vat: BigInt(dte.vat),
            total: BigInt(dte.total),
            xml: new Uint8Array(d.bytes),
            sha256: createHash('sha256').update(d.bytes).digest('hex'),
            model: {
                receiver: { rut: dte.receiverRut, name: dte.receiverName },
                lines: dte.lines,
                refs: dte.refs,
                ted: dte.ted?.caf ? { idk: dte.ted.caf.idk, caf_from: dte.ted.caf.from, caf_to: dte.ted.caf.to } : null,
            },
            checks: d.checks,
            searchText: searchable(`${dte.issuerRut} ${dte.issuerName}`),
            createdAt: now,
            ...initialClock(issuer, dte.type, now),
        },
    });
}
/** The signed RespuestaDTE, when the envelope says whom to answer and a certificate signs it. */
function answer(outcome, envelope, issuer, cert, certError, now) {
    if (outcome.kind !== 'EnvioDTE' || !outcome.setId || !outcome.caratula) {
        return {
            xml: null,
            error: outcome.kind === 'DTE'
                ? 'Un DTE suelto no lleva sobre (SetDTE): no hay RecepcionEnvio que responder.'
                : 'El archivo no permite saber a quién responder (sin Carátula o SetDTE legible).',
        };
    }
    if (!cert)
        return { xml: null, error: `Sin certificado para firmar la respuesta: ${certError}` };
    const timestamp = santiagoTimestamp(now);
    try {
        const xml = buildRespuesta({
            responderRut: issuer.rut,
            recipientRut: outcome.caratula.rutEmisor,
            number: Number(envelope.number),
            fileName: envelope.fileName,
            receivedAt: timestamp,
            signedAt: timestamp,
            setId: outcome.setId,
            digest: outcome.digest,
            caratulaIssuerRut: outcome.caratula.rutEmisor,
            caratulaReceiverRut: outcome.caratula.rutReceptor,
            estado: outcome.estado,
            glosa: answerGlosa(outcome.glosa, outcome.estado, outcome.reason),
            dteCount: outcome.documents.length,
            documents: outcome.documents
                .filter((d) => d.dte)
                .map((d) => ({
                type: d.dte.type,
                folio: d.dte.folio,
                date: d.dte.date,
                issuerRut: d.dte.issuerRut,
                receiverRut: d.dte.receiverRut,
                total: d.dte.total,
                estado: d.estado,
                glosa: answerGlosa(d.glosa, d.estado, d.reason),
            })),
        }, cert);
        return { xml, error: null };
    }
    catch (e) {
        // A RUT the schema's RUTType refuses (the Carátula's, unchecked when the signature failed)
        // leaves the envelope recorded and unanswered.
        return { xml: null, error: `No se pudo escribir la respuesta: ${e.message.slice(0, 300)}` };
    }
}
async function recordEvents(ctx, tx, issuer, envelope, outcome, stored, now) {
    const base = { envelope: Number(envelope.number), file_name: envelope.fileName };
    if (outcome.estado !== ESTADO_RECEP_ENV.OK) {
        await recordEvent(tx, {
            issuerId: issuer.id,
            type: 'received.refused',
            data: { ...base, estado_recep_env: outcome.estado, glosa: outcome.glosa, reason: outcome.reason },
        }, now);
        return;
    }
    for (const d of outcome.documents) {
        if (d.estado === ESTADO_RECEP_DTE.OK)
            continue;
        await recordEvent(tx, {
            issuerId: issuer.id,
            type: 'received.refused',
            data: {
                ...base,
                estado_recep_env: outcome.estado,
                type: d.dte?.type ?? null,
                folio: d.dte?.folio ?? null,
                emisor_rut: d.dte?.issuerRut ?? null,
                estado_recep_dte: d.estado,
                glosa: d.glosa,
                reason: d.reason,
            },
        }, now);
    }
    for (const doc of stored) {
        await recordEvent(tx, { issuerId: issuer.id, type: 'received.document', data: { ...receivedDocumentView(ctx, issuer, doc, envelope) } }, now);
    }
}
export function receptionView(ctx, issuer, envelope, stored) {
    return {
        number: Number(envelope.number),
        file_name: envelope.fileName,
        kind: envelope.kind,
        sha256: envelope.sha256,
        accepted: envelope.estadoRecepEnv === ESTADO_RECEP_ENV.OK && stored.length > 0,
        estado_recep_env: envelope.estadoRecepEnv,
        glosa: envelope.glosa,
        reason: envelope.reason,
        checks: envelope.checks,
        documents: envelope.documents,
        received: stored.map((d) => receivedDocumentView(ctx, issuer, d, envelope)),
        respuesta_url: envelope.respuestaXml ? respuestaUrl(ctx, issuer, envelope.number) : null,
        respuesta_error: envelope.respuestaError,
        created_at: envelope.createdAt.toISOString(),
    };
}
