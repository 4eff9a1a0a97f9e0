/**
 * The SII's checks on each document of a processed envelope, in the SII's own order, where an
 * early rejection masks the later ones (docs/sii-reference.md §7.7, from [SMOY]):
 *
 *   folio already received → CAF expired → TED (and the CAF inside it) → DTE signature
 *
 * followed by the references of notes (56/61) and the simulator's magic receiver rules
 * (magic.ts). Codes the sources document: DTE-3-101 (folio already received with other
 * content), DTE-3-100 (the same document again), CAF-3-517 (CAF expired), TED-3-640 (the
 * stamp does not match the document), TED-1-646 (FchEmis before the CAF's FA, a reparo),
 * DTE-3-505 (DTE signature), REF-3-750 (referenced document not received), REF-2-780 (an
 * annulment whose amount differs). The SII does not publish the others; the simulator's
 * choices are listed in README.md ("Document checks").
 */
import { verify } from 'node:crypto';
import { compareDates, isRealDate } from '../dte/calendar-date.js';
import { cafExpiresAt, cafPublicKey, verifyCafSignature } from '../dte/caf.js';
import { verifyDte } from '../dte/xmldsig.js';
import { magicReceiverError } from './magic.js';
/** Document types of electronic documents, which a note's reference must find received (REF-3-750). */
const ELECTRONIC_TYPES = new Set(['33', '34', '39', '41', '43', '46', '52', '56', '61', '110', '111', '112']);
const err = (section, level, code, description) => ({
    section,
    level,
    code,
    description,
});
/** DTE-3-101 / DTE-3-100: the folio is already taken by an accepted document. */
function checkFolioNotReceived(dte, ctx) {
    const earlier = ctx.registry.find(dte.issuerRut, dte.type, dte.folio);
    if (!earlier)
        return null;
    if (earlier.sha256 === dte.sha256)
        return err('DTE', 3, 100, 'DTE Repetido');
    return err('DTE', 3, 101, 'Folio para este Tipo de documento ya fue recibido en el SII');
}
/** CAF-3-517: types 33/43/46/56/61 may be stamped for 180 days after FA (docs/sii-reference.md §2). */
function checkCafNotExpired(dte, caf) {
    if (!caf || !isRealDate(caf.fa) || !isRealDate(dte.date))
        return null;
    const expiresAt = cafExpiresAt({ td: caf.td, fa: caf.fa });
    if (expiresAt && compareDates(dte.date, expiresAt) > 0)
        return err('CAF', 3, 517, 'CAF Vencido');
    return null;
}
/**
 * The TED and the CAF it carries (docs/sii-reference.md §2 use (1)-(2), §3): FRMA by a trusted key for its
 * IDK, CAF issued to this issuer for this type, folio in D..H, FRMT over the flattened DD in
 * ISO-8859-1 with RSAPK, DD fields equal to the document, FchEmis ≥ FA (a reparo).
 */
