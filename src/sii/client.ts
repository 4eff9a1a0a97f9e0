/**
 * Timbre's real SII client: the SiiClient of src/sii/types.ts over the SII's SOAP services
 * (DTEWS), its upload CGI, the boleta REST API and the folio portal (docs/sii-reference.md §7, §8).
 *
 * Layers, bottom up:
 * - src/sii/http.ts: one HTTP exchange with a timeout, failures classified as unavailable
 *   (safe to repeat) or ambiguous (the SII may have the request);
 * - src/sii/soap.ts, multipart.ts: the request bodies, in the shapes of the SII's manuals;
 * - src/sii/answers.ts: the SII's answers read into our types;
 * - here: authentication (seed → signed seed → token) with a token cache per certificate and
 *   service, one re-authentication when the SII refuses a token, and the four operations.
 *
 * Nothing here logs tokens, certificates or XML payloads: debug lines carry the operation,
 * the service, the track id and the time taken.
 */
import { createHash } from 'node:crypto';
import { type Logger, pino } from 'pino';
import type { SigningCertificate } from '../dte/certificate.ts';
import { splitRut } from '../dte/rut.ts';
import { signXml } from '../dte/xmldsig.ts';
import type { Config } from '../config.ts';
import {
  isTokenEstado,
  readBoletaDocumentStatus,
  readBoletaUpload,
  readBoletaUploadStatus,
  readEstDteAnswer,
  readEstUpAnswer,
  readRecepcionDte,
  readSeedAnswer,
  readTokenAnswer,
} from './answers.ts';
import {
  decodeBody,
  type HttpAnswer,
  joinUrl,
  type SiiHttpRequest,
  siiExchange,
  snippet,
  unexpectedStatus,
} from './http.ts';
import { buildMultipart } from './multipart.ts';
import { SOAP_CONTENT_TYPE, soapRequest, soapReturnValue } from './soap.ts';
import { TokenCache } from './token-cache.ts';
import {
  type CafRequestInput,
  type DocumentStatus,
  type DocumentStatusInput,
  SiiAmbiguousError,
  SiiAuthError,
  type SiiClient,
  SiiProtocolError,
  type SiiService,
  SiiUnavailableError,
  type UploadInput,
  type UploadResult,
  type UploadStatus,
  type UploadStatusInput,
} from './types.ts';

/** The configuration the client reads (a whole `Config` will do). */
export type SiiClientConfig = Pick<
  Config,
  | 'SII_DTEWS_URL'
  | 'SII_UPLOAD_URL'
  | 'SII_BOLETA_API_URL'
  | 'SII_BOLETA_UPLOAD_URL'
  | 'SII_PORTAL_URL'
  | 'SII_TIMEOUT_MS'
>;

export interface SiiClientOptions {
  config: SiiClientConfig;
  /** Drives the token lifetime. */
  clock?: () => Date;
  log?: Logger;
  /** How long a token is reused before a new one is obtained; default TOKEN_REUSE_MS. */
  tokenTtlMs?: number;
}

/**
 * 20 minutes: long enough that a busy issuer authenticates a few times an hour, and safely
 * inside the lifetime the local simulator gives a token (30 minutes by default); the SII
 * publishes none. A token that dies earlier costs one round trip: the first refusal makes
 * the client authenticate again.
 */
export const TOKEN_REUSE_MS = 20 * 60_000;

/**
 * The SII's gateways answer 401 / "no autenticado" to a valid token unless the User-Agent
 * contains `PROG 1.0` (docs/sii-reference.md §7.3, verified live by [SMOY] and [RURAL]). Sent on every call.
 */
export const SII_USER_AGENT = 'Mozilla/4.0 (compatible; PROG 1.0; Timbre)';

/** A call's answer that says the token is no good; the call is repeated once with a new token. */
class TokenRejected {
  constructor(readonly reason: string) {}
}

