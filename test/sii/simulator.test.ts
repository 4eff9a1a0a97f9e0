/**
 * The local SII simulator, driven the way a client talks to the real SII: plain fetch with
 * hand-written SOAP envelopes shaped like test/fixtures/sii/responses/*request*, multipart uploads
 * with Cookie TOKEN and a PROG 1.0 User-Agent, and real signed DTEs built by Timbre's own
 * pipeline (request → totals → TED → DTE XML → signature → envelope).
 */
import { spawn } from 'node:child_process';
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as soapPackage from 'soap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Caf, generateCaf, parseCaf, parseTrustedKeyPem, verifyCafSignature } from '../../src/dte/caf.ts';
import { generateTestCertificate, parsePkcs12, type SigningCertificate } from '../../src/dte/certificate.ts';
import { buildDteXml } from '../../src/dte/dte-xml.ts';
import { buildEnvelope, type Caratula, type EnvelopeKind } from '../../src/dte/envelope.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import type { IssuerInfo } from '../../src/dte/model.ts';
import { buildTed } from '../../src/dte/ted.ts';
import { computeDocument } from '../../src/dte/totals.ts';
import { escapeXml } from '../../src/dte/xml-text.ts';
import { encodeLatin1, parseXml, signDte, signXml, withXmlDeclaration } from '../../src/dte/xmldsig.ts';
import { dateOfInstantInSantiago, santiagoTimestamp } from '../../src/dte/chile-time.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/index.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';

const ISSUER_RUT = '76177907-9';
const SENDER_RUT = '13185095-6';
const OTHER_PERSON_RUT = '8414240-9';
const RESOLUTION = { date: '2014-08-22', number: 80 };
const PROG_UA = 'Mozilla/4.0 (compatible; PROG 1.0; Windows NT 5.0; YComp 5.0.2.4)';
/**
 * The shared simulator's clock runs with real time but starts at 01:00 Santiago time of the
 * day the file loads, so its date — TODAY, used for CAF dates, document dates and stamps —
 * cannot change under the tests (a run that crosses midnight would otherwise compare a CAF
 * authorised "tomorrow" with a date taken "today").
 */
const SIM_SHIFT_MS = (() => {
  const [hh, mm, ss] = santiagoTimestamp(new Date()).slice(11, 19).split(':').map(Number) as [number, number, number];
  return Math.max(0, (hh * 3600 + mm * 60 + ss - 3600) * 1000);
})();
const simClock = () => new Date(Date.now() - SIM_SHIFT_MS);
const TODAY = dateOfInstantInSantiago(simClock());

const ISSUER: IssuerInfo = {
  rut: ISSUER_RUT,
  name: 'Ferretería Ñandú & Cía. Ltda.',
  giro: 'Venta al por menor de artículos de ferretería',
  acteco: ['475201'],
  address: 'Av. Irarrázaval 1234',
  comuna: 'Ñuñoa',
  city: 'Santiago',
  vatRate: 19,
  resolutionDate: RESOLUTION.date,
  resolutionNumber: RESOLUTION.number,
};

function certificateFor(holderRut: string): SigningCertificate {
  // Valid since two days ago: also for the simulator's clock, which may run up to 23 h behind.
  const notBefore = new Date(Date.now() - 2 * 86_400_000);
  const { p12, password } = generateTestCertificate({ holderRut, name: 'JOSÉ PÉREZ SOTO', notBefore });
  return parsePkcs12(p12, password);
}

// ---------------------------------------------------------------------------------------------
// Talking SOAP like the samples in test/fixtures/sii/responses
// ---------------------------------------------------------------------------------------------

function soapEnvelope(service: string, operation: string, params: Record<string, string>): string {
  const parts = Object.entries(params)
    .map(([name, value]) => `      <${name} xsi:type="xsd:string">${escapeXml(value)}</${name}>\n`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" ' +
    'xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    'xmlns:xsd="http://www.w3.org/2001/XMLSchema" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">\n' +
    `  <SOAP-ENV:Body>\n    <m:${operation} xmlns:m="https://maullin.sii.cl/DTEWS/${service}.jws">\n${parts}` +
    `    </m:${operation}>\n  </SOAP-ENV:Body>\n</SOAP-ENV:Envelope>`
  );
}

interface SoapAnswer {
  status: number;
  raw: string;
  /** The RESPUESTA document carried (escaped) inside `<opReturn>`. */
  respuesta: string;
}

async function soap(
  base: string,
  service: string,
  operation: string,
  params: Record<string, string> = {},
): Promise<SoapAnswer> {
  const res = await fetch(`${base}/DTEWS/${service}.jws`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '' },
    body: soapEnvelope(service, operation, params),
  });
  const raw = await res.text();
  const returns = parseXml(raw).getElementsByTagName(`${operation}Return`);
  return { status: res.status, raw, respuesta: returns.item(0)?.textContent ?? '' };
}

/** The text of every `<name>` in a RESPUESTA (or RECEPCIONDTE), in order. */
function all(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]!);
}

const one = (xml: string, name: string): string | undefined => all(xml, name)[0];

function signedSeed(seed: string, cert: SigningCertificate): string {
  const unsigned = `<getToken><item><Semilla>${seed}</Semilla></item></getToken>`;
  return `<?xml version="1.0"?>\n${signXml(unsigned, cert, { referenceId: '', parentClose: '</getToken>' })}`;
}

async function dtewsToken(base: string, cert: SigningCertificate): Promise<string> {
  const seed = one((await soap(base, 'CrSeed', 'getSeed')).respuesta, 'SEMILLA')!;
  const answer = await soap(base, 'GetTokenFromSeed', 'getToken', { pszXml: signedSeed(seed, cert) });
  const token = one(answer.respuesta, 'TOKEN');
  if (!token) throw new Error(`no token: ${answer.respuesta}`);
  return token;
}

