/**
 * The registry's (RPETC) content checks on an uploaded AEC, in the order its states walk
 * (ws_rpetc_consulta v1.2 ESTADO_ENVIO: RSC → SOK → RFS → FSO → RCR → COK → VDC → RDC → VCS →
 * RCS → EOK): the first failing stage decides the verdict, the later ones are not looked at.
 *
 *   RSC  the schema (AEC_v10.xsd)
 *   RFS  the AEC's own signature
 *   RCR  the Carátula against the last Cesion (its cedente and cesionario)
 *   RDC  the DTECedido: its signature, the DTE's own, the DTE being the one the SII accepted
 *        (the SHA-256 of its text, as RegisteredDocument.sha256), each IdDTE equal to the DTE
 *   RCS  the Cesiones, per the Instructivo Técnico's validations (ITEC p.5): SeqCesion 1..n
 *        with n following the cesiones noted in the Registry, the earlier ones as noted there;
 *        the new (last) one: its signatures and their holders among the RUTAutorizado, the
 *        cedente (the issuer for the first, the previous cesionario after), valid RUTs,
 *        MontoCesion ≤ MntTotal, UltimoVencimiento ≥ FchEmis, TmstCesion not after today, a
 *        DeclaracionJurada or a Recibo (a DeclaracionJurada when an earlier cesión had one);
 *        last, the document cedible (consultarDocDteCedible: not 20, 21 or 24).
 *
 * Signatures are checked leniently, as readAec does (in place, then cut out): the real
 * registry accepts AECs whose inner parts were signed as documents of their own.
 * Glosas are in Spanish, as the SII writes them; the detail after the colon is the simulator's.
 */
import { createHash } from 'node:crypto';
import { AecReadError, readAec } from '../cession/aec-read.js';
import { isValidRut, normalizeRut } from '../dte/rut.js';
import { validateXml } from '../dte/xsd.js';
/** The ESTADO_ENVIO descriptions of ws_rpetc_consulta v1.2. */
const DESC = {
    RSC: 'Rechazado por Error en Schema',
    RFS: 'Rechazado por Firma de Sobre',
    RCR: 'Error en Carátula',
    RDC: 'Documento Invalido',
    RCS: 'Cesión Invalida',
    EOK: 'Envío Aceptado',
};
/** consultarDocDteCedible codes that forbid a cesión (registro-reclamo.ts CODES). */
const NOT_CEDIBLE = {
    20: 'tipo de documento no es cedible',
    21: 'DTE no cedible, referenciado por NC de anulación dentro de los 8 días',
    24: 'DTE no cedible, reclamado por el receptor',
};
const reject = (estado, detail) => ({ estado, glosa: `${DESC[estado]}: ${detail}` });
const sameRut = (a, b) => (normalizeRut(a) ?? a) === (normalizeRut(b) ?? b);
const rut = (r) => normalizeRut(r) ?? r;
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
/** The registry's verdict on an uploaded AEC; `today` is the date in Chile, YYYY-MM-DD. */
export function checkAec(bytes, registry, today) {
    const schema = validateXml(bytes, 'AEC_v10.xsd');
    if (!schema.valid)
        return reject('RSC', schema.errors[0] ?? 'AEC no válido');
    let aec;
    try {
        aec = readAec(bytes);
    }
    catch (e) {
        if (e instanceof AecReadError)
            return reject('RSC', e.message);
        throw e;
    }
    if (!aec.signatures.aec.valid)
        return reject('RFS', `firma del AEC no válida (${aec.signatures.aec.reason})`);
    const problem = caratulaProblem(aec) ?? documentProblem(aec, registry) ?? cesionProblem(aec, registry, today);
    if (problem)
        return problem;
    const last = aec.cesiones.at(-1);
    return {
        estado: 'EOK',
        glosa: DESC.EOK,
        cesion: {
            issuerRut: rut(aec.dte.issuerRut),
            type: aec.dte.type,
            folio: aec.dte.folio,
            seq: last.seq,
            cedenteRut: rut(last.cedente.rut),
            cesionarioRut: rut(last.cesionario.rut),
            monto: last.monto,
            ultimoVencimiento: last.ultimoVencimiento,
            declaracionJurada: last.cedente.declaracionJurada !== undefined,
        },
    };
}
/** RCR: the Carátula names the cedente and cesionario of the last Cesion (the one to register). */
function caratulaProblem(aec) {
    const last = aec.cesiones.at(-1);
    if (!sameRut(aec.caratula.rutCedente, last.cedente.rut))
        return reject('RCR', `RutCedente ${aec.caratula.rutCedente} no es el cedente de la última cesión (${last.cedente.rut})`);
    if (!sameRut(aec.caratula.rutCesionario, last.cesionario.rut))
        return reject('RCR', `RutCesionario ${aec.caratula.rutCesionario} no es el cesionario de la última cesión (${last.cesionario.rut})`);
    return null;
}
/** RDC: the DTECedido signed, the DTE signed and the one the SII accepted, each IdDTE equal to it. */
function documentProblem(aec, registry) {
    const { dte, signatures } = aec;
    if (!signatures.dteCedido.valid)
        return reject('RDC', `firma del DTECedido no válida (${signatures.dteCedido.reason})`);
    if (!signatures.dte.valid)
        return reject('RDC', `firma del DTE no válida (${signatures.dte.reason})`);
    const registered = registry.document(rut(dte.issuerRut), dte.type, dte.folio);
    if (!registered)
        return reject('RDC', `DTE tipo ${dte.type} folio ${dte.folio} de ${dte.issuerRut} no ha sido recibido por el SII`);
    const hashes = [sha256(dte.bytes), sha256(dte.bytes.replace(/\r\n/g, '\n'))];
    if (!hashes.includes(registered.sha256))
        return reject('RDC', 'el DTE no corresponde al recibido por el SII');
    for (const c of aec.cesiones) {
        const id = c.idDte;
        const same = id.type === dte.type &&
            id.folio === dte.folio &&
            sameRut(id.issuerRut, dte.issuerRut) &&
            sameRut(id.receiverRut, dte.receiverRut) &&
            id.date === dte.date &&
            id.total === dte.total;
        if (!same)
            return reject('RDC', `IdDTE de la cesión ${c.seq} no corresponde al DTE cedido`);
    }
    return null;
}
/**
 * RCS: the earlier cesiones of a re-cesión as the Registry noted them (they were validated
 * then), the new one (the last) by every rule, then the document's cedibility.
 */
