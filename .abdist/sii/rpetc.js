import { splitRut } from '../dte/rut.js';
import { readRespuesta } from './answers.js';
import { decodeBody, joinUrl, unexpectedStatus } from './http.js';
import { buildMultipart } from './multipart.js';
import { TokenRejected } from './session.js';
import { childByLocalName, parseAnswerXml, SOAP_CONTENT_TYPE, soapRequest, soapReturnValue } from './soap.js';
import { SiiAmbiguousError, SiiProtocolError, SiiUnavailableError } from './types.js';
/** The certification host; production is https://palena.sii.cl (both manuals, "Direcciones"). */
const RPETC_CERTIFICATION_URL = 'https://maullin.sii.cl';
const UPLOAD_PATH = '/cgi_rtc/RTC/RTCAnotEnvio.cgi';
const CONSULTA_PATH = '/DTEWS/services/wsRPETCConsulta';
/** The WSDL's targetNamespace, which the manual's requests use for the operation element. */
const CONSULTA_NAMESPACE = 'http://DefaultNamespace';
/** STATUS of RECEPCIONAEC (upload manual §3.2), in Spanish as the SII words it. */
export const RPETC_UPLOAD_STATUS = {
    0: 'Envío recibido OK',
    1: 'Rut usuario autenticado no tiene permiso para enviar en empresa cedente',
    2: 'Error en tamaño del archivo enviado',
    4: 'Faltan parámetros de entrada',
    5: 'Error de autenticación: TOKEN inválido, no existe o está expirado',
    6: 'Empresa no es DTE',
    9: 'Error interno',
    10: 'Error interno',
};
/** ESTADO_ENVIO of getEstEnvio (status manual §3.2.1): meaning, and where the envío stands. */
export const ESTADO_ENVIO = {
    UPL: { glosa: 'Envío en proceso de upload', final: false, accepted: false },
    RCP: { glosa: 'Envío recibido', final: false, accepted: false },
    RSC: { glosa: 'Rechazado por error en schema', final: true, accepted: false },
    SOK: { glosa: 'Schema validado', final: false, accepted: false },
    RFS: { glosa: 'Rechazado por error en firma del sobre', final: true, accepted: false },
    FSO: { glosa: 'Firma del sobre validada', final: false, accepted: false },
    RCR: { glosa: 'Rechazado por error en carátula', final: true, accepted: false },
    COK: { glosa: 'Carátula OK', final: false, accepted: false },
    VDC: { glosa: 'Validación del documento cedido en curso', final: false, accepted: false },
    RDC: { glosa: 'Rechazado: documento cedido inválido', final: true, accepted: false },
    VCS: { glosa: 'Validación de las cesiones en curso', final: false, accepted: false },
    RCS: { glosa: 'Rechazado: cesión inválida', final: true, accepted: false },
    EOK: { glosa: 'Envío aceptado: cesión anotada en el registro', final: true, accepted: true },
    EAN: { glosa: 'Envío anulado', final: true, accepted: false },
};
/** RESP_HDR ESTADO of every wsRPETCConsulta operation (status manual §3.3). */
export const RPETC_HEADER_CODES = {
    0: 'Requerimiento recibido OK',
    1: 'Error de datos',
    2: 'No se encontró información',
    3: 'Error de autenticación: token inactivo',
    4: 'Error de autenticación: token no existe',
    5: 'Error de autenticación',
    6: 'Error interno',
    7: 'Error interno',
    8: 'Error interno',
    9: 'Error de autenticación: no se pueden obtener permisos',
    10: 'Error de permisos: el usuario conectado no tiene permiso en la empresa',
    [-15]: 'Error de permisos: la empresa relacionada no está vinculada con el documento consultado',
};
const isTokenHeader = (code) => code === 3 || code === 4 || code === 5;
const isInternalHeader = (code) => code === 6 || code === 7 || code === 8;
// ---------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------
const text = (el) => (el?.textContent ?? '').trim();
/** `<RECEPCIONAEC><RUTSENDER/><RUTCOMPANY/><FILE/><TIMESTAMP/><STATUS/>[<TRACKID/>]</RECEPCIONAEC>`. */
export function readRecepcionAec(xml) {
    const op = 'RTCAnotEnvio';
    const root = parseAnswerXml(op, xml);
    if (root.localName !== 'RECEPCIONAEC')
        throw new SiiProtocolError(`${op}: expected RECEPCIONAEC, got ${root.localName}`);
    const raw = text(childByLocalName(root, 'STATUS'));
    if (!/^-?\d+$/.test(raw))
        throw new SiiProtocolError(`${op}: STATUS ${JSON.stringify(raw)} is not a number`);
    const status = Number(raw);
    const trackId = text(childByLocalName(root, 'TRACKID'));
    if (status === 0 && !/^\d+$/.test(trackId))
        throw new SiiProtocolError(`${op}: STATUS 0 without a numeric TRACKID`);
    return {
        status,
        ...(status === 0 && { trackId }),
        glosa: RPETC_UPLOAD_STATUS[status] ?? `STATUS ${status} no documentado por el SII`,
        accepted: status === 0,
    };
}
function readRpetcRespuesta(op, xml) {
    const r = readRespuesta(op, xml);
    const raw = r.hdr.get('ESTADO');
    if (!/^-?\d+$/.test(raw))
        throw new SiiProtocolError(`${op}: ESTADO ${JSON.stringify(raw)} is not a number`);
    const code = Number(raw);
    const glosa = r.hdr.get('GLOSA') || RPETC_HEADER_CODES[code] || `ESTADO ${code} no documentado por el SII`;
    return { header: { code, glosa }, body: new Map(r.body) };
}
/** getEstEnvio's RESPUESTA: header, then TRACKID, ESTADO_ENVIO, DESC_ESTADO. */
export function readEstEnvioAnswer(xml) {
    const { header, body } = readRpetcRespuesta('getEstEnvio', xml);
    if (header.code !== 0)
        return { estado: null, glosa: header.glosa, final: false, accepted: false, header };
    const estado = body.get('ESTADO_ENVIO') ?? '';
    if (!/^[A-Z]{3}$/.test(estado)) {
        throw new SiiProtocolError(`getEstEnvio: ESTADO_ENVIO ${JSON.stringify(estado)} is not a state`);
    }
    const meaning = ESTADO_ENVIO[estado];
    return {
        estado,
        glosa: body.get('DESC_ESTADO') || meaning?.glosa || `Estado ${estado} no documentado por el SII`,
        // A state the manual does not list is reported as still in progress: polling goes on.
        final: meaning?.final ?? false,
        accepted: meaning?.accepted ?? false,
        header,
    };
}
/** getEstCesion / getEstCesionRelac's RESPUESTA: 0 = ceded, with the details when asked for. */
export function readEstCesionAnswer(op, xml) {
    const { header, body } = readRpetcRespuesta(op, xml);
    const field = (name) => body.get(name) || undefined;
    const holderRut = field('RUT_TENEDOR');
    const lastAnnotation = field('FECHA_ULT_ANOT');
    const decJurada = field('DEC_JURADA');
    const collectorRut = field('RUT_COBRANZA');
    const collectorAddress = field('DIR_COBRANZA');
    return {
        code: header.code,
        glosa: header.glosa,
        cedido: header.code === 0,
        ...(holderRut && { holderRut }),
        ...(lastAnnotation && { lastAnnotation }),
        ...(decJurada && { declaracionJurada: /^EXISTE$/i.test(decJurada) }),
        ...(collectorRut && { collectorRut }),
        ...(collectorAddress && { collectorAddress }),
    };
}
// ---------------------------------------------------------------------------------------------
// The wire
// ---------------------------------------------------------------------------------------------
/** The AEC upload's form: the manual's order emailNotif, rutCompany, dvCompany, archivo. */
function aecUploadForm(input) {
    const company = splitRut(input.companyRut);
    return buildMultipart([
        ['emailNotif', input.email],
        ['rutCompany', company.body],
        ['dvCompany', company.dv],
    ], { name: 'archivo', filename: input.fileName ?? 'AEC.xml', contentType: 'text/xml', content: input.aec });
}
/** A header refusing the token is renewed once; an internal error is worth a later retry. */
function checkedHeader(op, answer, header) {
    if (isTokenHeader(header.code))
        return new TokenRejected(`ESTADO ${header.code} ${header.glosa}`);
    if (isInternalHeader(header.code))
        throw new SiiUnavailableError(`${op}: ESTADO ${header.code} ${header.glosa}`);
    return answer;
}
export function createRpetcAdapter(session, authenticate) {
    const { config, exchange, withToken, timed } = session;
    const base = config.SII_RPETC_URL ?? RPETC_CERTIFICATION_URL;
    const withDteToken = (cert, op, attempt) => withToken('dte', cert, op, () => authenticate(cert), attempt);
    /** One wsRPETCConsulta operation (read-only: every failure is safe to repeat); the Token goes first. */
    async function consulta(operation, token, params) {
        const url = joinUrl(base, CONSULTA_PATH);
        const answer = await exchange({
            op: operation,
            method: 'POST',
            url,
            headers: { 'Content-Type': SOAP_CONTENT_TYPE, SOAPAction: '""', Accept: 'text/xml' },
            body: Buffer.from(soapRequest(url, operation, [['Token', token], ...params], CONSULTA_NAMESPACE), 'utf8'),
            readOnly: true,
        });
        if (answer.status !== 200)
            throw unexpectedStatus(operation, answer);
        return soapReturnValue(operation, decodeBody(answer));
    }
    async function uploadAec(input) {
        const op = 'RTCAnotEnvio';
        const form = aecUploadForm(input);
        return timed({ op, service: 'rpetc' }, () => withDteToken(input.cert, op, async (token) => {
            const answer = await exchange({
                op,
                method: 'POST',
                url: joinUrl(base, UPLOAD_PATH),
                headers: { Cookie: `TOKEN=${token}`, 'Content-Type': form.contentType },
                body: form.body,
                readOnly: false,
            });
            // A 401 is the gateway refusing the session before taking the file: safe to resend.
            if (answer.status === 401)
                return new TokenRejected('HTTP 401');
            if (answer.status < 200 || answer.status > 299)
                throw unexpectedStatus(op, answer);
            let result;
            try {
                result = readRecepcionAec(decodeBody(answer));
            }
            catch (e) {
                if (!(e instanceof SiiProtocolError))
                    throw e;
                throw new SiiAmbiguousError(`${e.message}; the SII may have received the AEC`, { cause: e });
            }
            // STATUS 5 = not authenticated: the file was not taken.
            if (result.status === 5)
                return new TokenRejected(`STATUS 5 ${result.glosa}`);
            if (result.status === 9 || result.status === 10) {
                throw new SiiUnavailableError(`${op}: STATUS ${result.status} ${result.glosa} (no TRACKID: send again later)`);
            }
            return result;
        }));
    }
    async function getEstEnvio(input) {
        const op = 'getEstEnvio';
        return timed({ op, service: 'rpetc', trackId: input.trackId }, () => withDteToken(input.cert, op, async (token) => {
            const status = readEstEnvioAnswer(await consulta(op, token, [['TrackId', input.trackId]]));
            return checkedHeader(op, status, status.header);
        }));
    }
    const documentParams = (issuerRut, type, folio) => {
        const issuer = splitRut(issuerRut);
        return [
            ['RutEmisor', issuer.body],
            ['DVEmisor', issuer.dv],
            ['TipoDoc', String(type)],
            ['FolioDoc', String(folio)],
        ];
    };
    async function getEstCesion(input) {
        const op = 'getEstCesion';
        return timed({ op, service: 'rpetc', type: input.type, folio: input.folio }, () => withDteToken(input.cert, op, async (token) => {
            const params = [
                ...documentParams(input.issuerRut, input.type, input.folio),
                ['IdCesion', input.idCesion ?? ''],
            ];
            const status = readEstCesionAnswer(op, await consulta(op, token, params));
            return checkedHeader(op, status, { code: status.code, glosa: status.glosa });
        }));
    }
    async function getEstCesionRelac(input) {
        const op = 'getEstCesionRelac';
        const company = splitRut(input.companyRut);
        return timed({ op, service: 'rpetc', type: input.type, folio: input.folio }, () => withDteToken(input.cert, op, async (token) => {
            const params = [
                ...documentParams(input.issuerRut, input.type, input.folio),
                ['RutEmpresa', company.body],
                ['DVEmpresa', company.dv],
            ];
            const status = readEstCesionAnswer(op, await consulta(op, token, params));
            return checkedHeader(op, status, { code: status.code, glosa: status.glosa });
        }));
    }
    return { uploadAec, getEstEnvio, getEstCesion, getEstCesionRelac };
}
