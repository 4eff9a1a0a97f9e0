import { z } from 'zod';
import { childByLocalName, childElements, parseAnswerXml } from './soap.js';
import { SiiProtocolError, } from './types.js';
const textOf = (el) => (el.textContent ?? '').trim();
/**
 * `<SII:RESPUESTA><SII:RESP_HDR>…</SII:RESP_HDR><SII:RESP_BODY>…</SII:RESP_BODY></SII:RESPUESTA>`,
 * header and body in either order (the live QueryEstUp answer puts RESP_BODY first, §7.4).
 */
export function readRespuesta(op, xml) {
    const root = parseAnswerXml(op, xml);
    if (root.localName !== 'RESPUESTA')
        throw new SiiProtocolError(`${op}: expected RESPUESTA, got ${root.localName}`);
    const hdrEl = childByLocalName(root, 'RESP_HDR');
    if (!hdrEl)
        throw new SiiProtocolError(`${op}: RESPUESTA without RESP_HDR`);
    const hdr = new Map();
    for (const el of childElements(hdrEl))
        if (!hdr.has(el.localName))
            hdr.set(el.localName, textOf(el));
    const bodyEl = childByLocalName(root, 'RESP_BODY');
    const body = bodyEl ? childElements(bodyEl).map((el) => [el.localName, textOf(el)]) : [];
    if (!hdr.get('ESTADO'))
        throw new SiiProtocolError(`${op}: RESP_HDR without ESTADO`);
    return { hdr, body };
}
/** getSeed / boleta.electronica.semilla → SEMILLA (docs/sii-reference.md §7.2 step 1). */
export function readSeedAnswer(xml) {
    return authAnswer('getSeed', xml, 'SEMILLA');
}
/** getToken / boleta.electronica.token → TOKEN (docs/sii-reference.md §7.2 step 3). */
export function readTokenAnswer(xml) {
    return authAnswer('getToken', xml, 'TOKEN');
}
function authAnswer(op, xml, field) {
    const r = readRespuesta(op, xml);
    const value = r.body.find(([name]) => name === field)?.[1] || null;
    return { estado: r.hdr.get('ESTADO'), glosa: r.hdr.get('GLOSA') ?? '', value };
}
/**
 * ESTADO values of the query services that mean "your token is no good" (docs/sii-reference.md §7.4:
 * 001 cookie/token inactivo, 002 token inactivo, 003 token no existe; §7.5 the same).
 */
export function isTokenEstado(estado) {
    return estado === '001' || estado === '002' || estado === '003';
}
/** A human text for query errors that carry codes but no GLOSA (e.g. ESTADO -11, §7.4). */
function codesText(hdr) {
    return ['ERR_CODE', 'SQL_CODE', 'SRV_CODE']
        .filter((k) => hdr.has(k))
        .map((k) => `${k} ${hdr.get(k)}`)
        .join(', ');
}
function count(op, text, what) {
    const n = Number(text);
    if (text === undefined || text === '' || !Number.isInteger(n)) {
        throw new SiiProtocolError(`${op}: ${what} is not a number: ${JSON.stringify(text)}`);
    }
    return n;
}
/**
 * RESP_BODY of an EPR answer: one group TIPO_DOCTO, INFORMADOS, ACEPTADOS, RECHAZADOS,
 * REPAROS per document type, repeated without a wrapper element (§7.4). A TIPO_DOCTO opens a
 * new group; a missing count reads as 0.
 */