function cesionProblem(aec, registry, today) {
    const { dte } = aec;
    const issuerRut = rut(dte.issuerRut);
    const registered = registry.cesiones(issuerRut, dte.type, dte.folio);
    const last = aec.cesiones.at(-1);
    if (last.seq !== registered.length + 1)
        return reject('RCS', `SeqCesion ${last.seq} no sigue a las ${registered.length} cesiones anotadas en el Registro`);
    for (const [i, c] of aec.cesiones.entries()) {
        if (c.seq !== i + 1)
            return reject('RCS', `SeqCesion ${c.seq} fuera de orden`);
        if (c === last)
            break;
        const noted = registered[i];
        if (!(noted && sameRut(noted.cedenteRut, c.cedente.rut) && sameRut(noted.cesionarioRut, c.cesionario.rut)))
            return reject('RCS', `cesión ${c.seq}: no corresponde a la cesión anotada en el Registro`);
    }
    const detail = newCesionProblem(aec, today);
    if (detail)
        return reject('RCS', `cesión ${last.seq}: ${detail}`);
    if (last.cedente.declaracionJurada === undefined) {
        if (registered.some((r) => r.declaracionJurada))
            return reject('RCS', 'falta la declaración jurada, que la cesión anterior incluía');
        if (dte.recibos === 0)
            return reject('RCS', 'no incluye recibo de mercaderías ni declaración jurada');
    }
    const notCedible = NOT_CEDIBLE[registry.cedible(issuerRut, dte.type, dte.folio)];
    if (notCedible)
        return reject('RCS', notCedible);
    return null;
}
/** What is wrong with the AEC's last Cesion, the one to register (null: nothing). */
function newCesionProblem(aec, today) {
    const i = aec.cesiones.length - 1;
    const c = aec.cesiones[i];
    const check = aec.signatures.cesiones[i];
    if (!check.valid)
        return `firma no válida (${check.reason})`;
    const authorised = c.cedente.autorizados.map((a) => a.rut);
    // FAEC C.2: one signature per RUTAutorizado; each signer's certificate names an authorised
    // person. A cedente listed as its own RUTAutorizado covers its representatives' signatures:
    // the registry accepted such cesiones (the first cesión of test/fixtures/aec's re-cesión,
    // authorised 76354771-K, signed by 13185095-6).
    const selfAuthorised = authorised.some((a) => sameRut(a, c.cedente.rut));
    const unauthorised = c.signerRuts.find((s) => !s || (!selfAuthorised && !authorised.some((a) => sameRut(a, s))));
    if (unauthorised !== undefined)
        return `el firmante ${unauthorised ?? '(certificado sin RUT)'} no es una persona autorizada por el cedente`;
    const expectedCedente = i === 0 ? aec.dte.issuerRut : aec.cesiones[i - 1].cesionario.rut;
    if (!sameRut(c.cedente.rut, expectedCedente))
        return `el cedente ${c.cedente.rut} no es ${i === 0 ? 'el emisor del documento' : 'el último cesionario'} (${expectedCedente})`;
    const badRut = [c.cedente.rut, c.cesionario.rut, ...authorised].find((r) => !isValidRut(r));
    if (badRut !== undefined)
        return `RUT inválido ${badRut}`;
    if (!(c.monto <= aec.dte.total))
        return `MontoCesion ${c.monto} mayor que el monto total del documento (${aec.dte.total})`;
    if (c.ultimoVencimiento < aec.dte.date)
        return `UltimoVencimiento ${c.ultimoVencimiento} anterior a la fecha de emisión (${aec.dte.date})`;
    const date = c.tmst.slice(0, 10);
    if (date > today)
        return `fecha de la cesión ${date} posterior a hoy (${today})`;
    return null;
}
