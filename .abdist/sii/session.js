/**
 * What the SII adapters (DTEWS in dtews.ts, boleta REST in boleta.ts) share: one HTTP exchange
 * with the SII's User-Agent and the configured timeout, the token cache with one
 * re-authentication when the SII refuses a token, the signed seed, the upload form, and
 * debug timing that never carries a payload.
 */
import { createHash } from 'node:crypto';
import { splitRut } from '../dte/rut.js';
import { signXml } from '../dte/xmldsig.js';
import { readSeedAnswer, readTokenAnswer } from './answers.js';
import { siiExchange } from './http.js';
import { buildMultipart } from './multipart.js';
import { SiiAmbiguousError, SiiAuthError, SiiProtocolError, SiiUnavailableError, } from './types.js';
/**
 * The SII's gateways answer 401 / "no autenticado" to a valid token unless the User-Agent
 * contains `PROG 1.0` (docs/sii-reference.md §7.3, verified live by [SMOY] and [RURAL]). Sent on every call.
 */
const SII_USER_AGENT = 'Mozilla/4.0 (compatible; PROG 1.0; Timbre)';
/** A call's answer that says the token is no good; the call is repeated once with a new token. */
export class TokenRejected {
    reason;
    constructor(reason) {
        this.reason = reason;
    }
}
export function createSession(config, log, tokens) {
    return {
        config,
        log,
        exchange(req) {
            return siiExchange({
                ...req,
                timeoutMs: config.SII_TIMEOUT_MS,
                headers: { 'User-Agent': SII_USER_AGENT, ...req.headers },
            });
        },
        async withToken(service, cert, op, authenticate, attempt) {
            const key = `${service}:${certificateFingerprint(cert)}`;
            for (let round = 1;; round++) {
                const token = await tokens.get(key, async () => {
                    const started = performance.now();
                    const value = await authenticate();
                    log.debug({ op: 'sii.authenticate', service, ms: elapsed(started) }, 'SII token obtained');
                    return value;
                });
                const result = await attempt(token);
                if (!(result instanceof TokenRejected))
                    return result;
                tokens.invalidate(key, token);
                if (round === 2)
                    throw new SiiAuthError(`${op}: the SII refused a new token too (${result.reason})`);
                log.debug({ op, service, reason: result.reason }, 'SII refused the token; authenticating again');
            }
        },
        async timed(fields, run) {
            const started = performance.now();
            try {
                const result = await run();
                log.debug({ ...fields, ...outcomeFields(result), ms: elapsed(started) }, 'SII call done');
                return result;
            }
            catch (e) {
                const err = e;
                log.debug({ ...fields, ms: elapsed(started), error: err.name, reason: err.message }, 'SII call failed');
                throw e;
            }
        },
    };
}
/** SEMILLA of a seed answer (DTEWS getSeed and boleta.electronica.semilla answer alike). */
export function checkedSeed(xml) {
    const answer = readSeedAnswer(xml);
    // ESTADO -1/-2 are the SII's own failures ([AUTH] §5.2.1): nothing wrong on our side.
    if (answer.estado !== '00')
        throw new SiiUnavailableError(`getSeed: ESTADO ${answer.estado} ${answer.glosa}`.trim());
    // The seed goes into XML we sign: only the documented digits are accepted.
    if (!answer.value || !/^\d+$/.test(answer.value))
        throw new SiiProtocolError('getSeed: no numeric SEMILLA');
    return answer.value;
}
/** TOKEN of a token answer (DTEWS getToken and boleta.electronica.token answer alike). */
export function checkedToken(xml) {
    const answer = readTokenAnswer(xml);
    // 01..21, -3, -07: bad signature, unknown certificate, expired seed … ([AUTH] §5.2.2).
    if (answer.estado !== '00')
        throw new SiiAuthError(`getToken: ESTADO ${answer.estado} ${answer.glosa}`.trim());
    if (!answer.value)
        throw new SiiProtocolError('getToken: ESTADO 00 without TOKEN');
    return answer.value;
}
/**
 * The multipart form of an upload, the same for DTEUpload and the boleta REST upload
 * (docs/sii-reference.md §7.3, §7.6): sender (the certificate holder), company, file.
 */
export function uploadForm(input) {
    const sender = splitRut(holderRut(input.cert));
    const company = splitRut(input.issuerRut);
    return buildMultipart([
        ['rutSender', sender.body],
        ['dvSender', sender.dv],
        ['rutCompany', company.body],
        ['dvCompany', company.dv],
    ], { name: 'archivo', filename: input.filename, contentType: 'text/xml', content: input.envelope });
}
/**
 * The enveloped signature getToken wants ([AUTH] §4.1.5, §8; docs/sii-reference.md §7.2 step 2):
 * Reference URI="", enveloped-signature, Signature as the last child of getToken
 * (template: test/fixtures/sii/responses/gettoken_pszXml_unsigned_template.xml).
 */
export function signSeed(seed, cert) {
    const unsigned = `<getToken><item><Semilla>${seed}</Semilla></item></getToken>`;
    return `<?xml version="1.0"?>\n${signXml(unsigned, cert, { referenceId: '', parentClose: '</getToken>' })}`;
}
/** Identifies a certificate in the token cache without keeping the certificate. */
function certificateFingerprint(cert) {
    return createHash('sha256').update(Buffer.from(cert.certDerBase64, 'base64')).digest('hex');
}
/** rutSender / RutConsultante: the holder of the certificate that authenticated (docs/sii-reference.md §7.3). */
export function holderRut(cert) {
    if (!cert.holderRut)
        throw new SiiAuthError('the certificate carries no holder RUT (SubjectAltName 1.3.6.1.4.1.8321.1)');
    return cert.holderRut;
}
/** FchEmis YYYY-MM-DD → [AAAA, MM, DD]. */
export function dateParts(date) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
    if (!m)
        throw new RangeError(`date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
    return [m[1], m[2], m[3]];
}
/**
 * An upload answer that cannot be read came from the SII after it had the whole file: it may
 * have been received, so it is ambiguous rather than a plain protocol error (docs/design.md §6).
 */
export function readUploadAnswer(read) {
    try {
        return read();
    }
    catch (e) {
        if (!(e instanceof SiiProtocolError))
            throw e;
        throw new SiiAmbiguousError(`${e.message}; the SII may have received the upload`, { cause: e });
    }
}
function outcomeFields(result) {
    if (Buffer.isBuffer(result))
        return { bytes: result.length };
    const r = result;
    return {
        ...(r.status !== undefined ? { status: r.status } : {}),
        ...(r.trackId !== undefined ? { trackId: r.trackId } : {}),
        ...(r.estado !== undefined ? { estado: r.estado } : {}),
    };
}
const elapsed = (started) => Math.round(performance.now() - started);