export function createSiiClient(opts: SiiClientOptions): SiiClient {
  const { config } = opts;
  const clock = opts.clock ?? (() => new Date());
  const log = opts.log ?? pino({ level: 'silent' });
  const tokens = new TokenCache(opts.tokenTtlMs ?? TOKEN_REUSE_MS, () => clock().getTime());
  const timeoutMs = config.SII_TIMEOUT_MS;

  // -------------------------------------------------------------------------------------------
  // Transport helpers
  // -------------------------------------------------------------------------------------------

  function exchange(req: Omit<SiiHttpRequest, 'timeoutMs'>): Promise<HttpAnswer> {
    return siiExchange({ ...req, timeoutMs, headers: { 'User-Agent': SII_USER_AGENT, ...req.headers } });
  }

  /**
   * One DTEWS operation: POST {SII_DTEWS_URL}/DTEWS/{service}.jws (docs/sii-reference.md §7.2), answer
   * = the unescaped string of its `<op>Return`. Every DTEWS operation Timbre calls is
   * read-only (seed, token, queries), so every failure of one is safe to repeat.
   */
  async function soapCall(service: string, operation: string, params: [string, string][]): Promise<string> {
    const serviceUrl = joinUrl(config.SII_DTEWS_URL, `/DTEWS/${service}.jws`);
    const answer = await exchange({
      op: operation,
      method: 'POST',
      url: serviceUrl,
      headers: { 'Content-Type': SOAP_CONTENT_TYPE, SOAPAction: '""', Accept: 'text/xml' },
      body: Buffer.from(soapRequest(serviceUrl, operation, params), 'utf8'),
      readOnly: true,
    });
    if (answer.status !== 200) throw unexpectedStatus(operation, answer);
    return soapReturnValue(operation, decodeBody(answer));
  }

  // -------------------------------------------------------------------------------------------
  // Authentication (docs/sii-reference.md §7.2 DTEWS, §7.6 boleta REST)
  // -------------------------------------------------------------------------------------------

  function checkedSeed(xml: string): string {
    const answer = readSeedAnswer(xml);
    // ESTADO -1/-2 are the SII's own failures ([AUTH] §5.2.1): nothing wrong on our side.
    if (answer.estado !== '00')
      throw new SiiUnavailableError(`getSeed: ESTADO ${answer.estado} ${answer.glosa}`.trim());
    // The seed goes into XML we sign: only the documented digits are accepted.
    if (!answer.value || !/^\d+$/.test(answer.value)) throw new SiiProtocolError('getSeed: no numeric SEMILLA');
    return answer.value;
  }

  function checkedToken(xml: string): string {
    const answer = readTokenAnswer(xml);
    // 01..21, -3, -07: bad signature, unknown certificate, expired seed … ([AUTH] §5.2.2).
    if (answer.estado !== '00') throw new SiiAuthError(`getToken: ESTADO ${answer.estado} ${answer.glosa}`.trim());
    if (!answer.value) throw new SiiProtocolError('getToken: ESTADO 00 without TOKEN');
    return answer.value;
  }

  async function dteSeed(): Promise<string> {
    return checkedSeed(await soapCall('CrSeed', 'getSeed', []));
  }

  async function dteToken(signedSeed: string): Promise<string> {
    return checkedToken(await soapCall('GetTokenFromSeed', 'getToken', [['pszXml', signedSeed]]));
  }

  async function boletaSeed(): Promise<string> {
    const answer = await exchange({
      op: 'boleta.electronica.semilla',
      method: 'GET',
      url: joinUrl(config.SII_BOLETA_API_URL, '/boleta.electronica.semilla'),
      headers: { Accept: 'application/xml' },
      readOnly: true,
    });
    if (answer.status !== 200) throw unexpectedStatus('boleta.electronica.semilla', answer);
    return checkedSeed(decodeBody(answer));
  }

  async function boletaToken(signedSeed: string): Promise<string> {
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
    if (answer.status !== 200) throw unexpectedStatus(op, answer);
    return checkedToken(decodeBody(answer));
  }

  async function authenticate(service: SiiService, cert: SigningCertificate): Promise<string> {
    const started = performance.now();
    const seed = service === 'dte' ? await dteSeed() : await boletaSeed();
    const signed = signSeed(seed, cert);
    const token = service === 'dte' ? await dteToken(signed) : await boletaToken(signed);
    log.debug({ op: 'sii.authenticate', service, ms: elapsed(started) }, 'SII token obtained');
    return token;
  }

  /**
   * Runs `attempt` with the cached token; when the SII refuses it, drops it, authenticates
   * again and runs `attempt` once more (docs/sii-reference.md §7.2 step 4). A refusal of the fresh token
   * is an authentication failure, not something to loop on.
   */
  async function withToken<T>(
    service: SiiService,
    cert: SigningCertificate,
    op: string,
    attempt: (token: string) => Promise<T | TokenRejected>,
  ): Promise<T> {
    const key = `${service}:${certificateFingerprint(cert)}`;
    for (let round = 1; ; round++) {
      const token = await tokens.get(key, () => authenticate(service, cert));
      const result = await attempt(token);
      if (!(result instanceof TokenRejected)) return result;
      tokens.invalidate(key, token);
      if (round === 2) throw new SiiAuthError(`${op}: the SII refused a new token too (${result.reason})`);
      log.debug({ op, service, reason: result.reason }, 'SII refused the token; authenticating again');
    }
  }

  /** Logs the operation's outcome and time at debug, never its payload. */
  async function timed<T>(fields: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await run();
      log.debug({ ...fields, ...outcomeFields(result), ms: elapsed(started) }, 'SII call done');
      return result;
    } catch (e) {
      const err = e as Error;
      log.debug({ ...fields, ms: elapsed(started), error: err.name, reason: err.message }, 'SII call failed');
      throw e;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Upload (docs/sii-reference.md §7.3 DTEUpload, §7.6 boleta.electronica.envio)
  // -------------------------------------------------------------------------------------------

  async function upload(input: UploadInput): Promise<UploadResult> {
    const sender = splitRut(holderRut(input.cert));
    const company = splitRut(input.issuerRut);
    const multipart = buildMultipart(
      [
        ['rutSender', sender.body],
        ['dvSender', sender.dv],
        ['rutCompany', company.body],
        ['dvCompany', company.dv],
      ],
      { name: 'archivo', filename: input.filename, contentType: 'text/xml', content: input.envelope },
    );
    const boleta = input.service === 'boleta';
    const op = boleta ? 'boleta.electronica.envio' : 'DTEUpload';
    const url = boleta
      ? joinUrl(config.SII_BOLETA_UPLOAD_URL, '/boleta.electronica.envio')
      : joinUrl(config.SII_UPLOAD_URL, '/cgi_dte/UPL/DTEUpload');

    return timed({ op, service: input.service }, () =>
      withToken(input.service, input.cert, op, async (token) => {
        const answer = await exchange({
          op,
          method: 'POST',
          url,
          headers: {
            Cookie: `TOKEN=${token}`,
            'Content-Type': multipart.contentType,
            ...(boleta ? { Accept: 'application/json' } : {}),
          },
          body: multipart.body,
          readOnly: false,
        });
        // A 401 is the gateway refusing the session before taking the file: safe to resend.
        if (answer.status === 401) return new TokenRejected('HTTP 401');
        // 3xx/4xx: refused at the door, the file was not taken. Any 2xx is an answer to read.
        if (answer.status < 200 || answer.status > 299) throw unexpectedStatus(op, answer);
        const result = readUploadAnswer(() =>
          boleta ? readBoletaUpload(decodeBody(answer)) : readRecepcionDte(decodeBody(answer)),
        );
        // STATUS 5 = not authenticated: the file was not taken (§7.3).
        if (result.status === 5) return new TokenRejected(`STATUS 5 ${result.detail.join(' ')}`.trim());
        return result;
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Upload status (docs/sii-reference.md §7.4 QueryEstUp, §7.6 boleta.electronica.envio/{rut}-{dv}-{trackid})
  // -------------------------------------------------------------------------------------------

  async function uploadStatus(input: UploadStatusInput): Promise<UploadStatus> {
    const company = splitRut(input.issuerRut);
    const op = input.service === 'boleta' ? 'boleta.electronica.envio status' : 'getEstUp';
    return timed({ op, service: input.service, trackId: input.trackId }, () =>
      withToken(input.service, input.cert, op, async (token) => {
        if (input.service === 'boleta') {
          const path = `/boleta.electronica.envio/${company.body}-${company.dv}-${encodeURIComponent(input.trackId)}`;
          return restQuery(op, path, token, readBoletaUploadStatus);
        }
        const status = readEstUpAnswer(
          await soapCall('QueryEstUp', 'getEstUp', [
            ['RutCompania', company.body],
            ['DvCompania', company.dv],
            ['TrackId', input.trackId],
            ['Token', token],
          ]),
        );
        return isTokenEstado(status.estado) ? new TokenRejected(`ESTADO ${status.estado} ${status.glosa}`) : status;
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Document status (docs/sii-reference.md §7.5 QueryEstDte, and its boleta REST equivalent)
  // -------------------------------------------------------------------------------------------

  async function documentStatus(input: DocumentStatusInput): Promise<DocumentStatus> {
    const company = splitRut(input.issuerRut);
    const receiver = splitRut(input.receiverRut);
    const [year, month, day] = dateParts(input.date);
    const op = input.service === 'boleta' ? 'boleta.electronica estado' : 'getEstDte';
    return timed({ op, service: input.service, type: input.type, folio: input.folio }, () =>
      withToken(input.service, input.cert, op, async (token) => {
        if (input.service === 'boleta') {
          const query = new URLSearchParams({
            rut_receptor: receiver.body,
            dv_receptor: receiver.dv,
            monto: String(input.total),
            fechaEmision: `${day}-${month}-${year}`,
          });
          const path = `/boleta.electronica/${company.body}-${company.dv}-${input.type}-${input.folio}/estado?${query}`;
          return restQuery(op, path, token, readBoletaDocumentStatus);
        }
        const consultant = splitRut(holderRut(input.cert));
        const status = readEstDteAnswer(
          await soapCall('QueryEstDte', 'getEstDte', [
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
          ]),
        );
        return isTokenEstado(status.estado) ? new TokenRejected(`ESTADO ${status.estado} ${status.glosa}`) : status;
      }),
    );
  }

  /** A GET on the boleta REST API with the token cookie; 401 means the token was refused. */
  async function restQuery<T>(
    op: string,
    path: string,
    token: string,
    read: (json: string) => T,
  ): Promise<T | TokenRejected> {
    const answer = await exchange({
      op,
      method: 'GET',
      url: joinUrl(config.SII_BOLETA_API_URL, path),
      headers: { Cookie: `TOKEN=${token}`, Accept: 'application/json' },
      readOnly: true,
    });
    if (answer.status === 401) return new TokenRejected('HTTP 401');
    if (answer.status !== 200) throw unexpectedStatus(op, answer);
    return read(decodeBody(answer));
  }

  // -------------------------------------------------------------------------------------------
  // CAF request (docs/sii-reference.md §8)
  // -------------------------------------------------------------------------------------------

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
  async function requestCaf(input: CafRequestInput): Promise<Buffer> {
    const company = splitRut(input.issuerRut);
    const op = 'of_genera_archivo';
    const form = new URLSearchParams({
      RUT_EMP: company.body,
      DV_EMP: company.dv,
      COD_DOCTO: String(input.type),
      CANT_DOCTOS: String(input.count),
    });
    return timed({ op, service: 'dte', type: input.type, count: input.count }, () =>
      withToken('dte', input.cert, op, async (token) => {
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
        if (answer.status === 401) return new TokenRejected('HTTP 401');
        if (answer.status !== 200) throw unexpectedStatus(op, answer);
        if (isCafXml(answer.body)) return answer.body;
        // The portal explains refusals in an HTML page ("NO SE AUTORIZA TIMBRAJE …", §8).
        throw new SiiProtocolError(`${op}: no CAF in the answer: ${snippet(decodeBody(answer)) || '(empty)'}`);
      }),
    );
  }

  return { upload, uploadStatus, documentStatus, requestCaf };
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/**
 * The enveloped signature getToken wants ([AUTH] §4.1.5, §8; docs/sii-reference.md §7.2 step 2):
 * Reference URI="", enveloped-signature, Signature as the last child of getToken
 * (template: test/fixtures/sii/responses/gettoken_pszXml_unsigned_template.xml).
 */
export function signSeed(seed: string, cert: SigningCertificate): string {
  const unsigned = `<getToken><item><Semilla>${seed}</Semilla></item></getToken>`;
  return `<?xml version="1.0"?>\n${signXml(unsigned, cert, { referenceId: '', parentClose: '</getToken>' })}`;
}

/** Identifies a certificate in the token cache without keeping the certificate. */
function certificateFingerprint(cert: SigningCertificate): string {
  return createHash('sha256').update(Buffer.from(cert.certDerBase64, 'base64')).digest('hex');
}

/** rutSender / RutConsultante: the holder of the certificate that authenticated (docs/sii-reference.md §7.3). */
function holderRut(cert: SigningCertificate): string {
  if (!cert.holderRut)
    throw new SiiAuthError('the certificate carries no holder RUT (SubjectAltName 1.3.6.1.4.1.8321.1)');
  return cert.holderRut;
}

/** FchEmis YYYY-MM-DD → [AAAA, MM, DD]. */
function dateParts(date: string): [string, string, string] {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
  return [m[1]!, m[2]!, m[3]!];
}

/**
 * An upload answer that cannot be read came from the SII after it had the whole file: it may
 * have been received, so it is ambiguous rather than a plain protocol error (DESIGN §6).
 */
function readUploadAnswer(read: () => UploadResult): UploadResult {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof SiiProtocolError)) throw e;
    throw new SiiAmbiguousError(`${e.message}; the SII may have received the upload`, { cause: e });
  }
}

/** A CAF file: XML (ISO-8859-1 as the SII sends it) with an AUTORIZACION root (docs/sii-reference.md §2). */
function isCafXml(body: Buffer): boolean {
  const text = body
    .toString('latin1')
    .replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '')
    .trimStart();
  return text.startsWith('<?xml') && text.includes('<AUTORIZACION>');
}

function outcomeFields(result: unknown): Record<string, unknown> {
  if (Buffer.isBuffer(result)) return { bytes: result.length };
  const r = result as { status?: unknown; trackId?: unknown; estado?: unknown };
  return {
    ...(r.status !== undefined ? { status: r.status } : {}),
    ...(r.trackId !== undefined ? { trackId: r.trackId } : {}),
    ...(r.estado !== undefined ? { estado: r.estado } : {}),
  };
}

const elapsed = (started: number) => Math.round(performance.now() - started);
