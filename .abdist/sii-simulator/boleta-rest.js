import { santiagoTimestamp } from '../dte/chile-time.js';
import { decodeXmlBytes } from '../dte/xml-text.js';
import { screenEnvelope } from './envelope-checks.js';
import { cookie, hasContentLength, hasProgUserAgent, jsonReply, mediaType, parseRut, reply, textReply, } from './http-util.js';
import { fieldOf, parseMultipart } from './multipart.js';
import { documentStatus, restEnvioStatus } from './queries.js';
import { seedRespuesta, tokenRespuesta } from './respuesta.js';
export const BOLETA_PREFIX = '/recursos/v1';
const unauthenticated = (reason) => textReply(401, 'NO ESTA AUTENTICADO', { 'X-Sim-Reason': reason });
function authenticate(ctx, req) {
    const token = ctx.auth.check('boleta', cookie(req, 'TOKEN'));
    return token.ok ? { holderRut: token.token.holderRut } : unauthenticated(`token: ${token.glosa}`);
}
const isReply = (x) => 'status' in x && 'body' in x;
function envio(ctx, req, body) {
    if (!hasProgUserAgent(req))
        return unauthenticated('User-Agent without PROG 1.0');
    const auth = authenticate(ctx, req);
    if (isReply(auth))
        return auth;
    if (!hasContentLength(req))
        return textReply(411, 'Length Required');
    const parts = parseMultipart(body, req.headers['content-type']);
    const archivo = parts?.find((p) => p.name === 'archivo');
    if (!parts || !archivo || archivo.data.length === 0)
        return textReply(400, 'falta archivo');
    const senderRut = parseRut(fieldOf(parts, 'rutSender'), fieldOf(parts, 'dvSender'));
    const companyRut = parseRut(fieldOf(parts, 'rutCompany'), fieldOf(parts, 'dvCompany'));
    if (!companyRut)
        return textReply(400, 'rutCompany invalido');
    if (senderRut !== auth.holderRut) {
        return textReply(403, 'rutSender no corresponde al usuario autenticado', {
            'X-Sim-Reason': 'rutSender is not the token holder',
        });
    }
    const upload = ctx.processor.receive({
        channel: 'boleta-rest',
        bytes: archivo.data,
        filename: archivo.filename ?? '',
        senderRut,
        companyRut,
        screening: screenEnvelope(archivo.data, ['boleta']),
    });
    return jsonReply(200, {
        rut_emisor: upload.companyRut,
        rut_envia: upload.senderRut,
        trackid: Number(upload.trackId),
        fecha_recepcion: santiagoTimestamp(upload.receivedAt).replace('T', ' '),
        estado: 'REC',
        file: upload.filename,
    });
}
function envioStatus(ctx, req, key) {
    const auth = authenticate(ctx, req);
    if (isReply(auth))
        return auth;
    const m = /^(\d{1,8})-([\dkK])-(\d{1,20})$/.exec(key);
    const company = m ? parseRut(m[1], m[2]) : null;
    const upload = m ? ctx.processor.find('boleta-rest', m[3]) : undefined;
    if (!upload || upload.companyRut !== company)
        return textReply(404, 'Envio no encontrado');
    return jsonReply(200, restEnvioStatus(upload));
}
/** The quirk of the live API: a missing parameter is a 200 "JSON" whose body is plain text. */
const missing = (name) => reply(200, `falta ${name}`, 'application/json;charset=UTF-8');
function boletaStatus(ctx, req, url, key) {
    const auth = authenticate(ctx, req);
    if (isReply(auth))
        return auth;
    const m = /^(\d{1,8})-([\dkK])-(\d{1,3})-(\d{1,10})$/.exec(key);
    const issuerRut = m ? parseRut(m[1], m[2]) : null;
    if (!m || !issuerRut)
        return textReply(400, 'parametros invalidos');
    const q = url.searchParams;
    for (const name of ['rut_receptor', 'dv_receptor', 'monto', 'fechaEmision']) {
        if (!q.get(name))
            return missing(name);
    }
    const receiverRut = parseRut(q.get('rut_receptor'), q.get('dv_receptor'));
    const date = /^(\d{2})-(\d{2})-(\d{4})$/.exec(q.get('fechaEmision'));
    const amount = q.get('monto');
    if (!receiverRut || !date || !/^\d{1,18}$/.test(amount))
        return textReply(400, 'parametros invalidos');
    const answer = documentStatus(ctx.processor.registry, {
        issuerRut,
        type: Number(m[3]),
        folio: Number(m[4]),
        receiverRut,
        date: `${date[3]}-${date[2]}-${date[1]}`,
        amount: Number(amount),
    });
    return jsonReply(200, { codigo: answer.code, descripcion: answer.glosa });
}
/** Routes a request under /recursos/v1 (`rest` is the path after the prefix). */
export function handleBoletaRest(ctx, req, url, rest, body) {
    const method = req.method ?? 'GET';
    if (rest === '/boleta.electronica.semilla' && method === 'GET') {
        return reply(200, seedRespuesta(ctx.auth.issueSeed('boleta')), 'application/xml;charset=UTF-8');
    }
    if (rest === '/boleta.electronica.token' && method === 'POST') {
        if (mediaType(req) !== 'application/xml')
            return textReply(415, 'Content-Type debe ser application/xml');
        const answer = tokenRespuesta(ctx.auth.exchange('boleta', decodeXmlBytes(body)));
        return reply(200, answer, 'application/xml;charset=UTF-8');
    }
    if (rest === '/boleta.electronica.envio' && method === 'POST')
        return envio(ctx, req, body);
    const envioKey = /^\/boleta\.electronica\.envio\/([^/]+)$/.exec(rest)?.[1];
    if (envioKey && method === 'GET')
        return envioStatus(ctx, req, envioKey);
    const boletaKey = /^\/boleta\.electronica\/([^/]+)\/estado$/.exec(rest)?.[1];
    if (boletaKey && method === 'GET')
        return boletaStatus(ctx, req, url, boletaKey);
    return textReply(404, 'Not Found');
}
