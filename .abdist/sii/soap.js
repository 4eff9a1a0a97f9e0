import { escapeXml } from '../dte/xml-text.js';
import { parseXml, stripXmlDeclaration } from '../dte/xmldsig.js';
import { SiiProtocolError } from './types.js';
export const SOAP_CONTENT_TYPE = 'text/xml; charset=utf-8';
const ELEMENT_NODE = 1;
/**
 * A request envelope for `operation` of the service at `serviceUrl` (also its namespace, as
 * in the manual's example, unless `namespace` is given: wsRPETCConsulta's manual shows
 * `http://DefaultNamespace`), with string parameters in the order of the WSDL's parameterOrder.
 * Values are escaped as text content; a signed XML (getToken's pszXml) travels escaped too.
 */
export function soapRequest(serviceUrl, operation, params, namespace = serviceUrl) {
    const body = params.map(([name, value]) => `      <${name} xsi:type="xsd:string">${escapeXml(value)}</${name}>`);
    const call = body.length === 0
        ? `    <m:${operation} xmlns:m="${escapeXml(namespace)}"/>`
        : `    <m:${operation} xmlns:m="${escapeXml(namespace)}">\n${body.join('\n')}\n    </m:${operation}>`;
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" ' +
        'xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" ' +
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ' +
        'SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">\n' +
        `  <SOAP-ENV:Body>\n${call}\n  </SOAP-ENV:Body>\n</SOAP-ENV:Envelope>\n`);
}
export function childElements(node) {
    const out = [];
    for (let c = node.firstChild; c; c = c.nextSibling)
        if (c.nodeType === ELEMENT_NODE)
            out.push(c);
    return out;
}
export function childByLocalName(node, localName) {
    return childElements(node).find((e) => e.localName === localName) ?? null;
}
/** Parses XML text, turning parser errors into SiiProtocolError. */
export function parseAnswerXml(op, xml) {
    try {
        const root = parseXml(stripXmlDeclaration(xml)).documentElement;
        if (!root)
            throw new Error('no root element');
        return root;
    }
    catch (e) {
        throw new SiiProtocolError(`${op}: the answer is not well-formed XML (${e.message})`, { cause: e });
    }
}
/**
 * The string returned by an rpc operation: Envelope/Body/<op>Response/<op>Return, by local
 * names. A SOAP Fault, or any other shape, is a SiiProtocolError (faults come with HTTP 500,
 * which the transport has already classified; a fault with 200 is not the SII's protocol).
 */
export function soapReturnValue(op, envelopeXml) {
    const envelope = parseAnswerXml(op, envelopeXml);
    const body = envelope.localName === 'Envelope' ? childByLocalName(envelope, 'Body') : null;
    if (!body)
        throw new SiiProtocolError(`${op}: the answer is not a SOAP envelope`);
    const response = childElements(body)[0];
    if (!response)
        throw new SiiProtocolError(`${op}: empty SOAP Body`);
    if (response.localName === 'Fault') {
        const fault = childByLocalName(response, 'faultstring')?.textContent ?? '';
        throw new SiiProtocolError(`${op}: SOAP Fault ${fault.trim()}`.trim());
    }
    const value = childElements(response)[0];
    if (!value)
        throw new SiiProtocolError(`${op}: ${response.localName} carries no return value`);
    return value.textContent ?? '';
}