function typeCounts(op, body) {
    const counts = [];
    let current = null;
    const fields = {
        INFORMADOS: 'informed',
        ACEPTADOS: 'accepted',
        RECHAZADOS: 'rejected',
        REPAROS: 'objections',
    };
    for (const [name, text] of body) {
        if (name === 'TIPO_DOCTO') {
            current = { type: count(op, text, name), informed: 0, accepted: 0, rejected: 0, objections: 0 };
            counts.push(current);
        }
        else if (fields[name] && current) {
            current[fields[name]] = count(op, text, name);
        }
    }
    return counts;
}
/** QueryEstUp.getEstUp's RESPUESTA (docs/sii-reference.md §7.4). */
export function readEstUpAnswer(xml) {
    const op = 'getEstUp';
    const r = readRespuesta(op, xml);
    return {
        estado: r.hdr.get('ESTADO'),
        glosa: r.hdr.get('GLOSA') || codesText(r.hdr),
        counts: typeCounts(op, r.body),
        documents: [],
        raw: xml,
    };
}
/** QueryEstDte.getEstDte's RESPUESTA (docs/sii-reference.md §7.5): ESTADO, GLOSA_ESTADO, ERR_CODE, GLOSA_ERR. */
export function readEstDteAnswer(xml) {
    const r = readRespuesta('getEstDte', xml);
    const glosa = [r.hdr.get('GLOSA_ESTADO') || r.hdr.get('GLOSA'), r.hdr.get('GLOSA_ERR')].filter(Boolean).join('; ');
    return {
        estado: r.hdr.get('ESTADO'),
        glosa,
        errorCode: r.hdr.get('ERR_CODE') || null,
        raw: xml,
    };
}
// ---------------------------------------------------------------------------------------------
// RECEPCIONDTE: the answer of cgi_dte/UPL/DTEUpload (docs/sii-reference.md §7.3)
// ---------------------------------------------------------------------------------------------
/**
 * `<RECEPCIONDTE>…<STATUS/>[<TRACKID/>][<DETAIL><ERROR/>…</DETAIL>]</RECEPCIONDTE>`. For STATUS
 * 99 ("Archivo ya fue enviado N veces con Trackid X", [RURAL]) the earlier track id is taken
 * from TRACKID, or else from that text.
 */
