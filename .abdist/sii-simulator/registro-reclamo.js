import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { santiagoTimestamp } from '../dte/chile-time.js';
import { childElements } from '../dte/dom.js';
import { computeDv, splitRut } from '../dte/rut.js';
import { decodeXmlBytes, escapeXml } from '../dte/xml-text.js';
import { parseXml, stripXmlDeclaration } from '../dte/xmldsig.js';
import { cookie, htmlReply, reply, xmlReply } from './http-util.js';
import { allEvents, CLAIMS, isAccion } from './registro-store.js';
export const REGISTRO_PATHS = [
    '/WSREGISTRORECLAMODTE/registroreclamodteservice',
    '/WSREGISTRORECLAMODTECERT/registroreclamodteservice',
];
const NAMESPACE = 'http://ws.registroreclamodte.diii.sdi.sii.cl';
const SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const WSDL_FILE = resolve('resources/sii/wsdl/ws1/registroreclamodteservice.wsdl');
const EIGHT_DAYS_MS = 8 * 24 * 3_600_000;
/** "desde el 14 de Enero de 2017 en adelante" ([WSRR] code 10), midnight in Santiago (UTC-3 in summer). */
const REGISTRY_START = new Date('2017-01-14T03:00:00Z');
/** descResp of each code as the simulator writes it (≤ 70 characters, [WSRR]). */
const DESC = {
    0: 'Accion Completada OK',
    1: 'Rut Emisor Erroneo',
    2: 'Numero de Folio Erroneo',
    3: 'Tipo de documento no corresponde',
    4: 'Accion invalida',
    7: 'Evento registrado previamente',
    8: 'Pasados 8 dias despues de la recepcion no es posible registrar reclamos',
    10: 'Documento no emitido y/o recibido en el SII desde el 14 de Enero de 2017',
    11: 'No se puede reclamar DTE previamente aceptado',
    13: 'No se puede reclamar DTE previamente registrado con recibo de mercaderia',
    14: 'Accion autorizada solo para empresa receptora o emisora',
    15: 'Listado de eventos del documento',
    16: 'Documento no presenta eventos de reclamos o acuse de recibo',
    17: 'Accion autorizada solo para empresa receptora',
    18: 'Documento no ha sido recibido',
    20: 'Tipo de documento no es cedible',
    21: 'DTE No cedible, referenciado por NC de anulacion dentro de los 8 dias',
    22: 'No existe registro de reclamo o de recepcion de mercaderias o servicios',
    23: 'DTE Cedible, sin reclamos',
    24: 'DTE No Cedible, DTE reclamado por el receptor',
    25: 'DTE Cedible, habiendo pasado 8 dias se entiende dado acuse de recibo',
};
// ---------------------------------------------------------------------------------------------
// The wire
// ---------------------------------------------------------------------------------------------
class Fault extends Error {
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}
/** rpc/literal: the operation element in the service namespace, its parameters unqualified. */
function parseCall(text) {
    let envelope;
    try {
        envelope = parseXml(stripXmlDeclaration(text)).documentElement;
    }
    catch (e) {
        throw new Fault('Client', `Couldn't parse the stream: ${e.message}`);
    }
    if (envelope?.localName !== 'Envelope' || envelope.namespaceURI !== SOAP_ENV) {
        throw new Fault('Client', 'Not a SOAP 1.1 Envelope');
    }
    const body = childElements(envelope).find((e) => e.localName === 'Body' && e.namespaceURI === SOAP_ENV);
    const call = body ? childElements(body)[0] : undefined;
    if (!call)
        throw new Fault('Client', 'No operation in the SOAP Body');
    if (call.namespaceURI !== NAMESPACE) {
        throw new Fault('Client', `Cannot find dispatch method for {${call.namespaceURI ?? ''}}${call.localName}`);
    }
    const params = new Map();
    for (const p of childElements(call)) {
        if (p.namespaceURI)
            throw new Fault('Client', `Unexpected element {${p.namespaceURI}}${p.localName}`);
        params.set(p.localName ?? p.nodeName, (p.textContent ?? '').trim());
    }
    return { operation: call.localName ?? '', params };
}
function envelope(operation, returned) {
    return ('<?xml version="1.0" encoding="UTF-8"?>' +
        `<S:Envelope xmlns:S="${SOAP_ENV}"><S:Body>` +
        `<ns2:${operation}Response xmlns:ns2="${NAMESPACE}"><return>${returned}</return></ns2:${operation}Response>` +
        '</S:Body></S:Envelope>');
}
function fault(f) {
    return ('<?xml version="1.0" encoding="UTF-8"?>' +
        `<S:Envelope xmlns:S="${SOAP_ENV}"><S:Body><S:Fault>` +
        `<faultcode>S:${f.code}</faultcode><faultstring>${escapeXml(f.message)}</faultstring>` +
        '</S:Fault></S:Body></S:Envelope>');
}
/** fechaEvento / the reception date: "DD-MM-YYYY HH:MM:SS", Santiago ([WSRR] annex). */
function siiDateTime(at) {
    const [date, time] = santiagoTimestamp(at).split('T');
    const [y, m, d] = date.split('-');
    return `${d}-${m}-${y} ${time}`;
}
function respuestaTo(answer, holderRut) {
    const eventos = (answer.eventos ?? []).map((e) => {
        const rut = e.rutResponsable ? splitRut(e.rutResponsable) : { body: '', dv: '' };
        return (`<listaEventosDoc><codEvento>${e.codEvento}</codEvento><descEvento>${escapeXml(e.descEvento)}</descEvento>` +
            `<rutResponsable>${rut.body}</rutResponsable><dvResponsable>${rut.dv}</dvResponsable>` +
            `<fechaEvento>${siiDateTime(e.at)}</fechaEvento></listaEventosDoc>`);
    });
    const desc = answer.descResp ?? DESC[answer.codResp] ?? '';
    return (`<codResp>${answer.codResp}</codResp><descResp>${escapeXml(desc.slice(0, 70))}</descResp>` +
        `${eventos.join('')}<rutToken>${splitRut(holderRut).body}</rutToken>`);
}
/**
 * rutEmisor (numeric, ≥ 1000, ≤ 8 digits) and dvEmisor (module 11, K uppercase) → 1; folio
 * (numeric, ≤ 10 digits) → 2; tipoDoc numeric → 3 ([WSRR] input tables).
 */
