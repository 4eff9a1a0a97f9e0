/**
 * The registry of cesiones (RPETC) at the SII's paths:
 *
 * - `POST /cgi_rtc/RTC/RTCAnotEnvio.cgi` (the manual "Envío Automático de AEC" v1.0): multipart
 *   `emailNotif`, `rutCompany`, `dvCompany`, `archivo`, cookie `TOKEN`; always HTTP 200 with a
 *   RECEPCIONAEC, except the gateway's 401 page when the User-Agent lacks `PROG 1.0` (as
 *   DTEUpload). STATUS, in this order: 5 no valid DTEWS token → 4 a field missing or rutCompany
 *   not a RUT → 2 the file empty or above MAX_AEC_BYTES → 1 the token's holder may not act for
 *   rutCompany (RegistroStore.actsFor) → 6 rutCompany not an issuer the simulator knows
 *   (registerIssuer) → 0 with a 10-digit TRACKID. The AEC is then judged (rpetc-store.ts).
 * - `POST /DTEWS/services/wsRPETCConsulta` (manual v1.2, rpc/encoded, the Token a SOAP
 *   parameter): getEstEnvio, getEstCesion, getEstCesionRelac, answered as the escaped
 *   `SII:RESPUESTA` string like the other DTEWS services. Header codes: 5 no token, 3 expired,
 *   4 unknown; 1 malformed parameters; 2 nothing found (unknown track, document not ceded,
 *   IdCesion not the document's); 10 the token's holder may not act for the envío's company
 *   (getEstEnvio) or for RutEmpresa (getEstCesionRelac); -15 RutEmpresa is neither the holder
 *   nor the receiver of the document. `GET …?wsdl` serves the vendored WSDL pointing here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { create } from 'xmlbuilder2';
import { santiagoTimestamp } from '../dte/chile-time.js';
import { decodeXmlBytes } from '../dte/xml-text.js';
import { cookie, hasProgUserAgent, htmlReply, parseRut, reply, xmlReply } from './http-util.js';
import { fieldOf, parseMultipart } from './multipart.js';
import { aecEstadoOf, DESC_ESTADO, isAecFinal } from './rpetc-store.js';
import { parseSoapCall, SoapFaultError, soapFault, soapResponse } from './soap.js';
export const RPETC_UPLOAD_PATH = '/cgi_rtc/RTC/RTCAnotEnvio.cgi';
export const RPETC_CONSULTA_PATH = '/DTEWS/services/wsRPETCConsulta';
/** The largest AEC the simulator takes (STATUS 2 above it): the SII publishes no limit. */
export const MAX_AEC_BYTES = 5 * 1024 * 1024;
/** "DD-MM-YYYY HH:MM:SS", Santiago, as the manual's TIMESTAMP. */
function ddmmyyyyTime(at) {
    const [date, time] = santiagoTimestamp(at).split('T');
    const [y, m, d] = date.split('-');
    return `${d}-${m}-${y} ${time}`;
}
/** RECEPCIONAEC as in the manual's examples (§3.3): one element per line, no indentation. */
function recepcionAec(ctx, r) {
    const doc = create().ele('RECEPCIONAEC');
    doc.ele('RUTSENDER').txt(r.rutSender);
    doc.ele('RUTCOMPANY').txt(r.rutCompany);
    doc.ele('FILE').txt(r.file);
    doc.ele('TIMESTAMP').txt(ddmmyyyyTime(ctx.clock()));
    doc.ele('STATUS').txt(String(r.status));
    if (r.trackId)
        doc.ele('TRACKID').txt(r.trackId);
    const xml = `<?xml version="1.0"?>\n${doc.end({ headless: true, prettyPrint: true, indent: '', newline: '\n' })}\n`;
    return reply(200, xml, 'text/xml; charset=utf-8');
}
export function handleAecUpload(ctx, req, body) {
    if (req.method !== 'POST')
        return htmlReply(405, 'Method Not Allowed', 'RTCAnotEnvio only takes POST');
    if (!hasProgUserAgent(req)) {
        return htmlReply(401, 'NO ESTA AUTENTICADO', 'Usuario no autenticado', {
            'X-Sim-Reason': 'User-Agent without PROG 1.0',
        });
    }
    const parts = parseMultipart(body, req.headers['content-type']) ?? [];
    const archivo = parts.find((p) => p.name === 'archivo');
    const email = fieldOf(parts, 'emailNotif');
    const rutBody = fieldOf(parts, 'rutCompany');
    const dv = fieldOf(parts, 'dvCompany');
    const base = { rutCompany: `${rutBody}-${dv}`, file: archivo?.filename ?? '' };
    const token = ctx.auth.check('dte', cookie(req, 'TOKEN'));
    if (!token.ok)
        return recepcionAec(ctx, { ...base, rutSender: '-', status: 5 });
    const rutSender = token.token.holderRut;
    const companyRut = parseRut(rutBody, dv);
    if (!email || !archivo || !companyRut)
        return recepcionAec(ctx, { ...base, rutSender, status: 4 });
    if (archivo.data.length === 0 || archivo.data.length > MAX_AEC_BYTES) {
        return recepcionAec(ctx, { ...base, rutSender, status: 2 });
    }
    if (!ctx.registro.actsFor(rutSender, companyRut))
        return recepcionAec(ctx, { ...base, rutSender, status: 1 });
    if (!ctx.issuers.has(companyRut))
        return recepcionAec(ctx, { ...base, rutSender, status: 6 });
    const upload = ctx.rpetc.receive({
        bytes: archivo.data,
        companyRut,
        senderRut: rutSender,
        email,
        filename: base.file,
    });
    return recepcionAec(ctx, { ...base, rutSender, status: 0, trackId: upload.trackId });
}
// ---------------------------------------------------------------------------------------------
// wsRPETCConsulta
// ---------------------------------------------------------------------------------------------
const RESPUESTA_NS = 'http://www.sii.cl/XMLSchema';
/** The manual's RESPUESTA (§3.2): SII-prefixed header fields, unprefixed body fields. */
function rpetcRespuesta(estado, glosa, body = []) {
    const root = create().ele(RESPUESTA_NS, 'SII:RESPUESTA');
    const hdr = root.ele(RESPUESTA_NS, 'SII:RESP_HDR');
    hdr.ele(RESPUESTA_NS, 'SII:ESTADO').txt(String(estado));
    if (glosa)
        hdr.ele(RESPUESTA_NS, 'SII:GLOSA').txt(glosa);
    const bodyEl = root.ele(RESPUESTA_NS, 'SII:RESP_BODY');
    for (const [name, value] of body)
        bodyEl.ele(name).txt(value);
    return `<?xml version="1.0" encoding="UTF-8"?>\n${root.end({ headless: true })}`;
}
const param = (p, name) => (p.get(name) ?? '').trim();
/** The token of a call, or the header answer refusing it (5 none, 3 expired, 4 unknown). */
function tokenHolder(ctx, p) {
    const check = ctx.auth.check('dte', param(p, 'Token'));
    if (check.ok)
        return check.token.holderRut;
    if (check.estado === '002')
        return { answer: rpetcRespuesta(3, 'Error autenticacion: Token Inactivo') };
    if (check.estado === '003')
        return { answer: rpetcRespuesta(4, 'Error autenticacion: Token no existe') };
    return { answer: rpetcRespuesta(5, 'Error autenticacion') };
}
const noPermission = (holder, company) => rpetcRespuesta(10, `Error permisos: Usuario conectado [${holder}] no tiene permiso en empresa [${company}]`);
function getEstEnvio(ctx, p) {
    const holder = tokenHolder(ctx, p);
    if (typeof holder !== 'string')
        return holder.answer;
    const trackId = param(p, 'TrackId');
    if (!/^\d{1,10}$/.test(trackId))
        return rpetcRespuesta(1, 'Error de datos: TrackId');
    const upload = ctx.rpetc.find(trackId);
    if (!upload)
        return rpetcRespuesta(2, 'Error No se encontro informacion');
    if (!ctx.registro.actsFor(holder, upload.companyRut))
        return noPermission(holder, upload.companyRut);
    const estado = aecEstadoOf(upload);
    // A rejection's DESC_ESTADO is the checks' glosa: the state's description and the reason.
    const desc = isAecFinal(upload) && estado !== 'EOK' ? upload.verdict.glosa : DESC_ESTADO[estado];
    return rpetcRespuesta(0, null, [
        ['TRACKID', String(Number(upload.trackId))],
        ['ESTADO_ENVIO', estado],
        ['DESC_ESTADO', desc],
    ]);
}
function docParams(p) {
    const issuerRut = parseRut(param(p, 'RutEmisor'), param(p, 'DVEmisor'));
    const type = param(p, 'TipoDoc');
    const folio = param(p, 'FolioDoc');
    if (!issuerRut || !/^\d{1,3}$/.test(type) || !/^\d{1,10}$/.test(folio) || Number(folio) < 1)
        return null;
    return { issuerRut, type: Number(type), folio: Number(folio) };
}
/** RUT_TENEDOR, FECHA_ULT_ANOT, DEC_JURADA of a ceded document (§3.2.2 a). */
function cesionDetail(cesiones) {
    const last = cesiones.at(-1);
    return [
        ['RUT_TENEDOR', last.cesionarioRut],
        ['FECHA_ULT_ANOT', santiagoTimestamp(last.at).replace('T', ' ')],
        ['DEC_JURADA', cesiones.some((c) => c.declaracionJurada) ? 'EXISTE' : 'NO EXISTE'],
    ];
}
function getEstCesion(ctx, p) {
    const holder = tokenHolder(ctx, p);
    if (typeof holder !== 'string')
        return holder.answer;
    const doc = docParams(p);
    if (!doc)
        return rpetcRespuesta(1, 'Error de datos');
    const cesiones = ctx.rpetc.visible(doc.issuerRut, doc.type, doc.folio);
    if (cesiones.length === 0)
        return rpetcRespuesta(2, 'Documento no Cedido');
    const idCesion = param(p, 'IdCesion');
    if (idCesion === '')
        return rpetcRespuesta(0, 'Documento Cedido');
    if (!cesiones.some((c) => c.idCesion === idCesion)) {
        return rpetcRespuesta(2, 'Error No se encontro informacion de la cesion');
    }
    return rpetcRespuesta(0, null, cesionDetail(cesiones));
}
function getEstCesionRelac(ctx, p) {
    const holder = tokenHolder(ctx, p);
    if (typeof holder !== 'string')
        return holder.answer;
    const doc = docParams(p);
    const company = parseRut(param(p, 'RutEmpresa'), param(p, 'DVEmpresa'));
    if (!doc || !company)
        return rpetcRespuesta(1, 'Error de datos');
    if (!ctx.registro.actsFor(holder, company))
        return noPermission(holder, company);
    const cesiones = ctx.rpetc.visible(doc.issuerRut, doc.type, doc.folio);
    if (cesiones.length === 0)
        return rpetcRespuesta(2, 'Documento no Cedido');
    const receiverRut = ctx.registro.find(doc.issuerRut, doc.type, doc.folio)?.receiverRut;
    if (company !== cesiones.at(-1).cesionarioRut && company !== receiverRut) {
        return rpetcRespuesta(-15, 'Error permisos: Empresa Relacionada no esta vinculada con el documento consultado');
    }
    return rpetcRespuesta(0, null, cesionDetail(cesiones));
}
function dispatch(ctx, call) {
    switch (call.operation) {
        case 'getEstEnvio':
            return getEstEnvio(ctx, call.params);
        case 'getEstCesion':
            return getEstCesion(ctx, call.params);
        case 'getEstCesionRelac':
            return getEstCesionRelac(ctx, call.params);
        case 'getVersion':
            return '1.2';
        default:
            throw new SoapFaultError('Client', `No such operation '${call.operation}'`);
    }
}
/** The vendored production WSDL (resources/sii/PROVENANCE.md). */
const CONSULTA_WSDL = resolve('resources/sii/wsdl/palena/wsRPETCConsulta.wsdl');
export function handleRpetcConsulta(ctx, req, url, body) {
    if (req.method === 'GET') {
        if (url.searchParams.has('wsdl') || url.searchParams.has('WSDL')) {
            const wsdl = readFileSync(CONSULTA_WSDL, 'utf8').replace(/(<wsdlsoap:address\s+location=")[^"]*(")/, `$1http://${req.headers.host ?? url.host}${RPETC_CONSULTA_PATH}$2`);
            return reply(200, wsdl, 'text/xml; charset=utf-8');
        }
        // What Axis answers a browser.
        return htmlReply(200, 'wsRPETCConsulta', 'Hi there, this is an AXIS service!');
    }
    if (req.method !== 'POST')
        return htmlReply(405, 'Method Not Allowed', `${req.method} is not supported`);
    try {
        const call = parseSoapCall(decodeXmlBytes(body));
        return xmlReply(200, soapResponse(call, dispatch(ctx, call)));
    }
    catch (e) {
        if (e instanceof SoapFaultError)
            return xmlReply(500, soapFault(e));
        throw e;
    }
}