export function readRecepcionDte(xml) {
    const op = 'DTEUpload';
    const root = parseAnswerXml(op, xml);
    if (root.localName !== 'RECEPCIONDTE') {
        throw new SiiProtocolError(`${op}: expected RECEPCIONDTE, got ${root.localName}`);
    }
    const statusEl = childByLocalName(root, 'STATUS');
    const status = count(op, statusEl ? textOf(statusEl) : undefined, 'STATUS');
    const detailEl = childByLocalName(root, 'DETAIL');
    const detail = detailEl ? childElements(detailEl).map(textOf).filter(Boolean) : [];
    const trackEl = childByLocalName(root, 'TRACKID');
    let trackId = trackEl ? textOf(trackEl) || null : null;
    if (!trackId && status === 99)
        trackId = /trackid\D{0,3}(\d+)/i.exec(detail.join(' '))?.[1] ?? null;
    if (status === 0 && !trackId)
        throw new SiiProtocolError(`${op}: STATUS 0 without TRACKID`);
    return { status, trackId, detail, raw: xml };
}
// ---------------------------------------------------------------------------------------------
// Boleta REST API, JSON answers (docs/sii-reference.md §7.6)
// ---------------------------------------------------------------------------------------------
const trackIdSchema = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform(String);
const boletaUploadSchema = z.object({ trackid: trackIdSchema, estado: z.string().optional() });
const boletaErrorSchema = z.object({
    seccion: z.string().optional(),
    linea: z.coerce.number().optional(),
    nivel: z.coerce.number().optional(),
    codigo: z.union([z.number(), z.string()]).optional(),
    descripcion: z.string().optional(),
    detalle: z.string().optional(),
});
const boletaVerdictSchema = z.object({
    tipo: z.coerce.number().int().optional(),
    folio: z.coerce.number().int().optional(),
    estado: z.string().optional(),
    descripcion: z.string().optional(),
    error: z.array(boletaErrorSchema).optional(),
});
const boletaUploadStatusSchema = z.object({
    estado: z.string().min(1),
    estadistica: z
        .array(z.object({
        tipo: z.coerce.number().int(),
        informados: z.coerce.number().int().default(0),
        aceptados: z.coerce.number().int().default(0),
        rechazados: z.coerce.number().int().default(0),
        reparos: z.coerce.number().int().default(0),
    }))
        .nullish(),
    detalle_rep_rech: z.array(boletaVerdictSchema).nullish(),
});
const boletaDocumentStatusSchema = z.object({ codigo: z.string().min(1), descripcion: z.string().default('') });
function readJson(op, text, schema) {
    let value;
    try {
        value = JSON.parse(text);
    }
    catch (e) {
        throw new SiiProtocolError(`${op}: the answer is not JSON (${e.message})`, { cause: e });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
        throw new SiiProtocolError(`${op}: unexpected JSON (${issues})`);
    }
    return parsed.data;
}
/** POST boleta.electronica.envio → `{trackid, estado: "REC", …}`: received, like DTEUpload STATUS 0. */
export function readBoletaUpload(json) {
    const answer = readJson('boleta.electronica.envio', json, boletaUploadSchema);
    return { status: 0, trackId: answer.trackid, detail: [], raw: json };
}
/** The REST answer has no glosa; these are the SII's texts for its states (docs/sii-reference.md §7.4). */
const REST_GLOSAS = {
    REC: 'Envío Recibido',
    SOK: 'Schema Validado',
    FOK: 'Firma de Envío Validada',
    PRD: 'Envío en Proceso',
    CRT: 'Carátula OK',
    EPR: 'Envío Procesado',
    RSC: 'Rechazado por Error en Schema',
    RFR: 'Rechazado por Error en Firma',
    RCT: 'Rechazado por Error en Carátula',
    RPT: 'Envío Repetido Rechazado',
    RCO: 'Rechazado por Consistencia',
    RCH: 'Rechazado por Errores en Información',
    RPR: 'Aceptado con Reparos',
    VOF: 'No se encontró el archivo .xml',
};
/** One error line as the SII's e-mail writes it: `(HED-1-863) descripción`. */
function errorLine(e) {
    const code = e.detalle && /^[A-Z]{3}-\d+-\d+$/.test(e.detalle)
        ? e.detalle
        : e.seccion && e.nivel !== undefined && e.codigo !== undefined
            ? `${e.seccion}-${e.nivel}-${e.codigo}`
            : null;
    const text = [e.descripcion, code ? null : e.detalle].filter(Boolean).join(': ');
    const seccion = !code && e.seccion ? `${e.seccion} ` : '';
    return code ? `(${code}) ${text}`.trim() : `${seccion}${text}`.trim();
}
/**
 * GET boleta.electronica.envio/{rut}-{dv}-{trackid} (docs/sii-reference.md §7.6). `detalle_rep_rech`
 * entries naming a document (tipo and folio) become verdicts; entries without them describe
 * the whole envelope (e.g. an RSC schema error) and are added to the glosa.
 */
export function readBoletaUploadStatus(json) {
    const answer = readJson('boleta.electronica.envio status', json, boletaUploadStatusSchema);
    const documents = [];
    const envelopeNotes = [];
    for (const v of answer.detalle_rep_rech ?? []) {
        const detail = (v.error ?? []).map(errorLine).filter(Boolean);
        if (v.tipo !== undefined && v.folio !== undefined) {
            documents.push({ type: v.tipo, folio: v.folio, estado: v.estado ?? '', detail });
        }
        else {
            envelopeNotes.push(...(detail.length > 0 ? detail : [v.descripcion ?? v.estado ?? ''].filter(Boolean)));
        }
    }
    const counts = (answer.estadistica ?? []).map((s) => ({
        type: s.tipo,
        informed: s.informados,
        accepted: s.aceptados,
        rejected: s.rechazados,
        objections: s.reparos,
    }));
    const glosa = [REST_GLOSAS[answer.estado] ?? '', ...envelopeNotes].filter(Boolean).join('; ');
    return { estado: answer.estado, glosa, counts, documents, raw: json };
}
/** GET boleta.electronica/{rut}-{dv}-{tipo}-{folio}/estado → `{codigo, descripcion}` (docs/sii-reference.md §7.5). */
export function readBoletaDocumentStatus(json) {
    const answer = readJson('boleta.electronica estado', json, boletaDocumentStatusSchema);
    return { estado: answer.codigo, glosa: answer.descripcion, errorCode: null, raw: json };
}