function checkTed(dte, ctx) {
    const ted = dte.ted;
    if (!ted)
        return [err('TED', 3, 500, 'Timbre Electronico no presente o ilegible')];
    const caf = ted.caf;
    if (!caf)
        return [err('TED', 3, 500, 'CAF del Timbre ilegible')];
    if (!verifyCafSignature(caf, ctx.trustedCafKeys)) {
        return [err('CAF', 3, 516, 'CAF no autorizado por el SII (firma FRMA invalida para el IDK)')];
    }
    if (caf.re !== dte.issuerRut || caf.td !== dte.type) {
        return [err('TED', 3, 530, 'CAF no corresponde al emisor o al tipo de documento')];
    }
    if (dte.folio < caf.from || dte.folio > caf.to)
        return [err('TED', 3, 531, 'Folio fuera del rango del CAF')];
    let signed = false;
    try {
        signed = verify('sha1', Buffer.from(ted.dd, 'latin1'), cafPublicKey(caf), Buffer.from(ted.frmt, 'base64'));
    }
    catch {
        signed = false;
    }
    if (!signed)
        return [err('TED', 3, 510, 'Firma del Timbre Electronico Incorrecta')];
    const mismatch = [
        ['RE', ted.re, dte.issuerRut],
        ['TD', ted.td, String(dte.type)],
        ['F', ted.f, String(dte.folio)],
        ['FE', ted.fe, dte.date],
        ['RR', ted.rr, dte.receiverRut],
        ['MNT', ted.mnt, dte.total],
    ].find(([, stamped, written]) => stamped !== written);
    if (mismatch?.[0] === 'MNT')
        return [err('TED', 3, 640, 'Monto Total No Corresponde al Timbre')];
    if (mismatch)
        return [err('TED', 3, 640, `Dato ${mismatch[0]} del Timbre no corresponde al documento`)];
    if (dte.date < caf.fa)
        return [err('TED', 1, 646, 'Fecha de Emision anterior a la autorizacion del CAF')];
    return [];
}
/** DTE-3-505: the DTE's own signature, verified standalone (docs/sii-reference.md §5.1). */
function checkSignature(dte) {
    const check = verifyDte(dte.text);
    if (check.valid && check.referenceUri === `#${dte.documentId}`)
        return null;
    return err('DTE', 3, 505, 'Firma DTE Incorrecta');
}
/** Notes (56/61) must reference documents the SII has (REF-3-750); an annulment repeats the amount (REF-2-780). */
function checkReferences(dte, ctx) {
    if (dte.type !== 56 && dte.type !== 61)
        return [];
    const errors = [];
    for (const ref of dte.refs) {
        if (ref.otherRut || !ELECTRONIC_TYPES.has(ref.type) || !/^\d+$/.test(ref.folio))
            continue;
        const target = ctx.registry.find(dte.issuerRut, Number(ref.type), Number(ref.folio));
        if (!target) {
            errors.push(err('REF', 3, 750, 'DTE Referenciado NO recibido en el SII'));
        }
        else {
            if (ref.code === 1 && target.total !== dte.total) {
                errors.push(err('REF', 2, 780, 'Anulacion presenta diferencia de monto con documento referenciado'));
            }
            // A note modifies a document of the same receiver, and FchRef is that document's FchEmis.
            if (target.receiverRut !== dte.receiverRut) {
                errors.push(err('REF', 2, 781, 'RUT Receptor distinto al del documento referenciado'));
            }
            if (ref.date && ref.date !== target.date) {
                errors.push(err('REF', 2, 782, 'Fecha de referencia no corresponde al documento referenciado'));
            }
        }
    }
    return errors;
}
function verdictOf(errors) {
    const worst = Math.max(0, ...errors.map((e) => e.level));
    return worst === 3 ? 'RCH' : worst === 2 ? 'RPR' : worst === 1 ? 'RLV' : 'ACEPTADO';
}
/** All checks of one document, stopping at the first rejection as the SII does. */
export function checkDocument(dte, ctx) {
    const errors = [];
    const stages = [
        () => [checkFolioNotReceived(dte, ctx)].filter((e) => e !== null),
        () => [checkCafNotExpired(dte, dte.ted?.caf ?? null)].filter((e) => e !== null),
        () => checkTed(dte, ctx),
        () => [checkSignature(dte)].filter((e) => e !== null),
        () => checkReferences(dte, ctx),
        () => [magicReceiverError(dte.receiverRut)].filter((e) => e !== null),
    ];
    for (const stage of stages) {
        errors.push(...stage());
        if (errors.some((e) => e.level === 3))
            break;
    }
    return { type: dte.type, folio: dte.folio, estado: verdictOf(errors), errors };
}
/** A document that could not even be read out of the envelope. */
export function unreadableDocument() {
    return { type: 0, folio: 0, estado: 'RCH', errors: [err('DTE', 3, 500, 'DTE ilegible')] };
}
