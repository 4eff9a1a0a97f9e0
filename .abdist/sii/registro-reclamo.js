import { instantOfSantiagoTimestamp } from '../dte/chile-time.js';
import { splitRut } from '../dte/rut.js';
import { escapeXml } from '../dte/xml-text.js';
import { decodeBody, snippet, unexpectedStatus } from './http.js';
import { TokenRejected } from './session.js';
import { childByLocalName, childElements, parseAnswerXml } from './soap.js';
import { SiiProtocolError, SiiUnavailableError } from './types.js';
/** The service's namespace (WSDL targetNamespace; its operation elements are qualified by it). */
const REGISTRO_NAMESPACE = 'http://ws.registroreclamodte.diii.sdi.sii.cl';
/**
 * The certification endpoint ([WSRR] "WSDL del Web Service"; production is
 * https://ws1.sii.cl/WSREGISTRORECLAMODTE/registroreclamodteservice): the paths differ between
 * the two hosts, so the setting SII_REGISTRO_URL is the whole URL.
 */
const REGISTRO_CERTIFICATION_URL = 'https://ws2.sii.cl/WSREGISTRORECLAMODTECERT/registroreclamodteservice';
/**
 * Every codResp of the manual ([WSRR] "Parámetros de salida" of each operation), with its
 * meaning in Spanish as the SII words it ("XXX" stands for the earlier claim; the SII fills it
 * in descResp). 27 is not in the manual: older clients know it as a cash or free factura,
 * which has no events (docs/claims-registry.md §2).
 */
export const REGISTRO_CODES = {
    0: { glosa: 'Acción completada OK', outcome: 'ok' },
    1: { glosa: 'Rut Emisor erróneo', outcome: 'invalid' },
    2: { glosa: 'Número de folio erróneo', outcome: 'invalid' },
    3: { glosa: 'Tipo de documento no corresponde', outcome: 'invalid' },
    4: { glosa: 'Acción inválida', outcome: 'invalid' },
    5: { glosa: 'DTE ya está reclamado', outcome: 'refused' },
    6: { glosa: 'No se puede acusar recibo de mercadería de un DTE previamente reclamado', outcome: 'refused' },
    7: { glosa: 'Evento registrado previamente', outcome: 'already' },
    8: { glosa: 'Pasados 8 días después de la recepción no es posible registrar reclamos o eventos', outcome: 'refused' },
    9: { glosa: 'No existen registros de acuerdo a los parámetros ingresados', outcome: 'info' },
    10: {
        glosa: 'Documento no emitido y/o recibido en el SII desde el 14 de enero de 2017 en adelante',
        outcome: 'refused',
    },
    11: { glosa: 'No se puede reclamar un DTE previamente aceptado', outcome: 'refused' },
    12: { glosa: 'No se puede dar por aceptado un DTE previamente reclamado', outcome: 'refused' },
    13: {
        glosa: 'No se puede reclamar un DTE previamente registrado con acuse de recibo de mercaderías',
        outcome: 'refused',
    },
    14: { glosa: 'Acción autorizada sólo para la empresa receptora o emisora', outcome: 'refused' },
    15: { glosa: 'Listado de eventos del documento', outcome: 'info' },
    16: { glosa: 'Documento no presenta eventos de reclamos o acuse de recibo', outcome: 'info' },
    17: { glosa: 'Acción autorizada sólo para la empresa receptora', outcome: 'refused' },
    18: { glosa: 'Documento no ha sido recibido', outcome: 'refused' },
    19: { glosa: 'Reclamo de mercaderías ya realizado', outcome: 'refused' },
    20: { glosa: 'Tipo de documento no es cedible', outcome: 'info' },
    21: {
        glosa: 'DTE no cedible, referenciado por nota de crédito de anulación del emisor dentro de los primeros 8 días',
        outcome: 'info',
    },
    22: { glosa: 'No existe registro de reclamo o de recepción de mercaderías o servicios', outcome: 'info' },
    23: { glosa: 'DTE cedible, sin reclamos', outcome: 'info' },
    24: { glosa: 'DTE no cedible, reclamado por el receptor', outcome: 'info' },
    25: { glosa: 'DTE cedible: pasados 8 días se entiende dado el acuse de recibo', outcome: 'info' },
    27: { glosa: 'Factura al contado o gratuita: no admite eventos', outcome: 'info' },
};
/** The meaning of a code, or a plain statement that the manual does not list it. */
function registroMeaning(codResp) {
    return REGISTRO_CODES[codResp] ?? { glosa: `Código ${codResp} no documentado por el SII`, outcome: 'refused' };
}
/** Registers an acceptance, a receipt of goods or a claim on a received document. */
export function ingresarAceptacionReclamoDoc(caller, key, accion) {
    return caller.sii.registro.ingresar(caller.cert, key, accion);
}
/** The events recorded on a document (the receiver's actions, NCA/ENC): 15 with events, 16 without. */
export function listarEventosHistDoc(caller, key) {
    return caller.sii.registro.listarEventos(caller.cert, key);
}
/** Whether the document can be ceded (20–25). */
export function consultarDocDteCedible(caller, key) {
    return caller.sii.registro.consultarCedible(caller.cert, key);
}
/** When the SII received the document: the start of the 8 days. */
export function consultarFechaRecepcionSii(caller, key) {
    return caller.sii.registro.consultarFechaRecepcion(caller.cert, key);
}
// ---------------------------------------------------------------------------------------------
// The wire
// ---------------------------------------------------------------------------------------------
/** An rpc/literal request: unqualified, untyped parameters in the WSDL's parameterOrder. */
export function registroRequest(operation, params) {
    const body = params.map(([name, value]) => `      <${name}>${escapeXml(value)}</${name}>`).join('\n');
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' +
        `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ws="${REGISTRO_NAMESPACE}">\n` +
        '  <soapenv:Body>\n' +
        `    <ws:${operation}>\n${body}\n    </ws:${operation}>\n` +
        '  </soapenv:Body>\n</soapenv:Envelope>\n');
}
/** rutEmisor, dvEmisor, tipoDoc, folio: the four parameters every operation starts with. */
function keyParams(key) {
    const { body, dv } = splitRut(key.rutEmisor);
    return [
        ['rutEmisor', body],
        ['dvEmisor', dv.toUpperCase()],
        ['tipoDoc', String(key.tipoDoc)],
        ['folio', String(key.folio)],
    ];
}
/** A SOAP Fault whose text says the session is not valid: the token is to be renewed. */
const TOKEN_FAULT = /token|autentica|sesi[oó]n/i;
/**
 * The `return` element of an rpc/literal answer (Envelope/Body/<op>Response/return), by local
 * names. A Fault is a TokenRejected when it is about the session, else a SiiProtocolError.
 */
