/**
 * The status answers: QueryEstUp / boleta.electronica.envio/{…} for an upload (docs/sii-reference.md §7.4)
 * and QueryEstDte / boleta.electronica/{…}/estado for a document (§7.5), in the shapes of
 * test/fixtures/sii/responses (queryestup_*, queryestdte_*, boleta_rest_*).
 */
import { santiagoTimestamp } from '../dte/chile-time.js';
import { respuesta } from './respuesta.js';
import { currentEstado, ENVELOPE_GLOSAS, errorCode, isFinal, isProcessed, } from './state.js';
/** Per-type counts of an EPR envelope: ACEPTADOS excludes the ones accepted with objections (REPAROS). */
function countsOf(documents) {
    const byType = new Map();
    for (const d of documents) {
        const c = byType.get(d.type) ?? { type: d.type, informed: 0, accepted: 0, rejected: 0, objections: 0 };
        c.informed++;
        if (d.estado === 'ACEPTADO')
            c.accepted++;
        else if (d.estado === 'RCH')
            c.rejected++;
        else
            c.objections++;
        byType.set(d.type, c);
    }
    return [...byType.values()].sort((a, b) => a.type - b.type);
}
/** The estado an upload shows now; the REST API spells PDR as PRD (docs/sii-reference.md §7.4). */
export function visibleEstado(upload) {
    const estado = currentEstado(upload);
    return upload.channel === 'boleta-rest' && estado === 'PDR' ? 'PRD' : estado;
}
/** QueryEstUp.getEstUp for a known upload of this company. */
export function estUpRespuesta(upload) {
    const estado = currentEstado(upload);
    if (estado === 'EPR') {
        const body = countsOf(upload.documents).flatMap((c) => [
            ['TIPO_DOCTO', c.type],
            ['INFORMADOS', c.informed],
            ['ACEPTADOS', c.accepted],
            ['RECHAZADOS', c.rejected],
            ['REPAROS', c.objections],
        ]);
        return respuesta({
            body,
            bodyFirst: true,
            hdr: [
                ['TRACKID', upload.trackId],
                ['ESTADO', 'EPR'],
                ['GLOSA', ENVELOPE_GLOSAS.EPR],
            ],
            declaration: 'bare',
        });
    }
    const glosa = isFinal(upload) && upload.rejection ? upload.rejection.glosa : ENVELOPE_GLOSAS[estado];
    return respuesta({
        hdr: [
            ['TRACKID', upload.trackId],
            ['ESTADO', estado],
            ['GLOSA', glosa],
        ],
        declaration: 'bare',
    });
}
/**
 * QueryEstUp errors: -11 with ERR_CODE 1 when the envío is not the company's, 2 when the SII
 * has no such envío (queryestup_respuesta_-11_error_proceso.xml).
 */