function readKey(p) {
    const body = p.get('rutEmisor') ?? '';
    const dv = p.get('dvEmisor') ?? '';
    if (!/^\d{1,8}$/.test(body) || Number(body) < 1000 || !/^[\dK]$/.test(dv) || computeDv(body) !== dv) {
        return { codResp: 1 };
    }
    const folio = p.get('folio') ?? '';
    if (!/^\d{1,10}$/.test(folio) || Number(folio) < 1)
        return { codResp: 2 };
    const type = p.get('tipoDoc') ?? '';
    if (!/^\d{1,2}$/.test(type))
        return { codResp: 3 };
    return { issuerRut: `${Number(body)}-${dv}`, type: Number(type), folio: Number(folio) };
}
const REGISTRY_TYPES = [33, 34, 43];
function ingresar(ctx, holderRut, p) {
    const key = readKey(p);
    if ('codResp' in key)
        return key;
    if (!REGISTRY_TYPES.includes(key.type))
        return { codResp: 3 };
    const accion = p.get('accionDoc') ?? '';
    if (!isAccion(accion))
        return { codResp: 4 };
    const store = ctx.registro;
    const doc = store.find(key.issuerRut, key.type, key.folio);
    if (!doc || doc.receivedAt < REGISTRY_START)
        return { codResp: 10 };
    if (!store.actsFor(holderRut, doc.receiverRut))
        return { codResp: 17 };
    if (ctx.clock().getTime() >= doc.receivedAt.getTime() + EIGHT_DAYS_MS)
        return { codResp: 8 };
    const done = store.actions(doc).map((e) => e.codEvento);
    const claim = done.find((c) => CLAIMS.includes(c));
    // The matrix of [WSRR] ingresarAceptacionReclamoDoc, field 5, part 1.
    if (accion === 'ERM') {
        if (claim)
            return { codResp: 6, descResp: `No se puede acusar recibo de mercaderia de DTE reclamado por ${claim}` };
        if (done.includes('ERM'))
            return { codResp: 7 };
    }
    else if (accion === 'ACD') {
        if (claim)
            return { codResp: 12, descResp: `No se puede dar por aceptado DTE previamente reclamado por ${claim}` };
        if (done.includes('ACD'))
            return { codResp: 7 };
    }
    else {
        if (done.includes('ACD'))
            return { codResp: 11 };
        if (done.includes('ERM'))
            return { codResp: 13 };
        if (done.includes(accion))
            return { codResp: 7 };
    }
    store.record(doc, accion, holderRut);
    return { codResp: 0 };
}
function listar(ctx, holderRut, p) {
    const key = readKey(p);
    if ('codResp' in key)
        return key;
    if (!REGISTRY_TYPES.includes(key.type))
        return { codResp: 3 };
    const doc = ctx.registro.find(key.issuerRut, key.type, key.folio);
    if (!doc)
        return { codResp: 18 };
    if (doc.receivedAt < REGISTRY_START)
        return { codResp: 10 };
    if (!ctx.registro.actsFor(holderRut, doc.receiverRut) && !ctx.registro.actsFor(holderRut, doc.issuerRut)) {
        return { codResp: 14 };
    }
    const eventos = allEvents(ctx.registro, doc);
    return eventos.length > 0 ? { codResp: 15, eventos } : { codResp: 16 };
}
function cedible(ctx, holderRut, p) {
    const key = readKey(p);
    if ('codResp' in key)
        return key.codResp === 3 ? { codResp: 20 } : key;
    if (!REGISTRY_TYPES.includes(key.type))
        return { codResp: 20 };
    const doc = ctx.registro.find(key.issuerRut, key.type, key.folio);
    if (!doc)
        return { codResp: 18 };
    if (doc.receivedAt < REGISTRY_START)
        return { codResp: 10 };
    if (!ctx.registro.actsFor(holderRut, doc.receiverRut) && !ctx.registro.actsFor(holderRut, doc.issuerRut)) {
        return { codResp: 14 };
    }
    return { codResp: cedibilityOf(ctx, doc) };
}
/** 21–25 for a document the registry knows (the answer of consultarDocDteCedible). */
function cedibilityOf(ctx, doc) {
    const windowEnd = doc.receivedAt.getTime() + EIGHT_DAYS_MS;
    if (doc.notes.some((n) => n.codEvento === 'NCA' && n.at.getTime() < windowEnd))
        return 21;
    const done = ctx.registro.actions(doc).map((e) => e.codEvento);
    if (done.some((c) => CLAIMS.includes(c)))
        return 24;
    if (ctx.clock().getTime() >= windowEnd)
        return 25;
    return done.includes('ERM') ? 23 : 22;
}
/**
 * consultarDocDteCedible's code for a document whoever asks (the registry of cesiones judges
 * an AEC with it): 20 not a cedible type, 18 unknown, 10 before the registry, else 21–25.
 */