async function boletaToken(base: string, cert: SigningCertificate): Promise<string> {
  const semilla = await (await fetch(`${base}/recursos/v1/boleta.electronica.semilla`)).text();
  const res = await fetch(`${base}/recursos/v1/boleta.electronica.token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/xml' },
    body: signedSeed(one(semilla, 'SEMILLA')!, cert),
  });
  const token = one(await res.text(), 'TOKEN');
  if (!token) throw new Error('no boleta token');
  return token;
}

// ---------------------------------------------------------------------------------------------
// Documents, CAFs and envelopes built by Timbre's own pipeline
// ---------------------------------------------------------------------------------------------

interface CafSource {
  caf: Caf;
  key: KeyObject;
}

const cafSource = (file: Buffer | string): CafSource => {
  const caf = parseCaf(file);
  return { caf, key: createPrivateKey(caf.privateKeyPem) };
};

function signedDte(
  source: CafSource,
  cert: SigningCertificate,
  opts: { request: Record<string, unknown>; folio: number; date?: string; tamper?: (xml: string) => string },
): Buffer {
  const req = issueRequestSchema.parse(opts.request);
  const doc = computeDocument(req, { issuer: ISSUER, folio: opts.folio, date: opts.date ?? TODAY });
  const timestamp = `${opts.date ?? TODAY}T10:00:00`;
  const ted = buildTed({ doc, caf: source.caf, cafPrivateKey: source.key, timestamp });
  const { xml, documentId } = buildDteXml(doc, { ted, timestamp });
  const signed = signDte(xml, documentId, cert);
  return encodeLatin1(withXmlDeclaration(opts.tamper ? opts.tamper(signed) : signed));
}

function envelope(
  kind: EnvelopeKind,
  docs: { type: number; xml: Buffer }[],
  cert: SigningCertificate,
  caratula: Partial<Caratula> = {},
): Buffer {
  return buildEnvelope(
    kind,
    docs.map((d) => ({ type: d.type, signedXml: d.xml })),
    {
      issuerRut: ISSUER_RUT,
      senderRut: cert.holderRut!,
      resolutionDate: RESOLUTION.date,
      resolutionNumber: RESOLUTION.number,
      timestamp: `${TODAY}T10:05:00`,
      ...caratula,
    },
    cert,
  );
}

function multipart(fields: [string, string][], file: Buffer, filename: string): { body: Buffer; type: string } {
  const boundary = '7d23e2a11301c4';
  const chunks: Buffer[] = [];
  for (const [name, value] of fields) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  chunks.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="archivo"; filename="${filename}"\r\n` +
        'Content-Type: text/xml\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

interface UploadOptions {
  token?: string;
  userAgent?: string;
  sender?: string;
  company?: string;
  chunked?: boolean;
  signal?: AbortSignal;
}

function uploadRequest(file: Buffer, opts: UploadOptions): RequestInit {
  const [rutSender, dvSender] = (opts.sender ?? SENDER_RUT).split('-') as [string, string];
  const [rutCompany, dvCompany] = (opts.company ?? ISSUER_RUT).split('-') as [string, string];
  const { body, type } = multipart(
    [
      ['rutSender', rutSender],
      ['dvSender', dvSender],
      ['rutCompany', rutCompany],
      ['dvCompany', dvCompany],
    ],
    file,
    'EnvioTimbre.xml',
  );
  const headers: Record<string, string> = {
    'Content-Type': type,
    'User-Agent': opts.userAgent ?? PROG_UA,
    Accept: 'application/json',
  };
  if (opts.token !== undefined) headers.Cookie = `TOKEN=${opts.token}`;
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers };
  if (opts.signal) init.signal = opts.signal;
  if (opts.chunked) {
    init.body = new ReadableStream({
      start(controller) {
        controller.enqueue(body);
        controller.close();
      },
    });
    init.duplex = 'half';
  } else {
    init.body = body;
  }
  return init;
}

async function dteUpload(base: string, file: Buffer, opts: UploadOptions): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}/cgi_dte/UPL/DTEUpload`, uploadRequest(file, opts));
  return { status: res.status, text: await res.text() };
}

async function estUp(base: string, token: string, trackId: string, company = ISSUER_RUT): Promise<string> {
  const [rut, dv] = company.split('-') as [string, string];
  return (
    await soap(base, 'QueryEstUp', 'getEstUp', { RutCompania: rut, DvCompania: dv, TrackId: trackId, Token: token })
  ).respuesta;
}

interface DocumentKey {
  type: number;
  folio: number;
  receiver: string;
  date: string;
  total: string;
}

async function estDte(base: string, token: string, d: DocumentKey, consultant = SENDER_RUT): Promise<string> {
  const [rc, dc] = consultant.split('-') as [string, string];
  const [re, de] = ISSUER_RUT.split('-') as [string, string];
  const [rr, dr] = d.receiver.split('-') as [string, string];
  const [y, m, day] = d.date.split('-');
  const answer = await soap(base, 'QueryEstDte', 'getEstDte', {
    RutConsultante: rc,
    DvConsultante: dc,
    RutCompania: re,
    DvCompania: de,
    RutReceptor: rr,
    DvReceptor: dr,
    TipoDte: String(d.type),
    FolioDte: String(d.folio),
    FechaEmisionDte: `${day}${m}${y}`,
    MontoDte: d.total,
    Token: token,
  });
  return answer.respuesta;
}

/** The document key QueryEstDte needs, read back from a signed DTE. */
function keyOf(dte: Buffer): DocumentKey {
  const text = dte.toString('latin1');
  return {
    type: Number(one(text, 'TipoDTE')),
    folio: Number(one(text, 'Folio')),
    receiver: one(text, 'RUTRecep')!,
    date: one(text, 'FchEmis')!,
    total: one(text, 'MntTotal')!,
  };
}

async function portalCaf(
  base: string,
  token: string | null,
  form: Record<string, string>,
  headers: Record<string, string> = { Referer: `${base}/cvc_cgi/dte/of_genera_folio` },
): Promise<Response> {
  return fetch(`${base}/cvc_cgi/dte/of_genera_archivo`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(token && { Cookie: `TOKEN=${token}` }),
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}

const cafForm = (type: number, count: number) => ({
  RUT_EMP: ISSUER_RUT.split('-')[0]!,
  DV_EMP: ISSUER_RUT.split('-')[1]!,
  COD_DOCTO: String(type),
  CANT_DOCTOS: String(count),
});

// ---------------------------------------------------------------------------------------------

let sim: SiiSimulator;
let base: string;
let cert: SigningCertificate;
let token: string;
/** The simulator's CAF-signing key, given to it so tests can also stamp CAFs with odd dates. */
let cafSigner: KeyObject;
let caf33: CafSource;
let caf34: CafSource;
let caf61: CafSource;
let nextFolio33 = 1;

beforeAll(async () => {
  cafSigner = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  sim = createSiiSimulator({ stepDelayMs: 5, cafSigningKey: cafSigner, clock: simClock });
  ({ url: base } = await sim.listen(0));
  sim.registerIssuer({ rut: ISSUER_RUT, resolutionDate: RESOLUTION.date, resolutionNumber: RESOLUTION.number });
  cert = certificateFor(SENDER_RUT);
  token = await dtewsToken(base, cert);
  caf33 = cafSource(Buffer.from(await (await portalCaf(base, token, cafForm(33, 100))).arrayBuffer()));
  caf34 = cafSource(Buffer.from(await (await portalCaf(base, token, cafForm(34, 10))).arrayBuffer()));
  caf61 = cafSource(Buffer.from(await (await portalCaf(base, token, cafForm(61, 10))).arrayBuffer()));
});

afterAll(async () => {
  await sim?.close();
});

/** Uploads one envelope, waits for the end of processing, returns the track id and final RESPUESTA. */
async function uploadAndProcess(file: Buffer): Promise<{ trackId: string; respuesta: string }> {
  const up = await dteUpload(base, file, { token });
  expect(one(up.text, 'STATUS'), up.text).toBe('0');
  const trackId = one(up.text, 'TRACKID')!;
  await sim.settled();
  return { trackId, respuesta: await estUp(base, token, trackId) };
}

const documentsOf = (trackId: string) => sim.uploads().find((u) => u.trackId === trackId)?.documents ?? [];

describe('authentication (CrSeed / GetTokenFromSeed)', () => {
  it('hands out a 12-digit seed in the SII SOAP shape', async () => {
    const answer = await soap(base, 'CrSeed', 'getSeed');
    expect(answer.status).toBe(200);
    expect(answer.raw).toContain('<getSeedReturn xsi:type="xsd:string">&lt;?xml version=&quot;1.0&quot;');
    expect(answer.raw).toMatch(/<ns1:getSeedResponse soapenv:encodingStyle="[^"]+" xmlns:ns1="https:\/\/maullin/);
    expect(one(answer.respuesta, 'ESTADO')).toBe('00');
    expect(one(answer.respuesta, 'SEMILLA')).toMatch(/^\d{12}$/);
  });

  it('issues a token for a correctly signed seed, once', async () => {
    const seed = one((await soap(base, 'CrSeed', 'getSeed')).respuesta, 'SEMILLA')!;
    const pszXml = signedSeed(seed, cert);
    const first = await soap(base, 'GetTokenFromSeed', 'getToken', { pszXml });
    expect(one(first.respuesta, 'ESTADO')).toBe('00');
    expect(one(first.respuesta, 'GLOSA')).toBe('Token Creado');
    expect(one(first.respuesta, 'TOKEN')).toMatch(/^[A-Za-z0-9]{13}$/);
    const again = await soap(base, 'GetTokenFromSeed', 'getToken', { pszXml });
    expect(one(again.respuesta, 'ESTADO')).toBe('08');
  });

  it('refuses a seed whose signed content was changed (05), an unknown seed (08) and an unsigned one (04)', async () => {
    const seed = one((await soap(base, 'CrSeed', 'getSeed')).respuesta, 'SEMILLA')!;
    const other = one((await soap(base, 'CrSeed', 'getSeed')).respuesta, 'SEMILLA')!;
    const tampered = signedSeed(seed, cert).replace(`<Semilla>${seed}`, `<Semilla>${other}`);
    const bad = await soap(base, 'GetTokenFromSeed', 'getToken', { pszXml: tampered });
    expect(one(bad.respuesta, 'ESTADO')).toBe('05');
    expect(one(bad.respuesta, 'TOKEN')).toBeUndefined();

    const unknown = await soap(base, 'GetTokenFromSeed', 'getToken', { pszXml: signedSeed('000000000001', cert) });
    expect(one(unknown.respuesta, 'ESTADO')).toBe('08');

    const unsigned = `<getToken><item><Semilla>${seed}</Semilla></item></getToken>`;
    const none = await soap(base, 'GetTokenFromSeed', 'getToken', { pszXml: unsigned });
    expect(one(none.respuesta, 'ESTADO')).toBe('04');
  });

  it('refuses an expired seed (TIME-OUT DEL SEED) and lets tokens expire after their TTL', async () => {
    let now = Date.now();
    const timed = createSiiSimulator({ clock: () => new Date(now), tokenTtlMs: 60_000, stepDelayMs: 1 });
    const { url } = await timed.listen(0);
    try {
      const seed = one((await soap(url, 'CrSeed', 'getSeed')).respuesta, 'SEMILLA')!;
      now += 2 * 60_000 + 1_000;
      const late = await soap(url, 'GetTokenFromSeed', 'getToken', { pszXml: signedSeed(seed, cert) });
      expect(one(late.respuesta, 'ESTADO')).toBe('08');
      expect(one(late.respuesta, 'GLOSA')).toBe('TIME-OUT DEL SEED');

      const fresh = await dtewsToken(url, cert);
      expect(one(await estUp(url, fresh, '1'), 'ESTADO')).toBe('-11');
      now += 61_000;
      const expired = await estUp(url, fresh, '1');
      expect(one(expired, 'ESTADO')).toBe('002');
    } finally {
      await timed.close();
    }
  });

  it('serves the vendored WSDL pointing at itself', async () => {
    const res = await fetch(`${base}/DTEWS/QueryEstUp.jws?wsdl`);
    const wsdl = await res.text();
    expect(res.status).toBe(200);
    expect(wsdl).toContain(`<wsdlsoap:address location="${base}/DTEWS/QueryEstUp.jws"/>`);
    expect(wsdl).toContain('name="getEstUp"');
  });

  it('answers token errors 003 (unknown) and 002 (expired on demand) on the queries', async () => {
    expect(one(await estUp(base, 'NOSUCHTOKEN12', '1'), 'ESTADO')).toBe('003');
    const doomed = await dtewsToken(base, cert);
    sim.expireTokens();
    expect(one(await estUp(base, doomed, '1'), 'ESTADO')).toBe('002');
    token = await dtewsToken(base, cert);
  });

  it('works with the soap npm package through the served WSDL', async () => {
    const client = await soapPackage.createClientAsync(`${base}/DTEWS/CrSeed.jws?wsdl`);
    const [result] = await client.getSeedAsync(null);
    // As against the real Axis: the string comes as { attributes, $value }.
    expect(one(result.getSeedReturn.$value, 'SEMILLA')).toMatch(/^\d{12}$/);
    const query = await soapPackage.createClientAsync(`${base}/DTEWS/QueryEstUp.jws?wsdl`);
    const [estado] = await query.getEstUpAsync({
      RutCompania: '076177907',
      DvCompania: '9',
      TrackId: '1',
      Token: token,
    });
    expect(one(estado.getEstUpReturn.$value, 'ERR_CODE')).toBe('2');
  });

  it('answers a SOAP Fault with HTTP 500 for an unknown operation', async () => {
    const answer = await soap(base, 'CrSeed', 'getToken', { pszXml: 'x' });
    expect(answer.status).toBe(500);
    expect(answer.raw).toContain('<faultcode>soapenv:Client</faultcode>');
  });
});

describe('folios (of_genera_archivo)', () => {
  it('hands out consecutive CAF ranges signed with the simulator key (IDK 100)', async () => {
    const trusted = [parseTrustedKeyPem(sim.cafPublicKeyPem, 'simulator')];
    expect(caf33.caf).toMatchObject({ re: ISSUER_RUT, td: 33, from: 1, to: 100, idk: 100, fa: TODAY });
    expect(verifyCafSignature(caf33.caf, trusted)).toBe(true);
    const res = await portalCaf(base, token, cafForm(33, 5));
    expect(res.headers.get('content-type')).toContain('ISO-8859-1');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=FoliosSII76177907331/);
    const next = parseCaf(Buffer.from(await res.arrayBuffer()));
    expect([next.from, next.to]).toEqual([101, 105]);
    expect(verifyCafSignature(next, trusted)).toBe(true);
  });

  it('refuses without Referer (500), without token, and outside 1..10000 folios (portal error pages)', async () => {
    expect((await portalCaf(base, token, cafForm(33, 5), {})).status).toBe(500);
    const anonymous = await portalCaf(base, null, cafForm(33, 5));
    expect(anonymous.status).toBe(200);
    expect(await anonymous.text()).toContain('NO ESTA AUTENTICADO');
    for (const count of [0, 10_001]) {
      const res = await portalCaf(base, token, cafForm(33, count));
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(await res.text()).toContain('NO SE AUTORIZA TIMBRAJE');
    }
  });
});

describe('DTEUpload and processing', () => {
  it('receives a valid EnvioDTE, walks REC…EPR, counts it accepted, and QueryEstDte says DOK', async () => {
    const f33 = signedDte(caf33, cert, { request: factura(), folio: nextFolio33++ });
    const f34 = signedDte(caf34, cert, { request: requestFor(34), folio: 1 });
    const file = envelope(
      'dte',
      [
        { type: 33, xml: f33 },
        { type: 34, xml: f34 },
      ],
      cert,
    );
    sim.setProcessingDelay(150);
    const up = await dteUpload(base, file, { token });
    expect(up.status).toBe(200);
    expect(one(up.text, 'STATUS')).toBe('0');
    expect(one(up.text, 'RUTSENDER')).toBe(SENDER_RUT);
    expect(one(up.text, 'RUTCOMPANY')).toBe(ISSUER_RUT);
    const trackId = one(up.text, 'TRACKID')!;
    expect(trackId).toMatch(/^\d{10}$/);

    const early = await estUp(base, token, trackId);
    expect(['REC', 'SOK']).toContain(one(early, 'ESTADO'));
    expect(await estDte(base, token, keyOf(f33))).toContain('<ESTADO>FAU</ESTADO>');
    await sim.settled();
    sim.setProcessingDelay(5);

    const done = await estUp(base, token, trackId);
    expect(one(done, 'ESTADO')).toBe('EPR');
    // The SII puts RESP_BODY before RESP_HDR (captured live).
    expect(done.indexOf('<SII:RESP_BODY>')).toBeLessThan(done.indexOf('<SII:RESP_HDR>'));
    expect(all(done, 'TIPO_DOCTO')).toEqual(['33', '34']);
    expect(all(done, 'ACEPTADOS')).toEqual(['1', '1']);
    expect(all(done, 'RECHAZADOS')).toEqual(['0', '0']);

    const dok = await estDte(base, token, keyOf(f33));
    expect(one(dok, 'ESTADO')).toBe('DOK');
    expect(one(dok, 'ERR_CODE')).toBe('0');
    const wrongAmount = await estDte(base, token, { ...keyOf(f33), total: '1' });
    expect(one(wrongAmount, 'ESTADO')).toBe('DNK');
    expect(one(await estDte(base, token, { ...keyOf(f33), folio: 99 }), 'ESTADO')).toBe('FAU');
    expect(one(await estDte(base, token, keyOf(f33), OTHER_PERSON_RUT), 'ESTADO')).toBe('-3');
  });

  it('answers STATUS 99 with the same TRACKID for an identical re-upload, without a new submission', async () => {
    const file = envelope(
      'dte',
      [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: nextFolio33++ }) }],
      cert,
    );
    const first = await dteUpload(base, file, { token });
    const trackId = one(first.text, 'TRACKID');
    const before = sim.uploads().length;
    const again = await dteUpload(base, file, { token });
    expect(one(again.text, 'STATUS')).toBe('99');
    expect(one(again.text, 'TRACKID')).toBe(trackId);
    expect(one(again.text, 'ERROR')).toMatch(new RegExp(`^Archivo ya fue enviado 1 veces con Trackid ${trackId}`));
    expect(sim.uploads()).toHaveLength(before);
    expect(sim.uploads().find((u) => u.trackId === trackId)?.timesSent).toBe(2);
  });

  it('refuses a schema-invalid envelope with STATUS 7 and the schema errors', async () => {
    const good = envelope('dte', [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: 90 }) }], cert);
    const bad = Buffer.from(good.toString('latin1').replace('</RutReceptor>', '</RutReceptor>\n<Foo/>'), 'latin1');
    const up = await dteUpload(base, bad, { token });
    expect(one(up.text, 'STATUS')).toBe('7');
    expect(one(up.text, 'TRACKID')).toBeUndefined();
    expect(all(up.text, 'ERROR').join('\n')).toContain('Foo');

    const oneLine = Buffer.from(good.toString('latin1').replace(/\n/g, ''), 'latin1');
    const long = await dteUpload(base, oneLine, { token });
    expect(one(long.text, 'STATUS')).toBe('7');
    expect(one(long.text, 'ERROR')).toBe('CHR-00002: Line too long (4090)');
  });

  it('rejects a document whose amount was changed after signing (DTE-3-505) and one whose total no longer matches the TED (TED-3-640)', async () => {
    const detailChanged = signedDte(caf33, cert, {
      request: factura(),
      folio: nextFolio33++,
      tamper: (xml) => xml.replace('<MontoItem>17980</MontoItem>', '<MontoItem>17981</MontoItem>'),
    });
    const totalChanged = signedDte(caf33, cert, {
      request: factura(),
      folio: nextFolio33++,
      tamper: (xml) =>
        xml.replace(/<MntTotal>(\d+)<\/MntTotal>/, (_, n: string) => `<MntTotal>${Number(n) + 1}</MntTotal>`),
    });
    expect(detailChanged.toString('latin1')).toContain('<MontoItem>17981</MontoItem>');
    const { trackId, respuesta } = await uploadAndProcess(
      envelope(
        'dte',
        [
          { type: 33, xml: detailChanged },
          { type: 33, xml: totalChanged },
        ],
        cert,
      ),
    );
    expect(one(respuesta, 'ESTADO')).toBe('EPR');
    expect(one(respuesta, 'RECHAZADOS')).toBe('2');
    const [first, second] = documentsOf(trackId);
    expect(first).toMatchObject({ estado: 'RCH', errors: ['(DTE-3-505) Firma DTE Incorrecta'] });
    expect(second).toMatchObject({ estado: 'RCH', errors: ['(TED-3-640) Monto Total No Corresponde al Timbre'] });
    expect(one(await estDte(base, token, keyOf(detailChanged)), 'ESTADO')).toBe('FAU');
  });

  it('rejects the envelope (RCT) when RutEnvia is not the authenticated sender, or the resolution is wrong', async () => {
    const doc = () => [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: nextFolio33++ }) }];
    const wrongSender = await uploadAndProcess(envelope('dte', doc(), cert, { senderRut: OTHER_PERSON_RUT }));
    expect(one(wrongSender.respuesta, 'ESTADO')).toBe('RCT');
    expect(one(wrongSender.respuesta, 'GLOSA')).toContain(`RutEnvia ${OTHER_PERSON_RUT}`);
    const wrongResolution = await uploadAndProcess(envelope('dte', doc(), cert, { resolutionNumber: 0 }));
    expect(one(wrongResolution.respuesta, 'GLOSA')).toBe(
      'Rechazado por Error en Caratula (CRT-3-19) Fecha/Numero Resolucion Invalido',
    );
  });

  it('rejects the envelope (RFR) when its SetDTE signature no longer verifies', async () => {
    const file = envelope('dte', [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: 91 }) }], cert);
    const broken = Buffer.from(
      file.toString('latin1').replace('T10:05:00</TmstFirmaEnv>', 'T10:05:01</TmstFirmaEnv>'),
      'latin1',
    );
    const { trackId, respuesta } = await uploadAndProcess(broken);
    expect(one(respuesta, 'ESTADO')).toBe('RFR');
    expect(documentsOf(trackId)).toEqual([]);
  });

  it('answers 401 without PROG 1.0, STATUS 5 without a valid token, STATUS 1 for another sender, STATUS 3 for a chunked body', async () => {
    const file = envelope('dte', [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: 92 }) }], cert);
    const noUa = await dteUpload(base, file, { token, userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' });
    expect(noUa.status).toBe(401);
    expect(noUa.text).toContain('NO ESTA AUTENTICADO');
    expect(one((await dteUpload(base, file, { token: 'BADTOKEN00000' })).text, 'STATUS')).toBe('5');
    expect(one((await dteUpload(base, file, {})).text, 'STATUS')).toBe('5');
    expect(one((await dteUpload(base, file, { token, sender: OTHER_PERSON_RUT })).text, 'STATUS')).toBe('1');
    expect(one((await dteUpload(base, file, { token, chunked: true })).text, 'STATUS')).toBe('3');
    const sha256 = createHash('sha256').update(file).digest('hex');
    expect(sim.uploads().some((u) => u.sha256 === sha256)).toBe(false);
  });

  it('applies the magic receiver RUTs: 11111111-1 rejected, 22222222-2 RLV, 33333333-3 RPR', async () => {
    const docs = ['11111111-1', '22222222-2', '33333333-3'].map((rut) => ({
      type: 33,
      xml: signedDte(caf33, cert, { request: factura({ receiver: { ...RECEIVER, rut } }), folio: nextFolio33++ }),
    }));
    const { trackId, respuesta } = await uploadAndProcess(envelope('dte', docs, cert));
    expect(one(respuesta, 'INFORMADOS')).toBe('3');
    expect(one(respuesta, 'ACEPTADOS')).toBe('0');
    expect(one(respuesta, 'RECHAZADOS')).toBe('1');
    expect(one(respuesta, 'REPAROS')).toBe('2');
    expect(documentsOf(trackId).map((d) => d.estado)).toEqual(['RCH', 'RLV', 'RPR']);
    expect(one(await estDte(base, token, keyOf(docs[0]!.xml)), 'ESTADO')).toBe('FAU');
    expect(one(await estDte(base, token, keyOf(docs[1]!.xml)), 'ESTADO')).toBe('DOK');
  });

  it('rejects a second document with an accepted folio: DTE-3-101 with other content, DTE-3-100 when identical', async () => {
    const folio = nextFolio33++;
    const original = signedDte(caf33, cert, { request: factura(), folio });
    await uploadAndProcess(envelope('dte', [{ type: 33, xml: original }], cert));
    const otherContent = signedDte(caf33, cert, {
      request: factura({ items: [{ name: 'Otra cosa', qty: 1, price: 1000 }] }),
      folio,
    });
    const second = await uploadAndProcess(envelope('dte', [{ type: 33, xml: otherContent }], cert));
    expect(documentsOf(second.trackId)).toEqual([
      expect.objectContaining({
        estado: 'RCH',
        errors: ['(DTE-3-101) Folio para este Tipo de documento ya fue recibido en el SII'],
      }),
    ]);
    // The same signed document in a rebuilt envelope (other bytes, so not a STATUS 99).
    const rebuilt = envelope('dte', [{ type: 33, xml: original }], cert, { timestamp: `${TODAY}T11:00:00` });
    const third = await uploadAndProcess(rebuilt);
    expect(documentsOf(third.trackId)).toEqual([
      expect.objectContaining({ estado: 'RCH', errors: ['(DTE-3-100) DTE Repetido'] }),
    ]);
    expect(one(await estDte(base, token, keyOf(original)), 'ESTADO')).toBe('DOK');
  });

  it('checks the CAF: untrusted signer (CAF-3-516), expired (CAF-3-517), folio out of range, FchEmis before FA (TED-1-646)', async () => {
    const stranger = cafSource(
      generateCaf({
        rut: ISSUER_RUT,
        name: 'X',
        type: 33,
        from: 500,
        to: 510,
        authorisedAt: TODAY,
        signerKey: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey,
        idk: 100,
      }),
    );
    const old = cafSource(
      generateCaf({
        rut: ISSUER_RUT,
        name: 'X',
        type: 33,
        from: 600,
        to: 610,
        authorisedAt: '2024-01-02',
        signerKey: cafSigner,
        idk: 100,
      }),
    );
    const future = cafSource(
      generateCaf({
        rut: ISSUER_RUT,
        name: 'X',
        type: 33,
        from: 700,
        to: 710,
        authorisedAt: '2050-01-01',
        signerKey: cafSigner,
        idk: 100,
      }),
    );
    const docs = [
      signedDte(stranger, cert, { request: factura(), folio: 500 }),
      signedDte(old, cert, { request: factura(), folio: 600 }),
      signedDte(caf34, cert, { request: requestFor(34), folio: 11 }),
      signedDte(future, cert, { request: factura(), folio: 700 }),
    ];
    const { trackId } = await uploadAndProcess(
      envelope(
        'dte',
        docs.map((xml, i) => ({ type: i === 2 ? 34 : 33, xml })),
        cert,
      ),
    );
    expect(documentsOf(trackId).map((d) => [d.estado, d.errors[0]?.slice(0, 11)])).toEqual([
      ['RCH', '(CAF-3-516)'],
      ['RCH', '(CAF-3-517)'],
      ['RCH', '(TED-3-531)'],
      ['RLV', '(TED-1-646)'],
    ]);
  });

  it('shows ANC for a factura annulled by an accepted credit note; a note for an unknown folio is REF-3-750', async () => {
    const folio = nextFolio33++;
    const original = signedDte(caf33, cert, { request: factura(), folio });
    await uploadAndProcess(envelope('dte', [{ type: 33, xml: original }], cert));
    const note = (refFolio: number, noteFolio: number) =>
      signedDte(caf61, cert, {
        folio: noteFolio,
        request: {
          type: 61,
          receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
          items: (factura() as { items: unknown[] }).items,
          refs: [{ type: 33, folio: refFolio, date: TODAY, code: 1, reason: 'Anula factura' }],
        },
      });
    const { trackId, respuesta } = await uploadAndProcess(
      envelope(
        'dte',
        [
          { type: 61, xml: note(folio, 1) },
          { type: 61, xml: note(99_999, 2) },
        ],
        cert,
      ),
    );
    expect(one(respuesta, 'ACEPTADOS')).toBe('1');
    expect(documentsOf(trackId)[1]).toMatchObject({
      estado: 'RCH',
      errors: ['(REF-3-750) DTE Referenciado NO recibido en el SII'],
    });
    const anc = await estDte(base, token, keyOf(original));
    expect(one(anc, 'ESTADO')).toBe('ANC');
    expect(one(anc, 'ERR_CODE')).toBe('15');
  });

  it('SII format rule 3: a note on another receiver (REF-2-781) or with a wrong FchRef (REF-2-782) is a reparo', async () => {
    const folio = nextFolio33++;
    const original = signedDte(caf33, cert, { request: factura(), folio });
    await uploadAndProcess(envelope('dte', [{ type: 33, xml: original }], cert));
    const note = (noteFolio: number, receiverRut: string, date: string) =>
      signedDte(caf61, cert, {
        folio: noteFolio,
        request: {
          type: 61,
          receiver: { rut: receiverRut, name: RECEIVER.name },
          items: [{ name: 'Descuento', qty: 1, price: 100 }],
          refs: [{ type: 33, folio, date, code: 3, reason: 'Descuento' }],
        },
      });
    const { trackId } = await uploadAndProcess(
      envelope(
        'dte',
        [
          { type: 61, xml: note(5, '13185095-6', TODAY) },
          { type: 61, xml: note(6, RECEIVER.rut, '2020-01-01') },
          { type: 61, xml: note(7, RECEIVER.rut, TODAY) },
        ],
        cert,
      ),
    );
    expect(documentsOf(trackId).map((d) => [d.estado, d.errors[0]?.slice(0, 11)])).toEqual([
      ['RPR', '(REF-2-781)'],
      ['RPR', '(REF-2-782)'],
      ['ACEPTADO', undefined],
    ]);
  });

  it('answers -11 for a track id of another company or an unknown one', async () => {
    // An upload of its own: under a shuffled order no other test may have uploaded yet.
    const xml = signedDte(caf33, cert, { request: factura(), folio: nextFolio33++ });
    const { trackId } = await uploadAndProcess(envelope('dte', [{ type: 33, xml }], cert));
    expect(one(await estUp(base, token, trackId, '60910000-1'), 'ERR_CODE')).toBe('1');
    expect(one(await estUp(base, token, '9999999999'), 'ERR_CODE')).toBe('2');
  });
});

describe('boleta REST API', () => {
  const boletaHeaders = (t: string) => ({ Cookie: `TOKEN=${t}`, Accept: 'application/json' });
  let boletaTok: string;
  let caf39: CafSource;

  beforeAll(async () => {
    boletaTok = await boletaToken(base, cert);
    caf39 = cafSource(sim.issueCaf({ rut: ISSUER_RUT, type: 39, count: 20 }));
  });

  async function envio(file: Buffer, opts: UploadOptions = {}): Promise<Response> {
    return fetch(`${base}/recursos/v1/boleta.electronica.envio`, uploadRequest(file, { token: boletaTok, ...opts }));
  }

  it('takes an EnvioBOLETA (REC, 15-digit trackid), reaches EPR, and reports the boleta DOK', async () => {
    const boleta = signedDte(caf39, cert, { request: requestFor(39), folio: 1 });
    const res = await envio(envelope('boleta', [{ type: 39, xml: boleta }], cert));
    expect(res.status).toBe(200);
    const received = (await res.json()) as Record<string, unknown>;
    expect(received).toMatchObject({
      rut_emisor: ISSUER_RUT,
      rut_envia: SENDER_RUT,
      estado: 'REC',
      file: 'EnvioTimbre.xml',
    });
    expect(String(received.trackid)).toMatch(/^\d{15}$/);
    expect(received.fecha_recepcion).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await sim.settled();

    const status = await fetch(`${base}/recursos/v1/boleta.electronica.envio/76177907-9-${received.trackid}`, {
      headers: boletaHeaders(boletaTok),
    });
    expect(await status.json()).toMatchObject({
      estado: 'EPR',
      trackid: received.trackid,
      estadistica: [{ tipo: 39, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 }],
      detalle_rep_rech: [],
    });

    const key = keyOf(boleta);
    const [y, m, d] = key.date.split('-');
    const query = `rut_receptor=66666666&dv_receptor=6&monto=${key.total}&fechaEmision=${d}-${m}-${y}`;
    const estado = await fetch(`${base}/recursos/v1/boleta.electronica/76177907-9-39-1/estado?${query}`, {
      headers: boletaHeaders(boletaTok),
    });
    expect(await estado.json()).toEqual({
      codigo: 'DOK',
      descripcion: 'Documento Recibido por el SII. Datos Coinciden con los Registrados',
    });
    const missing = await fetch(`${base}/recursos/v1/boleta.electronica/76177907-9-39-1/estado`, {
      headers: boletaHeaders(boletaTok),
    });
    expect(missing.status).toBe(200);
    expect(await missing.text()).toBe('falta rut_receptor');
  });

  it('lists rejected boletas in detalle_rep_rech and refuses repeats (RPT), EnvioDTE (RSC), tokens of DTEWS and missing PROG 1.0', async () => {
    const rejected = signedDte(caf39, cert, {
      request: { ...requestFor(39), receiver: { rut: '11111111-1' } },
      folio: 2,
    });
    const file = envelope('boleta', [{ type: 39, xml: rejected }], cert);
    const first = (await (await envio(file)).json()) as { trackid: number };
    const repeat = (await (await envio(file)).json()) as { trackid: number };
    expect(repeat.trackid).not.toBe(first.trackid);
    const notBoleta = envelope(
      'dte',
      [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: 93 }) }],
      cert,
    );
    const wrongKind = (await (await envio(notBoleta)).json()) as { trackid: number };
    await sim.settled();

    const statusOf = async (trackid: number) =>
      (await (
        await fetch(`${base}/recursos/v1/boleta.electronica.envio/76177907-9-${trackid}`, {
          headers: boletaHeaders(boletaTok),
        })
      ).json()) as {
        estado: string;
        detalle_rep_rech: { estado: string; folio?: number; error: { detalle: string }[] }[];
      };
    const firstStatus = await statusOf(first.trackid);
    expect(firstStatus.estado).toBe('EPR');
    expect(firstStatus.detalle_rep_rech).toEqual([
      expect.objectContaining({
        tipo: 39,
        folio: 2,
        estado: 'RCH',
        error: [expect.objectContaining({ detalle: 'HED-3-901' })],
      }),
    ]);
    expect((await statusOf(repeat.trackid)).estado).toBe('RPT');
    const rsc = await statusOf(wrongKind.trackid);
    expect(rsc.estado).toBe('RSC');
    expect(rsc.detalle_rep_rech[0]?.error[0]?.detalle).toContain('SCH-00001');

    const withDtewsToken = await envio(file, { token });
    expect(withDtewsToken.status).toBe(401);
    const noProg = await envio(file, { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120' });
    expect(noProg.status).toBe(401);
    expect(await noProg.text()).toBe('NO ESTA AUTENTICADO');
    expect(one(await estUp(base, boletaTok, String(first.trackid)), 'ESTADO')).toBe('003');
  });

  it('requires Content-Type application/xml for the token', async () => {
    const semilla = await (await fetch(`${base}/recursos/v1/boleta.electronica.semilla`)).text();
    expect(semilla).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<SII:RESPUESTA/);
    const res = await fetch(`${base}/recursos/v1/boleta.electronica.token`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: signedSeed(one(semilla, 'SEMILLA')!, cert),
    });
    expect(res.status).toBe(415);
  });

  it('accepts an EnvioBOLETA through DTEUpload, as certification does', async () => {
    const boleta = signedDte(caf39, cert, { request: requestFor(39), folio: 3 });
    const { respuesta } = await uploadAndProcess(envelope('boleta', [{ type: 39, xml: boleta }], cert));
    expect(one(respuesta, 'ESTADO')).toBe('EPR');
    expect(one(respuesta, 'TIPO_DOCTO')).toBe('39');
    expect(one(respuesta, 'ACEPTADOS')).toBe('1');
  });
});

describe('faults', () => {
  const seedCall = () => soap(base, 'CrSeed', 'getSeed');

  it('down: the connection is dropped without an answer, for `count` requests', async () => {
    sim.setFault({ kind: 'down', count: 1 });
    await expect(seedCall()).rejects.toThrow();
    expect(one((await seedCall()).respuesta, 'ESTADO')).toBe('00');
  });

  it('http500 on the upload path only: nothing is received', async () => {
    const file = envelope('dte', [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: 94 }) }], cert);
    sim.setFault({ kind: 'http500', paths: ['/cgi_dte/UPL/DTEUpload'] });
    try {
      expect((await seedCall()).status).toBe(200);
      const before = sim.uploads().length;
      const up = await dteUpload(base, file, { token });
      expect(up.status).toBe(500);
      expect(sim.uploads()).toHaveLength(before);
    } finally {
      sim.clearFaults();
    }
  });

  it('slow: the answer comes after delayMs', async () => {
    sim.setFault({ kind: 'slow', delayMs: 300, count: 1 });
    const t0 = Date.now();
    expect(one((await seedCall()).respuesta, 'ESTADO')).toBe('00');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('timeout-after-receipt: the upload gets a track id but no answer; sending it again yields STATUS 99', async () => {
    const file = envelope(
      'dte',
      [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: nextFolio33++ }) }],
      cert,
    );
    sim.setFault({ kind: 'timeout-after-receipt', count: 1 });
    const before = sim.uploads().length;
    await expect(dteUpload(base, file, { token, signal: AbortSignal.timeout(500) })).rejects.toThrow();
    const received = sim.uploads();
    expect(received).toHaveLength(before + 1);
    const trackId = received.at(-1)!.trackId;
    const again = await dteUpload(base, file, { token });
    expect(one(again.text, 'STATUS')).toBe('99');
    expect(one(again.text, 'TRACKID')).toBe(trackId);
  });

  it('companyRut: another company’s upload is answered and leaves the fault; that company’s upload gets it', async () => {
    const file = () =>
      envelope('dte', [{ type: 33, xml: signedDte(caf33, cert, { request: factura(), folio: nextFolio33++ }) }], cert);
    sim.setFault({ kind: 'timeout-after-receipt', count: 1, companyRut: ISSUER_RUT });
    try {
      const other = await dteUpload(base, file(), { token, company: '96790240-3' });
      expect(other.status).toBe(200);
      expect(one(other.text, 'STATUS')).toMatch(/^\d+$/);
      expect(sim.faults()).toEqual([{ kind: 'timeout-after-receipt', count: 1, companyRut: ISSUER_RUT }]);
      const before = sim.uploads().length;
      await expect(dteUpload(base, file(), { token, signal: AbortSignal.timeout(500) })).rejects.toThrow();
      expect(sim.uploads()).toHaveLength(before + 1);
      expect(sim.faults()).toEqual([]);
    } finally {
      sim.clearFaults();
    }
  });

  it('is controllable over HTTP under /sim', async () => {
    const add = await fetch(`${base}/sim/faults`, {
      method: 'POST',
      body: JSON.stringify({ kind: 'http500', count: 2, paths: ['/DTEWS/CrSeed.jws'] }),
    });
    expect(add.status).toBe(204);
    expect(await (await fetch(`${base}/sim/faults`)).json()).toEqual([
      { kind: 'http500', count: 2, paths: ['/DTEWS/CrSeed.jws'] },
    ]);
    expect((await seedCall()).status).toBe(500);
    expect((await fetch(`${base}/sim/faults`, { method: 'DELETE' })).status).toBe(204);
    expect((await seedCall()).status).toBe(200);
    expect(await (await fetch(`${base}/sim/caf-key.pem`)).text()).toBe(sim.cafPublicKeyPem);
    const uploads = (await (await fetch(`${base}/sim/uploads`)).json()) as unknown[];
    expect(uploads).toHaveLength(sim.uploads().length);
    const badIssuer = await fetch(`${base}/sim/issuers`, { method: 'POST', body: JSON.stringify({ rut: '1-1' }) });
    expect(badIssuer.status).toBe(400);
  });
});

describe('npm run sii-sim', () => {
  it('prints the environment a Timbre operator sets, writes the key file, and stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sii-sim-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sii-simulator/main.ts'], {
      env: { ...process.env, SII_SIM_PORT: '0', SII_SIM_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await expect.poll(() => out, { timeout: 30_000 }).toContain('TIMBRE_EXTRA_CAF_KEYS=');
      const lines = out.trim().split('\n');
      const port = /^SII_DTEWS_URL=http:\/\/127\.0\.0\.1:(\d+)$/.exec(lines[0]!)?.[1];
      expect(port).toBeDefined();
      const url = `http://127.0.0.1:${port}`;
      expect(lines).toEqual([
        `SII_DTEWS_URL=${url}`,
        `SII_UPLOAD_URL=${url}`,
        `SII_PORTAL_URL=${url}`,
        `SII_BOLETA_API_URL=${url}/recursos/v1`,
        `SII_BOLETA_UPLOAD_URL=${url}/recursos/v1`,
        `SII_RPETC_URL=${url}`,
        `TIMBRE_EXTRA_CAF_KEYS=${join(dataDir, 'sii-sim-caf-key.pem')}`,
      ]);
      expect(readFileSync(join(dataDir, 'sii-sim-caf-key.pem'), 'utf8')).toContain('BEGIN PUBLIC KEY');
      expect(one((await soap(url, 'CrSeed', 'getSeed')).respuesta, 'ESTADO')).toBe('00');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
