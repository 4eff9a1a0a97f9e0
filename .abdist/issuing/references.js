import { fromDbDate } from '../dte/calendar-date.js';
import { DTE_TYPES } from '../dte/model.js';
import { AppError, validationError } from '../errors.js';
import { ruleDetail } from '../rules.js';
import { documentContent } from './document-content.js';
import { LIVE_CESSION_STATES } from '../events/cession-view.js';
import { Prisma } from '../generated/prisma/client.js';
const isOwnDteType = (t) => DTE_TYPES.map(String).includes(t);
/** Checks references to documents of this issuer (throws a 400 naming the reference). */
export async function checkReferences(ctx, issuer, env, doc, reader = ctx.db.prisma) {
    const note = doc.type === 56 || doc.type === 61;
    const out = { voided: null, target: null, lockIds: [] };
    for (const [i, ref] of doc.refs.entries()) {
        // References to the electronic types Timbre issues must point at a document this issuer
        // really issued (in the same environment). Other reference types (paper documents 30…,
        // 801 orden de compra, 802 nota de pedido, SET, …) cannot be checked and are accepted.
        if (!isOwnDteType(ref.type) || !/^\d+$/.test(ref.folio))
            continue;
        const target = await reader.document.findUnique({
            where: {
                issuerId_type_folio_environment: {
                    issuerId: issuer.id,
                    type: Number(ref.type),
                    folio: Number(ref.folio),
                    environment: env,
                },
            },
        });
        if (!target) {
            throw new AppError('REFERENCE_NOT_FOUND', `refs[${i}]: this issuer has no ${env} document of type ${ref.type} with folio ${ref.folio}.`, {
                details: [ruleDetail(`refs[${i}].folio`, 'refs.not_found', { env, type: ref.type, folio: ref.folio })],
            });
        }
        if (!note || ref.code === undefined)
            continue;
        out.target = target;
        const name = `${ref.type}/${ref.folio}`;
        const referenced = { type: ref.type, folio: ref.folio };
        // A note modifies a document of the same receiver (the SII cross-checks the RUTRecep of both).
        if (target.receiverRut !== doc.receiver.rut) {
            throw validationError('receiver.rut', 'refs.receiver_mismatch', { ...referenced, rut: target.receiverRut });
        }
        // FchRef is the referenced document's FchEmis.
        const targetDate = fromDbDate(target.date);
        if (ref.date !== targetDate) {
            throw validationError(`refs[${i}].date`, 'refs.date_mismatch', { ...referenced, date: targetDate });
        }
        if (target.estadoSii === 'anulado') {
            throw validationError(`refs[${i}].folio`, 'refs.already_voided', referenced);
        }
        const t = doc.totals;
        const credits = doc.type === 61 && (ref.code === 1 || ref.code === 3);
        if (credits)
            await refuseCeded(reader, target, i);
        if (ref.code === 1 || credits)
            out.lockIds.push(target.id);
        const others = ref.code === 1 || credits ? await notesAgainst(ctx, reader, target) : [];
        if (ref.code === 1) {
            // A voiding note repeats the original totals (CodRef 1 "Anula Documento de Referencia").
            const same = Number(target.total) === t.total &&
                Number(target.net) === t.net &&
                Number(target.exempt) === t.exempt &&
                Number(target.vat) === t.vat;
            if (!same) {
                throw new AppError('TOTALS_MISMATCH', `A note that voids (CodRef 1) must repeat the original totals: document ${name} has total ${target.total} (net ${target.net}, exempt ${target.exempt}, VAT ${target.vat}); this note has total ${t.total} (net ${t.net}, exempt ${t.exempt}, VAT ${t.vat}).`, {
                    details: [
                        ruleDetail('items', 'refs.totals_mismatch', {
                            ...referenced,
                            total: Number(target.total),
                            net: Number(target.net),
                            exempt: Number(target.exempt),
                            vat: Number(target.vat),
                        }),
                    ],
                });
            }
            // One voiding note per document: in live a voiding note takes effect when the SII accepts
            // it, so until then the document is not `anulado` yet but is already being voided.
            const voiding = others.find((n) => n.code === 1);
            if (voiding) {
                throw validationError(`refs[${i}].folio`, 'refs.voiding_note_exists', {
                    ...referenced,
                    note_type: voiding.type,
                    note_folio: voiding.folio,
                    estado: voiding.estadoSii,
                });
            }
            out.voided = target;
        }
        if (credits) {
            // A credit note never credits more than what remains of the document after earlier ones;
            // a voiding one credits the whole total, so nothing may have been credited before it.
            const credited = others.filter((n) => n.type === 61).reduce((sum, n) => sum + n.total, 0);
            const remaining = Number(target.total) - credited;
            if (t.total > remaining) {
                const hint = ref.code === 1
                    ? ` A voiding note would credit the whole total again; credit the ${remaining} left with CodRef 3 instead.`
                    : '';
                throw new AppError('TOTALS_MISMATCH', `A credit note may credit at most what remains of ${name}: total ${target.total}, already credited ${credited}, remaining ${remaining}; this note credits ${t.total}.${hint}`, {
                    details: [ruleDetail('items', 'refs.credit_exceeds_remaining', { ...referenced, remaining })],
                });
            }
        }
    }
    return out;
}
/**
 * A credit note that voids (CodRef 1) or changes the amounts (CodRef 3) of a ceded factura
 * (README "Cesión"): the factura belongs to the cesionario, who collects it from the debtor;
 * the issuer may no longer reduce it. A cesión in flight counts: it may be registered any moment.
 */
