import { splitRut } from '../dte/rut.js';
import { readBoletaDocumentStatus, readBoletaUpload, readBoletaUploadStatus } from './answers.js';
import { decodeBody, joinUrl, snippet, unexpectedStatus } from './http.js';
import { checkedSeed, checkedToken, dateParts, readUploadAnswer, signSeed, TokenRejected, uploadForm, } from './session.js';
import { SiiAuthError, } from './types.js';
export function createBoletaAdapter(session) {
    const { config, exchange, withToken, timed } = session;
    async function seed() {
        const answer = await exchange({
            op: 'boleta.electronica.semilla',
            method: 'GET',
            url: joinUrl(config.SII_BOLETA_API_URL, '/boleta.electronica.semilla'),
            headers: { Accept: 'application/xml' },
            readOnly: true,
        });
        if (answer.status !== 200)
            throw unexpectedStatus('boleta.electronica.semilla', answer);
        return checkedSeed(decodeBody(answer));
    }
    async function token(signedSeed) {
        const op = 'boleta.electronica.token';
        const answer = await exchange({
            op,
            method: 'POST',
            url: joinUrl(config.SII_BOLETA_API_URL, '/boleta.electronica.token'),
            headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
            body: Buffer.from(signedSeed, 'utf8'),
            readOnly: true,
        });
        if (answer.status === 401 || answer.status === 403) {
            throw new SiiAuthError(`${op}: HTTP ${answer.status} ${snippet(decodeBody(answer))}`.trim());
        }
        if (answer.status !== 200)
            throw unexpectedStatus(op, answer);
        return checkedToken(decodeBody(answer));
    }
    const withBoletaToken = (cert, op, attempt) => withToken('boleta', cert, op, async () => token(signSeed(await seed(), cert)), attempt);
    /** A GET on the boleta REST API with the token cookie; 401 means the token was refused. */
    async function restQuery(op, path, tokenValue, read) {
        const answer = await exchange({
            op,
            method: 'GET',
            url: joinUrl(config.SII_BOLETA_API_URL, path),
            headers: { Cookie: `TOKEN=${tokenValue}`, Accept: 'application/json' },
            readOnly: true,
        });
        if (answer.status === 401)
            return new TokenRejected('HTTP 401');
        if (answer.status !== 200)
            throw unexpectedStatus(op, answer);
        return read(decodeBody(answer));
    }
    /** POST boleta.electronica.envio (docs/sii-reference.md §7.6). */
    async function upload(input) {
        const op = 'boleta.electronica.envio';
        const form = uploadForm(input);
        return timed({ op, service: 'boleta' }, () => withBoletaToken(input.cert, op, async (tokenValue) => {
            const answer = await exchange({
                op,
                method: 'POST',
                url: joinUrl(config.SII_BOLETA_UPLOAD_URL, '/boleta.electronica.envio'),
                headers: { Cookie: `TOKEN=${tokenValue}`, 'Content-Type': form.contentType, Accept: 'application/json' },
                body: form.body,
                readOnly: false,
            });
            // A 401 is the gateway refusing the session before taking the file: safe to resend.
            if (answer.status === 401)
                return new TokenRejected('HTTP 401');
            // 3xx/4xx: refused at the door, the file was not taken. Any 2xx is an answer to read.
            if (answer.status < 200 || answer.status > 299)
                throw unexpectedStatus(op, answer);
            const result = readUploadAnswer(() => readBoletaUpload(decodeBody(answer)));
            // STATUS 5 = not authenticated: the file was not taken (§7.3).
            if (result.status === 5)
                return new TokenRejected(`STATUS 5 ${result.detail.join(' ')}`.trim());
            return result;
        }));
    }
    /** GET boleta.electronica.envio/{rut}-{dv}-{trackid} (docs/sii-reference.md §7.6). */
    async function uploadStatus(input) {
        const company = splitRut(input.issuerRut);
        const op = 'boleta.electronica.envio status';
        return timed({ op, service: 'boleta', trackId: input.trackId }, () => withBoletaToken(input.cert, op, (tokenValue) => {
            const path = `/boleta.electronica.envio/${company.body}-${company.dv}-${encodeURIComponent(input.trackId)}`;
            return restQuery(op, path, tokenValue, readBoletaUploadStatus);
        }));
    }
    /** GET boleta.electronica/{rut}-{dv}-{tipo}-{folio}/estado (docs/sii-reference.md §7.5, §7.6). */
    async function documentStatus(input) {
        const company = splitRut(input.issuerRut);
        const receiver = splitRut(input.receiverRut);
        const [year, month, day] = dateParts(input.date);
        const op = 'boleta.electronica estado';
        return timed({ op, service: 'boleta', type: input.type, folio: input.folio }, () => withBoletaToken(input.cert, op, (tokenValue) => {
            const query = new URLSearchParams({
                rut_receptor: receiver.body,
                dv_receptor: receiver.dv,
                monto: String(input.total),
                fechaEmision: `${day}-${month}-${year}`,
            });
            const path = `/boleta.electronica/${company.body}-${company.dv}-${input.type}-${input.folio}/estado?${query}`;
            return restQuery(op, path, tokenValue, readBoletaDocumentStatus);
        }));
    }
    return { upload, uploadStatus, documentStatus };
}