export function estUpErrorRespuesta(errCode) {
    return respuesta({
        hdr: [
            ['ESTADO', '-11'],
            ['ERR_CODE', errCode],
            ['SQL_CODE', 0],
            ['SRV_CODE', 0],
        ],
        declaration: 'bare',
    });
}
/** `fecha_recepcion` of the REST status: DD/MM/AAAA HH:MM:SS (boleta_rest_estado_envio_EPR.json). */
function restDate(d) {
    const [date, time] = santiagoTimestamp(d).split('T');
    const [y, m, day] = date.split('-');
    return `${day}/${m}/${y} ${time}`;
}
const VERDICT_DESCRIPTIONS = {
    RLV: 'DTE Aceptado con Reparos Leves',
    RPR: 'DTE Aceptado con Reparos',
    RCH: 'DTE Rechazado',
};
/** GET boleta.electronica.envio/{rut}-{dv}-{trackid} (boleta_rest_estado_envio_*.json). */
export function restEnvioStatus(upload) {
    const estado = currentEstado(upload);
    const base = {
        rut_emisor: upload.companyRut,
        rut_envia: upload.senderRut,
        trackid: Number(upload.trackId),
        fecha_recepcion: restDate(upload.receivedAt),
        estado: visibleEstado(upload),
    };
    if (isFinal(upload) && upload.rejection) {
        const rejection = upload.rejection;
        return {
            ...base,
            estadistica: [],
            detalle_rep_rech: [
                {
                    estado: 'RCH',
                    descripcion: VERDICT_DESCRIPTIONS.RCH,
                    error: rejection.detail.map((detalle) => ({ seccion: 'ENV', descripcion: rejection.glosa, detalle })),
                },
            ],
        };
    }
    if (estado !== 'EPR')
        return { ...base, estadistica: [], detalle_rep_rech: [] };
    return {
        ...base,
        estadistica: countsOf(upload.documents).map((c) => ({
            tipo: c.type,
            informados: c.informed,
            aceptados: c.accepted,
            rechazados: c.rejected,
            reparos: c.objections,
        })),
        detalle_rep_rech: upload.documents
            .filter((d) => d.estado !== 'ACEPTADO')
            .map((d) => ({
            tipo: d.type,
            folio: d.folio,
            estado: d.estado,
            descripcion: VERDICT_DESCRIPTIONS[d.estado],
            error: d.errors.map((e) => ({
                seccion: e.section,
                linea: 0,
                nivel: e.level,
                codigo: e.code,
                descripcion: e.description,
                detalle: errorCode(e),
            })),
        })),
    };
}
/** QueryEstDte codes and ERR_CODE values (docs/sii-reference.md §7.5; glosas as the SII and LibreDTE write them). */
const DOCUMENT_STATES = {
    DOK: [0, 'Documento Recibido por el SII. Datos Coinciden con los Registrados'],
    DNK: [1, 'Documento Recibido por el SII pero Datos NO Coinciden con los registrados'],
    FAU: [3, 'DTE No Recibido'],
    TMD: [10, 'Existe Nota de Debito que Modifica Texto Documento'],
    TMC: [11, 'Existe Nota de Credito que Modifica Textos Documento'],
    MMD: [12, 'Existe Nota de Debito que Modifica Montos Documento'],
    MMC: [13, 'Existe Nota de Credito que Modifica Montos Documento'],
    AND: [14, 'Existe Nota de Debito que Anula Documento'],
    ANC: [15, 'Existe Nota de Credito que Anula Documento'],
};
/** The strongest effect of processed notes on a document: annulled > amounts > text. */
function modificationCode(doc) {
    const effective = doc.modifications.filter((m) => isProcessed(m.upload));
    for (const codRef of [1, 3, 2]) {
        const m = effective.find((x) => x.codRef === codRef);
        if (!m)
            continue;
        const credit = m.noteType === 61;
        if (codRef === 1)
            return credit ? 'ANC' : 'AND';
        if (codRef === 3)
            return credit ? 'MMC' : 'MMD';
        return credit ? 'TMC' : 'TMD';
    }
    return null;
}
function answer(code, mismatch = null) {
    const [errCode, glosa] = DOCUMENT_STATES[code];
    return { code, errCode, glosa, mismatch };
}
/**
 * DOK when received (its envelope at EPR, the document not rejected) and date, amount and
 * receiver match; DNK when they do not; FAU when never received or rejected; a note's effect
 * (ANC, MMC, TMC, AND, MMD, TMD) once the note is processed.
 */
export function documentStatus(registry, q) {
    const doc = registry.find(q.issuerRut, q.type, q.folio);
    if (!doc || !isProcessed(doc.upload))
        return answer('FAU');
    const mismatches = [
        doc.date !== q.date && 'Fecha de Emision',
        Number(doc.total) !== q.amount && 'Monto',
        doc.receiverRut !== q.receiverRut && 'RUT Receptor',
    ].filter((m) => typeof m === 'string');
    if (mismatches.length > 0)
        return answer('DNK', `${mismatches.join(', ')} no coincide`);
    return answer(modificationCode(doc) ?? 'DOK');
}
/** QueryEstDte.getEstDte RESPUESTA (queryestdte_respuesta_DOK.xml / _FAU.xml). */
export function estDteRespuesta(a, numAtencion) {
    return respuesta({
        hdr: [
            ['ESTADO', a.code],
            ['GLOSA_ESTADO', a.glosa],
            ['ERR_CODE', a.errCode],
            ...(a.mismatch ? [['GLOSA_ERR', a.mismatch]] : []),
            ['NUM_ATENCION', numAtencion],
        ],
    });
}
/** QueryEstDte errors other than tokens: ESTADO -n with GLOSA_ERR. */
export function estDteErrorRespuesta(estado, glosa, numAtencion) {
    return respuesta({
        hdr: [
            ['ESTADO', estado],
            ['GLOSA_ERR', glosa],
            ['NUM_ATENCION', numAtencion],
        ],
    });
}
