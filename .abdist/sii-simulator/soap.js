/**
 * The SII's Apache Axis SOAP services (DTEWS), written by hand: rpc style, one operation
 * element in the Body whose children are the parameters (docs/sii-reference.md §7.2, the vendored WSDLs).
 *
 * Requests are read by local element names: the SII's production WSDLs declare
 * `http://DefaultNamespace`, the certification copies `https://maullin.sii.cl/DTEWS/<X>.jws`,
 * and clients send either. Answers are shaped like the SII's
 * (test/fixtures/sii/responses/*_response.soap.xml): the RESPUESTA document travels as an
 * entity-escaped string inside `<opReturn xsi:type="xsd:string">`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseXml, stripXmlDeclaration } from '../dte/xmldsig.js';
const SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP_ENC = 'http://schemas.xmlsoap.org/soap/encoding/';
const DEFAULT_NAMESPACE = 'http://DefaultNamespace';
export const WSDL_DIR = resolve('resources/sii/wsdl/maullin');
/** The DTEWS services the simulator answers: path → WSDL file and operations. */
export const DTEWS_SERVICES = {
    '/DTEWS/CrSeed.jws': { wsdl: 'CrSeed.wsdl', operations: ['getSeed'] },
    '/DTEWS/GetTokenFromSeed.jws': { wsdl: 'GetTokenFromSeed.wsdl', operations: ['getToken'] },
    '/DTEWS/QueryEstUp.jws': { wsdl: 'QueryEstUp.wsdl', operations: ['getEstUp'] },
    '/DTEWS/QueryEstDte.jws': { wsdl: 'QueryEstDte.wsdl', operations: ['getEstDte'] },
};
export function isDtewsPath(pathname) {
    return Object.hasOwn(DTEWS_SERVICES, pathname);
}
export class SoapFaultError extends Error {
    faultCode;
    constructor(faultCode, message) {
        super(message);
        this.faultCode = faultCode;
    }
}
function elementChildren(el) {
    const out = [];
    for (let c = el.firstChild; c; c = c.nextSibling)
        if (c.nodeType === 1)
            out.push(c);
    return out;
}
/** Reads an rpc call: Envelope/Body/<operation>/<param>…, all matched by local name. */
export function parseSoapCall(text) {
    let envelope;
    try {
        envelope = parseXml(stripXmlDeclaration(text)).documentElement;
    }
    catch (e) {
        throw new SoapFaultError('Client', `org.xml.sax.SAXException: ${e.message}`);
    }
    if (envelope?.localName !== 'Envelope')
        throw new SoapFaultError('Client', 'No SOAP Envelope');
    const body = elementChildren(envelope).find((e) => e.localName === 'Body');
    const call = body ? elementChildren(body)[0] : undefined;
    if (!call)
        throw new SoapFaultError('Client', 'No operation in the SOAP Body');
    const params = new Map();
    for (const p of elementChildren(call))
        params.set(p.localName ?? p.nodeName, p.textContent ?? '');
    return { operation: call.localName ?? call.nodeName, namespace: call.namespaceURI || null, params };
}
/** Escapes text as the SII's Axis writes the returned string (quotes included). */
function escapeSoapString(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
/** The Axis rpc response carrying `returned` (a RESPUESTA document) as an escaped string. */
export function soapResponse(call, returned) {
    const ns = call.namespace ?? DEFAULT_NAMESPACE;
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' +
        `<soapenv:Envelope xmlns:soapenv="${SOAP_ENV}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ` +
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n <soapenv:Body>\n' +
        `  <ns1:${call.operation}Response soapenv:encodingStyle="${SOAP_ENC}" xmlns:ns1="${escapeSoapString(ns)}">\n` +
        `   <${call.operation}Return xsi:type="xsd:string">${escapeSoapString(returned)}</${call.operation}Return>\n` +
        `  </ns1:${call.operation}Response>\n </soapenv:Body>\n</soapenv:Envelope>`);
}
/** A SOAP 1.1 Fault, as Axis answers a malformed call (with HTTP 500). */
export function soapFault(error) {
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' +
        `<soapenv:Envelope xmlns:soapenv="${SOAP_ENV}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ` +
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n <soapenv:Body>\n  <soapenv:Fault>\n' +
        `   <faultcode>soapenv:${error.faultCode}</faultcode>\n` +
        `   <faultstring>${escapeSoapString(error.message)}</faultstring>\n` +
        '  </soapenv:Fault>\n </soapenv:Body>\n</soapenv:Envelope>');
}
/** The vendored WSDL of a service with its soap:address pointing at this simulator. */
export function wsdlFor(path, baseUrl) {
    const wsdl = readFileSync(resolve(WSDL_DIR, DTEWS_SERVICES[path].wsdl), 'utf8');
    return wsdl.replace(/(<wsdlsoap:address\s+location=")[^"]*(")/, `$1${baseUrl}${path}$2`);
}
