import { decodeXmlBytes } from '../dte/xml-text.js';
import { htmlReply, parseRut, reply, xmlReply } from './http-util.js';
import { documentStatus, estDteErrorRespuesta, estDteRespuesta, estUpErrorRespuesta, estUpRespuesta, } from './queries.js';
import { seedRespuesta, tokenErrorRespuesta, tokenRespuesta } from './respuesta.js';
import { DTEWS_SERVICES, parseSoapCall, SoapFaultError, soapFault, soapResponse, wsdlFor, } from './soap.js';
const param = (p, name) => (p.get(name) ?? '').trim();
function getEstUp(ctx, p) {
    const token = ctx.auth.check('dte', param(p, 'Token'));
    if (!token.ok)
        return tokenErrorRespuesta(token.estado, token.glosa, 'bare');
    const company = parseRut(param(p, 'RutCompania'), param(p, 'DvCompania'));
    if (!company)
        return estUpErrorRespuesta(1);
    const upload = ctx.processor.find('dteupload', param(p, 'TrackId'));
    if (!upload)
        return estUpErrorRespuesta(2);
    if (upload.companyRut !== company)
        return estUpErrorRespuesta(1);
    return estUpRespuesta(upload);
}
/** FechaEmisionDte DDMMAAAA → YYYY-MM-DD (docs/sii-reference.md §7.5). */
function ddmmaaaa(text) {
    const m = /^(\d{2})(\d{2})(\d{4})$/.exec(text);
    return m ? `${m[3]}-${m[2]}-${m[1]}` : null;
}
function getEstDte(ctx, p) {
    const attention = ctx.nextAttentionNumber();
    const token = ctx.auth.check('dte', param(p, 'Token'));
    if (!token.ok)
        return tokenErrorRespuesta(token.estado, token.glosa, 'utf8');
    const consultant = parseRut(param(p, 'RutConsultante'), param(p, 'DvConsultante'));
    if (consultant !== token.token.holderRut) {
        return estDteErrorRespuesta('-3', 'RUT Consultante no corresponde al usuario autenticado', attention);
    }
    const issuerRut = parseRut(param(p, 'RutCompania'), param(p, 'DvCompania'));
    const receiverRut = parseRut(param(p, 'RutReceptor'), param(p, 'DvReceptor'));
    const type = param(p, 'TipoDte');
    const folio = param(p, 'FolioDte');
    const date = ddmmaaaa(param(p, 'FechaEmisionDte'));
    const amount = param(p, 'MontoDte');
    const bad = [
        !issuerRut && 'RutCompania/DvCompania',
        !receiverRut && 'RutReceptor/DvReceptor',
        !/^\d{1,3}$/.test(type) && 'TipoDte',
        !/^\d{1,10}$/.test(folio) && 'FolioDte',
        !date && 'FechaEmisionDte (DDMMAAAA)',
        !/^\d{1,18}$/.test(amount) && 'MontoDte',
    ].filter((b) => typeof b === 'string');
    if (bad.length > 0 || !issuerRut || !receiverRut || !date) {
        return estDteErrorRespuesta('-1', `Parametros invalidos: ${bad.join(', ')}`, attention);
    }
    const answer = documentStatus(ctx.processor.registry, {
        issuerRut,
        type: Number(type),
        folio: Number(folio),
        receiverRut,
        date,
        amount: Number(amount),
    });
    return estDteRespuesta(answer, attention);
}
function dispatch(ctx, path, call) {
    const allowed = DTEWS_SERVICES[path].operations;
    if (!allowed.includes(call.operation)) {
        throw new SoapFaultError('Client', `No such operation '${call.operation}'`);
    }
    switch (call.operation) {
        case 'getSeed':
            return seedRespuesta(ctx.auth.issueSeed('dte'));
        case 'getToken':
            return tokenRespuesta(ctx.auth.exchange('dte', call.params.get('pszXml') ?? ''));
        case 'getEstUp':
            return getEstUp(ctx, call.params);
        default:
            return getEstDte(ctx, call.params);
    }
}
export function handleDtews(ctx, req, url, path, body) {
    if (req.method === 'GET') {
        if (url.searchParams.has('wsdl') || url.searchParams.has('WSDL')) {
            return reply(200, wsdlFor(path, `http://${req.headers.host ?? url.host}`), 'text/xml; charset=utf-8');
        }
        // What Axis answers a browser.
        return htmlReply(200, path.slice(path.lastIndexOf('/') + 1), 'Hi there, this is an AXIS service!');
    }
    if (req.method !== 'POST')
        return htmlReply(405, 'Method Not Allowed', `${req.method} is not supported`);
    try {
        const call = parseSoapCall(decodeXmlBytes(body));
        return xmlReply(200, soapResponse(call, dispatch(ctx, path, call)));
    }
    catch (e) {
        if (e instanceof SoapFaultError)
            return xmlReply(500, soapFault(e));
        throw e;
    }
}
