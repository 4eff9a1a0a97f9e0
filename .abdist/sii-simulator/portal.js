import { santiagoTimestamp } from '../dte/chile-time.js';
import { STAMPABLE_TYPES } from './caf-issuer.js';
import { cookie, htmlReply, mediaType, parseRut, reply } from './http-util.js';
export { CafIssuer, DEFAULT_MAX_FOLIOS_PER_REQUEST, SIMULATOR_CAF_IDK } from './caf-issuer.js';
const portalError = (message) => htmlReply(200, 'Timbraje Electronico - Error', message);
export function handleGeneraArchivo(ctx, req, body) {
    if (req.method !== 'POST')
        return htmlReply(405, 'Method Not Allowed', 'of_genera_archivo only takes POST');
    if (!req.headers.referer)
        return htmlReply(500, 'Internal Server Error', 'Error interno del servidor');
    const token = ctx.auth.check('dte', cookie(req, 'TOKEN'));
    if (!token.ok)
        return htmlReply(200, 'Autenticacion', 'NO ESTA AUTENTICADO. Ingrese con su certificado digital.');
    if (mediaType(req) !== 'application/x-www-form-urlencoded')
        return portalError('Formulario invalido.');
    const form = new URLSearchParams(body.toString('latin1'));
    const rut = parseRut(form.get('RUT_EMP') ?? '', form.get('DV_EMP') ?? '');
    if (!rut)
        return portalError('RUT de la empresa invalido.');
    const type = Number(form.get('COD_DOCTO'));
    if (!STAMPABLE_TYPES.includes(type))
        return portalError('Tipo de documento no autorizado.');
    const count = Number(form.get('CANT_DOCTOS'));
    if (!Number.isInteger(count) || count < 1 || count > ctx.cafs.maxPerRequest) {
        return portalError(`NO SE AUTORIZA TIMBRAJE ELECTRONICO: la cantidad de folios debe estar entre 1 y ${ctx.cafs.maxPerRequest}.`);
    }
    const caf = ctx.cafs.issue(rut, type, count);
    const stamp = santiagoTimestamp(ctx.clock()).replace(/\D/g, '').slice(0, 12);
    const filename = `FoliosSII${rut.split('-')[0]}${type}${caf.from}${stamp}.xml`;
    return reply(200, caf.file, 'text/xml; charset=ISO-8859-1', {
        'Content-Disposition': `attachment; filename=${filename}`,
    });
}
