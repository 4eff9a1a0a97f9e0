import { splitRut } from '../dte/rut.js';
import { isTokenEstado, readEstDteAnswer, readEstUpAnswer, readRecepcionDte } from './answers.js';
import { decodeBody, joinUrl, snippet, unexpectedStatus } from './http.js';
import { checkedSeed, checkedToken, dateParts, holderRut, readUploadAnswer, signSeed, TokenRejected, uploadForm, } from './session.js';
import { SOAP_CONTENT_TYPE, soapRequest, soapReturnValue } from './soap.js';
import { SiiProtocolError, } from './types.js';
export function createDtewsAdapter(session) {
    const { config, exchange, withToken, timed } = session;
    /**
     * One DTEWS operation: POST {SII_DTEWS_URL}/DTEWS/{service}.jws (docs/sii-reference.md §7.2), answer
     * = the unescaped string of its `<op>Return`. Every DTEWS operation Timbre calls is
     * read-only (seed, token, queries), so every failure of one is safe to repeat.
     */
    async function soapCall(service, operation, params) {
        const serviceUrl = joinUrl(config.SII_DTEWS_URL, `/DTEWS/${service}.jws`);
        const answer = await exchange({
            op: operation,
            method: 'POST',
            url: serviceUrl,
            headers: { 'Content-Type': SOAP_CONTENT_TYPE, SOAPAction: '""', Accept: 'text/xml' },
            body: Buffer.from(soapRequest(serviceUrl, operation, params), 'utf8'),
            readOnly: true,
        });
        if (answer.status !== 200)
            throw unexpectedStatus(operation, answer);
        return soapReturnValue(operation, decodeBody(answer));
    }
    /** Seed → signed seed → token (docs/sii-reference.md §7.2). */
    async function authenticate(cert) {
        const seed = checkedSeed(await soapCall('CrSeed', 'getSeed', []));
        return checkedToken(await soapCall('GetTokenFromSeed', 'getToken', [['pszXml', signSeed(seed, cert)]]));
    }
    const withDteToken = (cert, op, attempt) => withToken('dte', cert, op, () => authenticate(cert), attempt);
    /** DTEUpload (docs/sii-reference.md §7.3). */
    async function upload(input) {
        const op = 'DTEUpload';
        const form = uploadForm(input);
        return timed({ op, service: 'dte' }, () => withDteToken(input.cert, op, async (token) => {
            const answer = await exchange({
                op,
                method: 'POST',
                url: joinUrl(config.SII_UPLOAD_URL, '/cgi_dte/UPL/DTEUpload'),
                headers: { Cookie: `TOKEN=${token}`, 'Content-Type': form.contentType },
                body: form.body,
                readOnly: false,
            });
            // A 401 is the gateway refusing the session before taking the file: safe to resend.
            if (answer.status === 401)
                return new TokenRejected('HTTP 401');
            // 3xx/4xx: refused at the door, the file was not taken. Any 2xx is an answer to read.
            if (answer.status < 200 || answer.status > 299)
                throw unexpectedStatus(op, answer);
            const result = readUploadAnswer(() => readRecepcionDte(decodeBody(answer)));
            // STATUS 5 = not authenticated: the file was not taken (§7.3).
            if (result.status === 5)
                return new TokenRejected(`STATUS 5 ${result.detail.join(' ')}`.trim());
            return result;
        }));
    }
    /** QueryEstUp.getEstUp (docs/sii-reference.md §7.4). */
    async function uploadStatus(input) {
        const company = splitRut(input.issuerRut);
        const op = 'getEstUp';
        return timed({ op, service: 'dte', trackId: input.trackId }, () => withDteToken(input.cert, op, async (token) => {
            const status = readEstUpAnswer(await soapCall('QueryEstUp', 'getEstUp', [
                ['RutCompania', company.body],
                ['DvCompania', company.dv],
                ['TrackId', input.trackId],
                ['Token', token],
            ]));
            return isTokenEstado(status.estado) ? new TokenRejected(`ESTADO ${status.estado} ${status.glosa}`) : status;
        }));
    }
    /** QueryEstDte.getEstDte (docs/sii-reference.md §7.5). */
    async function documentStatus(input) {
        const company = splitRut(input.issuerRut);
        const receiver = splitRut(input.receiverRut);
        const [year, month, day] = dateParts(input.date);
        const op = 'getEstDte';
        return timed({ op, service: 'dte', type: input.type, folio: input.folio }, () => withDteToken(input.cert, op, async (token) => {
            const consultant = splitRut(holderRut(input.cert));
            const status = readEstDteAnswer(await soapCall('QueryEstDte', 'getEstDte', [
                ['RutConsultante', consultant.body],
                ['DvConsultante', consultant.dv],
                ['RutCompania', company.body],
                ['DvCompania', company.dv],
                ['RutReceptor', receiver.body],
                ['DvReceptor', receiver.dv],
                ['TipoDte', String(input.type)],
                ['FolioDte', String(input.folio)],
                // DDMMAAAA ([LDTE-L] Dte.php::getEstado, docs/sii-reference.md §7.5).
                ['FechaEmisionDte', `${day}${month}${year}`],
                ['MontoDte', String(input.total)],
                ['Token', token],
            ]));
            return isTokenEstado(status.estado) ? new TokenRejected(`ESTADO ${status.estado} ${status.glosa}`) : status;
        }));
    }
    /**
     * The SII has no API for folios: everything happens in the web portal (docs/sii-reference.md §8). This
     * adapter sends only the last step of the portal's flow, `of_genera_archivo`, which answers
     * the CAF XML, with the DTEWS token as the session cookie. Against the real portal that is
     * not enough and is NOT implemented here: the portal wants a session opened with the
     * certificate as TLS client certificate (herculesr.sii.cl/cgi_AUT2000/CAutInicio.cgi) and
     * the preceding forms (of_solicita_folios → of_solicita_folios_dcto → of_confirma_folio →
     * of_genera_folio) walked in that session, with their hidden fields. The local SII
     * simulator answers this single step.
     *
     * The request stamps folios, so it is not read-only: a timeout after sending or a 5xx is
     * ambiguous (a second request could stamp a second range, §8 "point of no return").
     */
    async function requestCaf(input) {
        const company = splitRut(input.issuerRut);
        const op = 'of_genera_archivo';
        const form = new URLSearchParams({
            RUT_EMP: company.body,
            DV_EMP: company.dv,
            COD_DOCTO: String(input.type),
            CANT_DOCTOS: String(input.count),
        });
        return timed({ op, service: 'dte', type: input.type, count: input.count }, () => withDteToken(input.cert, op, async (token) => {
            const answer = await exchange({
                op,
                method: 'POST',
                url: joinUrl(config.SII_PORTAL_URL, '/cvc_cgi/dte/of_genera_archivo'),
                headers: {
                    Cookie: `TOKEN=${token}`,
                    'Content-Type': 'application/x-www-form-urlencoded',
                    // Without a Referer the portal answers HTTP 500 ([DEVLAS], [SMOY]).
                    Referer: joinUrl(config.SII_PORTAL_URL, '/cvc_cgi/dte/of_genera_folio'),
                    Accept: 'text/xml,application/xml,text/html;q=0.9,*/*;q=0.8',
                },
                body: Buffer.from(form.toString(), 'latin1'),
                readOnly: false,
            });
            if (answer.status === 401)
                return new TokenRejected('HTTP 401');
            if (answer.status !== 200)
                throw unexpectedStatus(op, answer);
            if (isCafXml(answer.body))
                return answer.body;
            // The portal explains refusals in an HTML page ("NO SE AUTORIZA TIMBRAJE …", §8).
            throw new SiiProtocolError(`${op}: no CAF in the answer: ${snippet(decodeBody(answer)) || '(empty)'}`);
        }));
    }
    return { upload, uploadStatus, documentStatus, requestCaf, authenticate };
}
/** A CAF file: XML (ISO-8859-1 as the SII sends it) with an AUTORIZACION root (docs/sii-reference.md §2). */
function isCafXml(body) {
    const text = body
        .toString('latin1')
        .replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '')
        .trimStart();
    return text.startsWith('<?xml') && text.includes('<AUTORIZACION>');
}