function returnElement(op, xml) {
    const envelope = parseAnswerXml(op, xml);
    const body = envelope.localName === 'Envelope' ? childByLocalName(envelope, 'Body') : null;
    if (!body)
        throw new SiiProtocolError(`${op}: the answer is not a SOAP envelope`);
    const response = childElements(body)[0];
    if (!response)
        throw new SiiProtocolError(`${op}: empty SOAP Body`);
    if (response.localName === 'Fault') {
        const fault = (childByLocalName(response, 'faultstring')?.textContent ?? '').trim();
        if (TOKEN_FAULT.test(fault))
            return new TokenRejected(`SOAP Fault ${fault}`);
        throw new SiiProtocolError(`${op}: SOAP Fault ${fault}`.trim());
    }
    const value = childByLocalName(response, 'return');
    if (!value)
        throw new SiiProtocolError(`${op}: ${response.localName} carries no return element`);
    return value;
}
const text = (el) => (el?.textContent ?? '').trim();
/** respuestaTo { codResp, descResp, listaEventosDoc*, rutToken } → our answer. */
function readRespuestaTo(op, el) {
    const raw = text(childByLocalName(el, 'codResp'));
    if (!/^-?\d+$/.test(raw))
        throw new SiiProtocolError(`${op}: codResp ${JSON.stringify(raw)} is not a number`);
    const codResp = Number(raw);
    const meaning = registroMeaning(codResp);
    const rutToken = text(childByLocalName(el, 'rutToken'));
    // One listaEventosDoc or many: each element is one event (odoo/odoo#74520 read only one shape).
    const eventos = childElements(el)
        .filter((e) => e.localName === 'listaEventosDoc')
        .map(readEvento);
    return {
        codResp,
        descResp: text(childByLocalName(el, 'descResp')),
        glosa: meaning.glosa,
        outcome: meaning.outcome,
        rutToken: rutToken === '' ? null : rutToken,
        eventos,
    };
}
const EVENTOS = ['ACD', 'RCD', 'ERM', 'RFP', 'RFT', 'NCA', 'ENC'];
function readEvento(el) {
    const codEvento = text(childByLocalName(el, 'codEvento'));
    const rut = text(childByLocalName(el, 'rutResponsable'));
    const dv = text(childByLocalName(el, 'dvResponsable'));
    const fecha = text(childByLocalName(el, 'fechaEvento'));
    return {
        accion: (EVENTOS.includes(codEvento) ? codEvento : 'OTRO'),
        codEvento,
        descEvento: text(childByLocalName(el, 'descEvento')),
        rutResponsable: rut && dv ? `${rut}-${dv.toUpperCase()}` : rut,
        fecha,
        at: parseSiiDateTime(fecha),
    };
}
/** "DD-MM-YYYY HH:MM:SS" (Santiago) → the instant; null for anything else. */
export function parseSiiDateTime(value) {
    const m = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(value.trim());
    return m ? instantOfSantiagoTimestamp(`${m[3]}-${m[2]}-${m[1]}T${m[4]}:${m[5]}:${m[6]}`) : null;
}
/**
 * The registry over the session: each operation is one POST of an rpc/literal envelope with
 * the DTEWS token as the cookie; `authenticate` obtains a token (the DTEWS seed/token pair).
 */
