import { compareDates, fromDbDate, isRealDate, toDbDate } from '../dte/calendar-date.js';
import { santiagoTimestamp } from '../dte/chile-time.js';
import { normalizeRut } from '../dte/rut.js';
import { AppError, validationError } from '../errors.js';
import { signedXmlOf } from '../issuing/document-content.js';
import { notesOfDocument } from '../issuing/document-notes.js';
import { signingCertificate } from '../issuing/key-material.js';
import { consultarDocDteCedible } from '../sii/registro-reclamo.js';
import { SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.js';
import { AecInvalidError, buildAec } from './aec.js';
import { runCessionNow } from './cession-jobs.js';
import { cessionView, LIVE_CESSION_STATES } from '../events/cession-view.js';
/** Factura, factura exenta, factura de compra: what the RPETC takes from an issuer (FAEC IdDTE). */
export const CEDIBLE_TYPES = [33, 34, 46];
/** The types consultarDocDteCedible answers for (the claims registry's tipoDoc, less the 43). */
const REGISTRY_TYPES = [33, 34];
/**
 * consultarDocDteCedible's answers ([WSRR] 20–25), said for the issuer: 23 and 25 may be ceded.
 * 18 and 14 are the registry's own refusals (not received; not the issuer's document).
 */
const CEDIBLE_ANSWERS = {
    20: { cedible: false, reason: 'El SII indica que este tipo de documento no es cedible.' },
    21: {
        cedible: false,
        reason: 'La factura fue anulada por una nota de crédito del emisor dentro de los primeros 8 días: no es cedible.',
    },
    22: {
        cedible: false,
        reason: 'El receptor no ha acusado recibo de las mercaderías o servicios (ERM) y no han pasado 8 días desde la recepción en el SII: todavía no es cedible.',
    },
    23: { cedible: true, reason: 'DTE cedible, sin reclamos.' },
    24: { cedible: false, reason: 'El receptor reclamó la factura en el SII: no es cedible.' },
    25: { cedible: true, reason: 'DTE cedible: pasados 8 días se entiende dado el acuse de recibo.' },
    18: { cedible: false, reason: 'El SII no registra la recepción de este documento.' },
};
/** The Spanish reason the SII gives (or we give for its code) why a document is or is not cedible. */
function cedibleReason(code, descResp) {
    return CEDIBLE_ANSWERS[code] ?? { cedible: false, reason: `El SII respondió ${code}: ${descResp}` };
}
/** A document the RPETC would not take, with the reason in Spanish for the dashboard. */
export class DocumentNotCedible extends AppError {
    reason;
    constructor(message, reason) {
        super('DOCUMENT_NOT_CEDIBLE', message);
        this.reason = reason;
    }
}
function documentName(doc) {
    return `document ${doc.type} N° ${doc.folio}`;
}
function assertCedibleType(type) {
    if (!CEDIBLE_TYPES.includes(type)) {
        throw new DocumentNotCedible(`type: a ${type} cannot be ceded; only facturas (33), facturas exentas (34) and facturas de compra (46) are ceded at the SII's RPETC.`, 'Solo se ceden facturas (33), facturas exentas (34) y facturas de compra (46).');
    }
}
function assertLiveIssuer(issuer) {
    if (issuer.siiAmbiente === 0) {
        throw new AppError('SANDBOX_NOT_SUBMITTABLE', 'A cesión is registered at the SII (RPETC): sandbox documents were never sent to the SII, so they cannot be ceded. Cede live documents.');
    }
}
async function findDocument(ctx, issuer, type, folio) {
    const doc = await ctx.db.prisma.document.findFirst({
        where: { issuerId: issuer.id, type, folio, environment: 'live' },
    });
    if (!doc) {
        throw new AppError('DOCUMENT_NOT_FOUND', `No live document ${type} N° ${folio} was issued by ${issuer.rut}.`);
    }
    return doc;
}
/** Accepted by the SII and not voided: the registry cedes only what the SII holds as valid. */
function assertDocumentState(doc) {
    if (doc.estadoSii === 'anulado' || doc.voidedById) {
        throw new DocumentNotCedible(`${documentName(doc)} is voided by a credit note: there is nothing to cede.`, 'El documento está anulado por una nota de crédito: no hay nada que ceder.');
    }
    if (doc.estadoSii !== 'aceptado' && doc.estadoSii !== 'aceptado_con_reparos') {
        throw new DocumentNotCedible(`${documentName(doc)} is ${doc.estadoSii} at the SII: only documents the SII accepted can be ceded.`, 'Solo se pueden ceder documentos aceptados por el SII.');
    }
}
/** A voiding credit note on its way (issued, not rejected): the factura is about to be void. */
async function assertNoVoidingNote(ctx, doc) {
    const notes = await notesOfDocument(ctx, doc);
    const voiding = notes.find((n) => n.code === 1 && n.estadoSii !== 'rechazado' && n.estadoSii !== 'anulado');
    if (voiding) {
        throw new DocumentNotCedible(`${documentName(doc)} is being voided by credit note ${voiding.type} N° ${voiding.folio} (${voiding.estadoSii}): there is nothing to cede.`, `La nota de crédito Nº ${voiding.folio} anula este documento: no hay nada que ceder.`);
    }
}
/** The live cesión of a document (in flight or accepted), if any. */
async function liveCession(db, doc) {
    return db.cession.findFirst({
        where: { issuerId: doc.issuerId, documentId: doc.id, estado: { in: [...LIVE_CESSION_STATES] } },
    });
}
function refuseLive(doc, live) {
    if (live.estado === 'aceptada') {
        throw new AppError('DOCUMENT_CEDED', `${documentName(doc)} is already ceded to ${live.cesionarioRut} (cesión ${live.id}): it belongs to the cesionario now; only they can cede it again.`);
    }
    throw new AppError('CESSION_IN_PROGRESS', `A cesión of ${documentName(doc)} to ${live.cesionarioRut} is already on its way to the SII (cesión ${live.id}, ${live.estado}).`);
}
/** The registry's rules on the cesión's own data (ITEC p.5), each naming its field. */
function checkTerms(issuer, doc, input) {
    const total = Number(doc.total);
    const monto = input.monto ?? total;
    if (monto > total)
        throw validationError('monto', 'cession.monto_over_total', { total });
    if (!isRealDate(input.ultimo_vencimiento))
        throw validationError('ultimo_vencimiento', 'date.invalid');
    const fchEmis = fromDbDate(doc.date);
    if (compareDates(input.ultimo_vencimiento, fchEmis) < 0) {
        throw validationError('ultimo_vencimiento', 'cession.due_before_issue', { date: fchEmis });
    }
    const cesionarioRut = normalizeRut(input.cesionario.rut);
    if (!cesionarioRut)
        throw validationError('cesionario.rut', 'rut.invalid');
    if (cesionarioRut === issuer.rut)
        throw validationError('cesionario.rut', 'cession.cesionario_is_issuer');
    return { monto, ultimoVencimiento: input.ultimo_vencimiento, cesionarioRut };
}
/** The Cedente's eMail: given, else the issuer's intercambio mailbox when it is an address. */
async function cedenteEmailOf(ctx, issuer, input) {
    if (input.cedente_email)
        return input.cedente_email;
    const mailbox = await ctx.db.prisma.receivedMailbox.findUnique({
        where: { issuerId: issuer.id },
        select: { user: true },
    });
    if (mailbox && /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/.test(mailbox.user) && mailbox.user.length <= 80) {
        return mailbox.user;
    }
    throw validationError('cedente_email', 'cession.email_required');
}
/** consultarDocDteCedible: 23 and 25 pass; anything else is a 422 with the SII's reason in Spanish. */
async function assertCedibleAtSii(ctx, cert, issuer, doc) {
    if (!REGISTRY_TYPES.includes(doc.type))
        return;
    let answer;
    try {
        answer = await consultarDocDteCedible({ sii: ctx.sii, cert }, { rutEmisor: issuer.rut, tipoDoc: doc.type, folio: doc.folio });
    }
    catch (err) {
        if (err instanceof SiiUnavailableError || err instanceof SiiAuthError || err instanceof SiiProtocolError) {
            throw new AppError('SII_UNAVAILABLE', `The SII's claims registry could not say whether ${documentName(doc)} is cedible (${err.message}); nothing was stored. Try again later.`);
        }
        throw err;
    }
    const { cedible, reason } = cedibleReason(answer.codResp, answer.descResp);
    if (!cedible) {
        throw new DocumentNotCedible(`${documentName(doc)} is not cedible (consultarDocDteCedible ${answer.codResp}): ${reason}`, `${reason} (código ${answer.codResp} del SII)`);
    }
}
/** The signed AEC of a first cesión by the issuer; an AEC that fails its own checks is our bug (500). */
function signedAec(ctx, issuer, cert, dteXml, input, terms, cedenteEmail) {
    try {
        return buildAec({
            dteXml,
            seq: 1,
            cedente: {
                rut: issuer.rut,
                razonSocial: issuer.name.slice(0, 100),
                direccion: `${issuer.address}, ${issuer.comuna}`.slice(0, 80),
                email: cedenteEmail,
                autorizados: [{ rut: cert.holderRut ?? issuer.rut, nombre: cert.subjectName.slice(0, 100) }],
            },
            cesionario: {
                rut: terms.cesionarioRut,
                razonSocial: input.cesionario.razon_social,
                direccion: input.cesionario.direccion,
                email: input.cesionario.email,
            },
            monto: terms.monto,
            ultimoVencimiento: terms.ultimoVencimiento,
            ...(input.otras_condiciones && { otrasCondiciones: input.otras_condiciones }),
            ...(input.email_deudor && { emailDeudor: input.email_deudor }),
            signedAt: santiagoTimestamp(ctx.clock()),
        }, cert);
    }
    catch (err) {
        if (err instanceof AecInvalidError) {
            ctx.log.error({ issuer: issuer.rut, err }, 'generated AEC fails its own checks');
            throw new AppError('DOCUMENT_SCHEMA_INVALID', `The AEC failed its XSD or signature checks (a Timbre bug); nothing was stored or sent: ${err.message}`);
        }
        throw err;
    }
}
/** Stores the cesión `pendiente` under the document's row lock, after checking again that none is live. */
async function storeCession(ctx, doc, input, terms, cedenteEmail, aec) {
    try {
        return await ctx.db.prisma.$transaction(async (tx) => {
            await tx.$queryRaw `SELECT id FROM documents WHERE id = ${doc.id}::uuid FOR UPDATE`;
            const live = await liveCession(tx, doc);
            if (live)
                refuseLive(doc, live);
            return tx.cession.create({
                data: {
                    issuerId: doc.issuerId,
                    documentId: doc.id,
                    seq: 1,
                    cedenteEmail,
                    cesionarioRut: terms.cesionarioRut,
                    cesionarioRazonSocial: input.cesionario.razon_social,
                    cesionarioDireccion: input.cesionario.direccion,
                    cesionarioEmail: input.cesionario.email,
                    monto: BigInt(terms.monto),
                    ultimoVencimiento: toDbDate(terms.ultimoVencimiento),
                    otrasCondiciones: input.otras_condiciones ?? null,
                    emailDeudor: input.email_deudor ?? null,
                    aec: new Uint8Array(aec),
                    estado: 'pendiente',
                    nextRunAt: ctx.clock(),
                },
            });
        });
    }
    catch (err) {
        if (err.code === 'P2002') {
            throw new AppError('CESSION_IN_PROGRESS', `A cesión of ${documentName(doc)} was just stored by another request.`);
        }
        throw err;
    }
}
/**
 * Cedes an issued document: checks, consultarDocDteCedible, the signed AEC stored `pendiente`,
 * then its first upload at once. Returns the cesión as it stands after that attempt.
 */
export async function cedeDocument(ctx, issuer, input) {
    assertCedibleType(input.type);
    assertLiveIssuer(issuer);
    const doc = await findDocument(ctx, issuer, input.type, input.folio);
    assertDocumentState(doc);
    await assertNoVoidingNote(ctx, doc);
    const live = await liveCession(ctx.db.prisma, doc);
    if (live)
        refuseLive(doc, live);
    const terms = checkTerms(issuer, doc, input);
    const cedenteEmail = await cedenteEmailOf(ctx, issuer, input);
    const { cert } = await signingCertificate(ctx, issuer, true);
    await assertCedibleAtSii(ctx, cert, issuer, doc);
    const aec = signedAec(ctx, issuer, cert, await signedXmlOf(ctx, doc), input, terms, cedenteEmail);
    const stored = await storeCession(ctx, doc, input, terms, cedenteEmail, aec);
    await runCessionNow(ctx, stored.id);
    const current = await ctx.db.prisma.cession.findUniqueOrThrow({ where: { id: stored.id } });
    return cessionView(ctx.config, issuer.rut, current, doc);
}