export function documentCedibility(ctx, issuerRut, type, folio) {
    if (!REGISTRY_TYPES.includes(type))
        return 20;
    const doc = ctx.registro.find(issuerRut, type, folio);
    if (!doc)
        return 18;
    if (doc.receivedAt < REGISTRY_START)
        return 10;
    return cedibilityOf(ctx, doc);
}
/** The reception date-time, or the text of why there is none (the return is a plain string). */
function fechaRecepcion(ctx, holderRut, p) {
    const key = readKey(p);
    if ('codResp' in key)
        return DESC[key.codResp];
    const doc = ctx.registro.find(key.issuerRut, key.type, key.folio);
    if (!doc)
        return DESC[18];
    if (!ctx.registro.actsFor(holderRut, doc.receiverRut) && !ctx.registro.actsFor(holderRut, doc.issuerRut)) {
        return DESC[14];
    }
    return siiDateTime(doc.receivedAt);
}
export function handleRegistro(ctx, req, url, path, body) {
    if (req.method === 'GET') {
        if (url.searchParams.has('wsdl') || url.searchParams.has('WSDL')) {
            const wsdl = readFileSync(WSDL_FILE, 'utf8').replace(/(<soap11:address\s+location=")[^"]*(")/, `$1http://${req.headers.host ?? url.host}${path}$2`);
            return reply(200, wsdl, 'text/xml; charset=utf-8');
        }
        return htmlReply(200, 'Web Services', 'RegistroReclamoDteServiceEndpointService');
    }
    if (req.method !== 'POST')
        return htmlReply(405, 'Method Not Allowed', `${req.method} is not supported`);
    const token = ctx.auth.check('dte', cookie(req, 'TOKEN'));
    if (!token.ok)
        return htmlReply(401, 'Unauthorized', `TOKEN: ${token.glosa}`);
    try {
        const call = parseCall(decodeXmlBytes(body));
        const holder = token.token.holderRut;
        switch (call.operation) {
            case 'ingresarAceptacionReclamoDoc':
                return xmlReply(200, envelope(call.operation, respuestaTo(ingresar(ctx, holder, call.params), holder)));
            case 'listarEventosHistDoc':
                return xmlReply(200, envelope(call.operation, respuestaTo(listar(ctx, holder, call.params), holder)));
            case 'consultarDocDteCedible':
                return xmlReply(200, envelope(call.operation, respuestaTo(cedible(ctx, holder, call.params), holder)));
            case 'consultarFechaRecepcionSii':
                return xmlReply(200, envelope(call.operation, escapeXml(fechaRecepcion(ctx, holder, call.params))));
            case 'getVersion':
                return xmlReply(200, envelope(call.operation, '1.2'));
            default:
                throw new Fault('Client', `Cannot find dispatch method for {${NAMESPACE}}${call.operation}`);
        }
    }
    catch (e) {
        if (e instanceof Fault)
            return xmlReply(500, fault(e));
        throw e;
    }
}