export function createRegistroAdapter(session, authenticate) {
    const { config, exchange, withToken, timed } = session;
    const url = config.SII_REGISTRO_URL ?? REGISTRO_CERTIFICATION_URL;
    async function call(cert, op, params) {
        return withToken('dte', cert, op, () => authenticate(cert), async (token) => {
            const answer = await exchange({
                op,
                method: 'POST',
                url,
                headers: {
                    'Content-Type': 'text/xml; charset=utf-8',
                    SOAPAction: '""',
                    Accept: 'text/xml',
                    Cookie: `TOKEN=${token}`,
                },
                body: Buffer.from(registroRequest(op, params), 'utf8'),
                // Every operation is safe to repeat: the queries change nothing, and a repeated
                // registration is answered 7 (module comment).
                readOnly: true,
            });
            if (answer.status === 401 || answer.status === 403)
                return new TokenRejected(`HTTP ${answer.status}`);
            if (answer.status !== 200)
                throw unexpectedStatus(op, answer);
            const body = decodeBody(answer);
            if (body.trim() === '')
                throw new SiiProtocolError(`${op}: empty answer`);
            return returnElement(op, body);
        });
    }
    async function respuesta(cert, op, params) {
        const answer = readRespuestaTo(op, await call(cert, op, params));
        if (answer.codResp === -1) {
            throw new SiiUnavailableError(`${op}: codResp -1 ${answer.descResp || 'Error interno'}`.trim());
        }
        return answer;
    }
    const fields = (op, key) => ({
        op,
        service: 'registro',
        type: key.tipoDoc,
        folio: String(key.folio),
    });
    return {
        ingresar: (cert, key, accion) => timed(fields('ingresarAceptacionReclamoDoc', key), async () => {
            const { eventos: _none, ...answer } = await respuesta(cert, 'ingresarAceptacionReclamoDoc', [
                ...keyParams(key),
                ['accionDoc', accion],
            ]);
            return { ...answer, registered: answer.codResp === 0 || answer.codResp === 7 };
        }),
        listarEventos: (cert, key) => timed(fields('listarEventosHistDoc', key), () => respuesta(cert, 'listarEventosHistDoc', keyParams(key))),
        consultarCedible: (cert, key) => timed(fields('consultarDocDteCedible', key), async () => {
            const { eventos: _none, ...answer } = await respuesta(cert, 'consultarDocDteCedible', keyParams(key));
            return answer;
        }),
        consultarFechaRecepcion: (cert, key) => timed(fields('consultarFechaRecepcionSii', key), async () => {
            const op = 'consultarFechaRecepcionSii';
            // The return is a plain string: "DD-MM-YYYY HH:MM:SS", or a text when there is no date.
            const value = text(await call(cert, op, keyParams(key)));
            const at = parseSiiDateTime(value);
            if (at)
                return { codResp: 0, descResp: value, fechaRecepcion: at };
            return { codResp: 18, descResp: snippet(value, 70) || REGISTRO_CODES[18].glosa, fechaRecepcion: null };
        }),
    };
}