async function refuseCeded(reader, target, i) {
    const cession = await reader.cession.findFirst({
        where: {
            issuerId: target.issuerId,
            documentId: target.id,
            estado: { in: [...LIVE_CESSION_STATES] },
        },
        select: { cesionarioRut: true, estado: true },
    });
    if (!cession)
        return;
    throw new AppError('DOCUMENT_CEDED', `refs[${i}]: document ${target.type}/${target.folio} is ceded to ${cession.cesionarioRut} (cesión ${cession.estado}): the factura belongs to the cesionario now and the debtor pays them; a credit note may not void it or reduce its amounts.`);
}
/**
 * The re-check inside the transaction that stores the note: locks the referenced documents
 * (in id order, so two notes naming the same documents never deadlock), then runs every rule
 * again on what is committed now. Throws like `checkReferences`; the caller's transaction then
 * rolls back and the reserved folio is released.
 */
export async function recheckReferences(ctx, tx, issuer, env, doc, early) {
    const ids = [...new Set(early.lockIds)].sort();
    if (ids.length === 0)
        return early;
    await tx.$queryRaw `SELECT id FROM documents WHERE id IN (${Prisma.join(ids.map((id) => Prisma.sql `${id}::uuid`))}) ORDER BY id FOR UPDATE`;
    return checkReferences(ctx, issuer, env, doc, tx);
}
/**
 * The notes (56, 61) of this issuer that void or correct the amounts of `target` and still
 * count: not voided, not rejected by the SII (pending and sent ones count, as the SII may
 * accept them).
 */
async function notesAgainst(ctx, reader, target) {
    const notes = await reader.document.findMany({
        where: {
            issuerId: target.issuerId,
            environment: target.environment,
            type: { in: [56, 61] },
            receiverRut: target.receiverRut,
            NOT: { estadoSii: { in: ['anulado', 'rechazado'] } },
        },
        select: {
            type: true,
            folio: true,
            total: true,
            estadoSii: true,
            issuerId: true,
            signedXml: true,
            ted: true,
            model: true,
            request: true,
        },
    });
    const out = [];
    for (const n of notes) {
        const refs = (await documentContent(ctx, n)).model.refs ?? [];
        const ref = refs.find((r) => r.type === String(target.type) && r.folio === String(target.folio) && (r.code === 1 || r.code === 3));
        if (ref) {
            out.push({
                type: n.type,
                folio: n.folio,
                total: Number(n.total),
                estadoSii: n.estadoSii,
                code: ref.code,
            });
        }
    }
    return out;
}
/**
 * A 61 may carry only `rut` and `name`; the giro, address, comuna and city come from the
 * referenced document of this issuer, and what the caller gave wins.
 */
export async function receiverFromTarget(ctx, receiver, target) {
    if (!target)
        return receiver;
    const from = (await documentContent(ctx, target)).model.receiver ?? { rut: target.receiverRut };
    const out = { ...receiver };
    for (const k of ['activity', 'address', 'comuna', 'city']) {
        if (out[k] === undefined && from[k] !== undefined)
            out[k] = from[k];
    }
    return out;
}
