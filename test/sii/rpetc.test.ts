/**
 * The registry of cesiones (RPETC): Timbre's real client (src/sii/rpetc.ts) against the local
 * simulator's AEC upload and wsRPETCConsulta (src/sii-simulator/rpetc.ts): every upload STATUS
 * the simulator can be made to answer, the envío's states, the cesión queries with a holder
 * registered by hand, token renewal, and the answers the simulator never gives (internal
 * errors) from a stand-in server, classified as retryable.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAec } from '../../src/cession/aec.ts';
import { addDays, calendarDate } from '../../src/dte/calendar-date.ts';
import { generateTestCertificate, parsePkcs12, type SigningCertificate } from '../../src/dte/certificate.ts';
import { santiagoTimestamp } from '../../src/dte/chile-time.ts';
import { createSiiClient } from '../../src/sii/client.ts';
import {
  ESTADO_ENVIO,
  RPETC_HEADER_CODES,
  RPETC_UPLOAD_STATUS,
  readEstCesionAnswer,
  readEstEnvioAnswer,
  readRecepcionAec,
} from '../../src/sii/rpetc.ts';
import { signSeed } from '../../src/sii/session.ts';
import { soapRequest, soapReturnValue } from '../../src/sii/soap.ts';
import type { SiiClient } from '../../src/sii/types.ts';
import { SiiAmbiguousError, SiiUnavailableError } from '../../src/sii/types.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/index.ts';
import { MAX_AEC_BYTES } from '../../src/sii-simulator/rpetc.ts';
import { closeAfterApps } from '../helpers/app.ts';
import { textOf } from '../helpers/dte-pipeline.ts';
import { createLiveIssuer, estadoOf, eventually, startLiveApp } from '../helpers/live.ts';
import { factura } from '../helpers/requests.ts';
import { waitFor } from '../helpers/time.ts';

/** The cedente, an issuer the simulator knows. */
const COMPANY = '76354771-K';
/** Its representative: the certificate holder who acts for COMPANY. */
const PERSON = '13185095-6';
/** Someone authorised only for another company. */
const OUTSIDER = '8414240-9';
const OTHER_COMPANY = '96874030-K';
const FACTOR = '76086428-5';
const DEBTOR = '77777777-7';
const UPLOAD_PATH = '/cgi_rtc/RTC/RTCAnotEnvio.cgi';

let sim: SiiSimulator;
let url: string;
let sii: SiiClient;
let person: SigningCertificate;
let outsider: SigningCertificate;
/** Debug lines of `sii`: the token renewals show here. */
const logLines: string[] = [];
let nextFolio = 500;

function cert(holderRut: string): SigningCertificate {
  const { p12, password } = generateTestCertificate({ holderRut, name: 'Persona de Prueba' });
  return parsePkcs12(p12, password);
}

function config(rpetcUrl = url) {
  return {
    SII_REGISTRO_URL: `${url}/WSREGISTRORECLAMODTE/registroreclamodteservice`,
    SII_DTEWS_URL: url,
    SII_UPLOAD_URL: url,
    SII_BOLETA_API_URL: `${url}/recursos/v1`,
    SII_BOLETA_UPLOAD_URL: `${url}/recursos/v1`,
    SII_PORTAL_URL: url,
    SII_RPETC_URL: rpetcUrl,
    SII_TIMEOUT_MS: 3_000,
  };
}

const AEC = Buffer.from(
  '<?xml version="1.0" encoding="ISO-8859-1"?>\n<AEC version="1.0">no es un AEC</AEC>\n',
  'latin1',
);

const upload = (over: Partial<Parameters<SiiClient['rpetc']['uploadAec']>[0]> = {}) =>
  sii.rpetc.uploadAec({ cert: person, companyRut: COMPANY, email: 'cesiones@example.cl', aec: AEC, ...over });

const renewals = () => logLines.filter((l) => l.includes('authenticating again')).length;

beforeAll(async () => {
  sim = createSiiSimulator({ stepDelayMs: 5 });
  // Closed after the live app of the end-to-end test, whose jobs talk to it.
  closeAfterApps(() => sim.close());
  ({ url } = await sim.listen(0));
  sim.registerIssuer({ rut: COMPANY, resolutionDate: '2014-08-22', resolutionNumber: 80 });
  sim.authorizeUser({ holderRut: OUTSIDER, companyRut: OTHER_COMPANY });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  sii = createSiiClient({ config: config(), log: pino({ level: 'debug' }, sink) });
  person = cert(PERSON);
  outsider = cert(OUTSIDER);
});

describe('the upload (RTCAnotEnvio.cgi): STATUS', () => {
  it('0 with a TRACKID; the envío then walks to a final state that getEstEnvio reports', async () => {
    const answer = await upload({ fileName: 'AEC_33_1.xml' });
    expect(answer).toMatchObject({ status: 0, accepted: true, glosa: RPETC_UPLOAD_STATUS[0] });
    expect(answer.trackId).toMatch(/^\d{10}$/);
    const status = await waitFor(async () => {
      const s = await sii.rpetc.getEstEnvio({ cert: person, trackId: answer.trackId! });
      return s.final && s;
    });
    // Not an AEC at all: refused at the first check, with the reason.
    expect(status).toMatchObject({ estado: 'RSC', final: true, accepted: false, header: { code: 0 } });
    expect(status.glosa).toMatch(/^Rechazado por Error en Schema: ./);
    expect(sim.aecUploads().find((u) => u.trackId === answer.trackId)).toMatchObject({
      companyRut: COMPANY,
      senderRut: PERSON,
      filename: 'AEC_33_1.xml',
      estado: 'RSC',
    });
  });

  it('4 when a field is missing (emailNotif empty)', async () => {
    expect(await upload({ email: '' })).toEqual({
      status: 4,
      accepted: false,
      glosa: 'Faltan parámetros de entrada',
    });
  });

  it('2 when the file is larger than the registry takes', async () => {
    const big = Buffer.alloc(MAX_AEC_BYTES + 1, 0x20);
    expect(await upload({ aec: big })).toMatchObject({ status: 2, accepted: false });
  });

  it('1 when the certificate holder may not act for the cedente', async () => {
    const answer = await sii.rpetc.uploadAec({ cert: outsider, companyRut: COMPANY, email: 'x@example.cl', aec: AEC });
    expect(answer).toEqual({ status: 1, accepted: false, glosa: RPETC_UPLOAD_STATUS[1] });
  });

  it('6 when the cedente is not a DTE issuer', async () => {
    expect(await upload({ companyRut: DEBTOR })).toMatchObject({ status: 6, glosa: 'Empresa no es DTE' });
  });

  it('5 (bad token) is what the simulator answers without a valid TOKEN cookie; the client renews once', async () => {
    const form = new FormData();
    form.set('emailNotif', 'x@example.cl');
    form.set('rutCompany', '76354771');
    form.set('dvCompany', 'K');
    form.set('archivo', new Blob([AEC], { type: 'text/xml' }), 'AEC.xml');
    const res = await fetch(`${url}${UPLOAD_PATH}`, {
      method: 'POST',
      body: form,
      headers: { Cookie: 'TOKEN=NOEXISTE', 'User-Agent': 'Mozilla/4.0 (compatible; PROG 1.0; Test)' },
    });
    const xml = await res.text();
    expect(xml).toContain('<RUTSENDER>-</RUTSENDER>');
    expect(readRecepcionAec(xml)).toMatchObject({ status: 5, accepted: false });

    await upload();
    const before = renewals();
    sim.expireTokens();
    expect(await upload()).toMatchObject({ status: 0 });
    expect(renewals()).toBe(before + 1);
  });

  it('an answer lost after the SII took the file (timeout, 5xx) is SiiAmbiguousError; an outage before it, SiiUnavailableError', async () => {
    const before = sim.aecUploads().length;
    sim.setFault({ kind: 'timeout-after-receipt', count: 1, delayMs: 100 });
    try {
      await expect(upload({ fileName: 'perdido.xml' })).rejects.toThrow(SiiAmbiguousError);
    } finally {
      sim.clearFaults();
    }
    // The registry has it: that is why it must be asked before sending again.
    expect(
      sim
        .aecUploads()
        .slice(before)
        .map((u) => u.filename),
    ).toEqual(['perdido.xml']);

    // A 5xx to an upload is ambiguous too; the same to a query is an outage.
    sim.setFault({ kind: 'http500', count: 1, paths: [UPLOAD_PATH] });
    try {
      await expect(upload()).rejects.toThrow(SiiAmbiguousError);
    } finally {
      sim.clearFaults();
    }
    // No token and the SII unreachable: nothing was sent.
    sim.expireTokens();
    sim.setFault({ kind: 'down', count: 1, paths: ['/DTEWS/CrSeed.jws'] });
    try {
      await expect(upload()).rejects.toThrow(SiiUnavailableError);
    } finally {
      sim.clearFaults();
    }
    sim.setFault({ kind: 'http500', count: 1, paths: ['/DTEWS/services/wsRPETCConsulta'] });
    try {
      await expect(sii.rpetc.getEstEnvio({ cert: person, trackId: '1' })).rejects.toThrow(SiiUnavailableError);
    } finally {
      sim.clearFaults();
    }
  });

  it('without PROG 1.0 in the User-Agent the gateway answers 401', async () => {
    const res = await fetch(`${url}${UPLOAD_PATH}`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(401);
  });
});

describe('wsRPETCConsulta', () => {
  it('the simulator serves the vendored WSDL (rpc/encoded, DefaultNamespace) with its own address', async () => {
    const wsdl = await (await fetch(`${url}/DTEWS/services/wsRPETCConsulta?wsdl`)).text();
    expect(wsdl).toContain(`location="${url}/DTEWS/services/wsRPETCConsulta"`);
    expect(wsdl).toContain('parameterOrder="Token RutEmisor DVEmisor TipoDoc FolioDoc IdCesion"');
    expect(wsdl).toContain('targetNamespace="http://DefaultNamespace"');
  });

  it('the request is the manual’s: the operation in http://DefaultNamespace, the Token its first part', async () => {
    let seen = '';
    const fake = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen = Buffer.concat(chunks).toString('utf8');
        res.writeHead(500, { 'Content-Type': 'text/xml' });
        res.end('');
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      const client = createSiiClient({ config: config(`http://127.0.0.1:${(fake.address() as AddressInfo).port}`) });
      await expect(client.rpetc.getEstEnvio({ cert: person, trackId: '123' })).rejects.toThrow(SiiUnavailableError);
    } finally {
      await new Promise((r) => fake.close(r));
    }
    expect(seen).toMatch(
      /<m:getEstEnvio xmlns:m="http:\/\/DefaultNamespace">\s*<Token xsi:type="xsd:string">\w+<\/Token>/,
    );
    expect(seen).toContain('<TrackId xsi:type="xsd:string">123</TrackId>');
    expect(seen).toContain('SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"');
  });

  it('the simulator answers a missing token 5, an unknown one 4, an expired one 3 (the client renews on each)', async () => {
    const consulta = `${url}/DTEWS/services/wsRPETCConsulta`;
    const call = async (token: string) => {
      const body = soapRequest(consulta, 'getEstEnvio', [
        ['Token', token],
        ['TrackId', '1'],
      ]);
      const res = await fetch(consulta, { method: 'POST', body, headers: { 'Content-Type': 'text/xml' } });
      return readEstEnvioAnswer(soapReturnValue('getEstEnvio', await res.text())).header.code;
    };
    expect(await call('')).toBe(5);
    expect(await call('NOEXISTE')).toBe(4);
    // A real token, then expired.
    const seedXml = soapReturnValue(
      'getSeed',
      await (await fetch(`${url}/DTEWS/CrSeed.jws`, { method: 'POST', body: soapRequest(url, 'getSeed', []) })).text(),
    );
    const seed = /<SEMILLA>(\d+)<\/SEMILLA>/.exec(seedXml)![1]!;
    const tokenXml = soapReturnValue(
      'getToken',
      await (
        await fetch(`${url}/DTEWS/GetTokenFromSeed.jws`, {
          method: 'POST',
          body: soapRequest(url, 'getToken', [['pszXml', signSeed(seed, person)]]),
        })
      ).text(),
    );
    const token = /<TOKEN>(\w+)<\/TOKEN>/.exec(tokenXml)![1]!;
    expect(await call(token)).toBe(2);
    sim.expireTokens();
    expect(await call(token)).toBe(3);
  });

  it('getEstEnvio: an unknown track is header 2, no estado', async () => {
    expect(await sii.rpetc.getEstEnvio({ cert: person, trackId: '9999999999' })).toEqual({
      estado: null,
      glosa: 'Error No se encontro informacion',
      final: false,
      accepted: false,
      header: { code: 2, glosa: 'Error No se encontro informacion' },
    });
  });

  it('getEstEnvio: the envío of a company the caller does not act for is 10', async () => {
    const { trackId } = await upload();
    const answer = await sii.rpetc.getEstEnvio({ cert: outsider, trackId: trackId! });
    expect(answer.header.code).toBe(10);
    expect(answer.glosa).toContain(`[${OUTSIDER}]`);
  });

  it('getEstEnvio renews an expired token once', async () => {
    const { trackId } = await upload();
    const before = renewals();
    sim.expireTokens();
    expect((await sii.rpetc.getEstEnvio({ cert: person, trackId: trackId! })).header.code).toBe(0);
    expect(renewals()).toBe(before + 1);
  });

  it('getEstCesion: a document not ceded is 2', async () => {
    const answer = await sii.rpetc.getEstCesion({ cert: person, issuerRut: COMPANY, type: 33, folio: nextFolio++ });
    expect(answer).toEqual({ code: 2, glosa: 'Documento no Cedido', cedido: false });
  });

  it('getEstCesion / getEstCesionRelac of a document ceded by hand: the holder, the access key, the links', async () => {
    const folio = nextFolio++;
    sim.registerReceivedDocument({ issuerRut: COMPANY, type: 33, folio, receiverRut: DEBTOR });
    const cesion = sim.registerCesion({ issuerRut: COMPANY, type: 33, folio, cesionarioRut: FACTOR });
    expect(cesion).toMatchObject({ seq: 1, cedenteRut: COMPANY, cesionarioRut: FACTOR, trackId: null });
    const key = { cert: person, issuerRut: COMPANY, type: 33, folio };

    expect(await sii.rpetc.getEstCesion(key)).toEqual({ code: 0, glosa: 'Documento Cedido', cedido: true });
    const detailed = await sii.rpetc.getEstCesion({ ...key, idCesion: cesion.idCesion });
    expect(detailed).toMatchObject({ code: 0, cedido: true, holderRut: FACTOR, declaracionJurada: true });
    expect(detailed.lastAnnotation).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect((await sii.rpetc.getEstCesion({ ...key, idCesion: 'OTRACLAVE' })).code).toBe(2);

    // Another holder: the factor cedes it on.
    sim.registerCesion({ issuerRut: COMPANY, type: 33, folio, cesionarioRut: OTHER_COMPANY });
    expect(sim.cesiones({ issuerRut: COMPANY, type: 33, folio }).map((c) => [c.seq, c.cedenteRut])).toEqual([
      [1, COMPANY],
      [2, FACTOR],
    ]);
    const relac = await sii.rpetc.getEstCesionRelac({ ...key, companyRut: DEBTOR });
    expect(relac).toMatchObject({ code: 0, cedido: true, holderRut: OTHER_COMPANY });
    // The first cesionario is no longer linked to it: neither holder nor receiver.
    expect(await sii.rpetc.getEstCesionRelac({ ...key, companyRut: FACTOR })).toMatchObject({
      code: -15,
      cedido: false,
    });
    // OUTSIDER acts only for OTHER_COMPANY (the holder): 10 for the debtor, 0 for the holder.
    expect((await sii.rpetc.getEstCesionRelac({ ...key, cert: outsider, companyRut: DEBTOR })).code).toBe(10);
    expect((await sii.rpetc.getEstCesionRelac({ ...key, cert: outsider, companyRut: OTHER_COMPANY })).code).toBe(0);
  });

  it('the control API registers and lists cesiones, and lists the AECs received', async () => {
    const folio = nextFolio++;
    const posted = await fetch(`${url}/sim/rpetc/cesiones`, {
      method: 'POST',
      body: JSON.stringify({ issuerRut: COMPANY, type: 34, folio, cesionarioRut: FACTOR, monto: 1000 }),
    });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toMatchObject({ seq: 1, cedenteRut: COMPANY, cesionarioRut: FACTOR, monto: 1000 });
    const listed = await fetch(`${url}/sim/rpetc/cesiones?issuerRut=${COMPANY}&type=34&folio=${folio}`);
    expect((await listed.json()) as unknown[]).toHaveLength(1);
    const bad = await fetch(`${url}/sim/rpetc/cesiones`, {
      method: 'POST',
      body: JSON.stringify({ issuerRut: COMPANY, type: 34, folio, cesionarioRut: '1-1' }),
    });
    expect(bad.status).toBe(400);
    const uploads = (await (await fetch(`${url}/sim/rpetc/uploads`)).json()) as { trackId: string }[];
    expect(uploads.map((u) => u.trackId)).toEqual(sim.aecUploads().map((u) => u.trackId));
  });

  it('malformed parameters are 1 (Error de datos)', async () => {
    const answer = await sii.rpetc.getEstCesionRelac({
      cert: person,
      issuerRut: COMPANY,
      type: 33,
      folio: 0,
      companyRut: DEBTOR,
    });
    expect(answer).toMatchObject({ code: 1, cedido: false });
  });
});

describe('the answers the simulator never gives (a stand-in server)', () => {
  async function standIn(answer: (path: string) => string, run: (client: SiiClient) => Promise<void>) {
    const fake = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/xml; charset=utf-8' });
      res.end(answer(req.url ?? ''));
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      await run(createSiiClient({ config: config(`http://127.0.0.1:${(fake.address() as AddressInfo).port}`) }));
    } finally {
      await new Promise((r) => fake.close(r));
    }
  }

  const soap = (op: string, respuesta: string) =>
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
    `<ns1:${op}Response xmlns:ns1="http://DefaultNamespace"><${op}Return>` +
    respuesta.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') +
    `</${op}Return></ns1:${op}Response></soapenv:Body></soapenv:Envelope>`;

  it('upload STATUS 9 / 10 (internal) is SiiUnavailableError: no TRACKID, send again later', async () => {
    await standIn(
      () => '<?xml version="1.0"?>\n<RECEPCIONAEC><RUTSENDER>1-9</RUTSENDER><STATUS>9</STATUS></RECEPCIONAEC>',
      async (client) => {
        await expect(
          client.rpetc.uploadAec({ cert: person, companyRut: COMPANY, email: 'x@example.cl', aec: AEC }),
        ).rejects.toThrow(SiiUnavailableError);
      },
    );
  });

  it('header 6–8 (internal) is SiiUnavailableError', async () => {
    const respuesta =
      '<SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_HDR><SII:ESTADO>7</SII:ESTADO>' +
      '<SII:GLOSA>Error Interno</SII:GLOSA></SII:RESP_HDR></SII:RESPUESTA>';
    await standIn(
      () => soap('getEstEnvio', respuesta),
      async (client) => {
        await expect(client.rpetc.getEstEnvio({ cert: person, trackId: '1' })).rejects.toThrow(SiiUnavailableError);
      },
    );
  });
});

describe('reading the manuals’ examples', () => {
  it('RECEPCIONAEC OK (envío automático §3.3.1)', () => {
    const xml =
      '<?xml version="1.0"?>\n<RECEPCIONAEC>\n <RUTSENDER>1-9</RUTSENDER>\n <RUTCOMPANY>88888888-8</RUTCOMPANY>\n' +
      ' <FILE>AECautomOK.xml</FILE>\n <TIMESTAMP>29-11-2006 14:50:13</TIMESTAMP>\n <STATUS>0</STATUS>\n' +
      ' <TRACKID>0000038936</TRACKID>\n</RECEPCIONAEC>';
    expect(readRecepcionAec(xml)).toEqual({
      status: 0,
      trackId: '0000038936',
      accepted: true,
      glosa: 'Envío recibido OK',
    });
  });

  it('getEstEnvio EOK and getEstCesion detailed (wsRPETCConsulta §3.2)', () => {
    const envio =
      '<?xml version="1.0" encoding="UTF-8"?>\n<SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema">' +
      '<SII:RESP_HDR><SII:ESTADO>0</SII:ESTADO></SII:RESP_HDR><SII:RESP_BODY><TRACKID>36322</TRACKID>' +
      '<ESTADO_ENVIO>EOK</ESTADO_ENVIO><DESC_ESTADO>Envio Aceptado</DESC_ESTADO></SII:RESP_BODY></SII:RESPUESTA>';
    expect(readEstEnvioAnswer(envio)).toEqual({
      estado: 'EOK',
      glosa: 'Envio Aceptado',
      final: true,
      accepted: true,
      header: { code: 0, glosa: RPETC_HEADER_CODES[0] },
    });
    const cesion =
      '<SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_HDR><SII:ESTADO>0</SII:ESTADO>' +
      '</SII:RESP_HDR><SII:RESP_BODY><RUT_TENEDOR>2-7</RUT_TENEDOR><FECHA_ULT_ANOT>2005-05-04 18:13:06' +
      '</FECHA_ULT_ANOT><DEC_JURADA>EXISTE</DEC_JURADA></SII:RESP_BODY></SII:RESPUESTA>';
    expect(readEstCesionAnswer('getEstCesion', cesion)).toEqual({
      code: 0,
      glosa: 'Requerimiento recibido OK',
      cedido: true,
      holderRut: '2-7',
      lastAnnotation: '2005-05-04 18:13:06',
      declaracionJurada: true,
    });
  });

  it('every ESTADO_ENVIO of the manual is mapped; the rejections and EOK/EAN are final', () => {
    expect(Object.keys(ESTADO_ENVIO).sort()).toEqual(
      ['UPL', 'RCP', 'RSC', 'SOK', 'RFS', 'FSO', 'RCR', 'COK', 'VDC', 'RDC', 'VCS', 'RCS', 'EOK', 'EAN'].sort(),
    );
    const finals = Object.entries(ESTADO_ENVIO)
      .filter(([, m]) => m.final)
      .map(([k]) => k)
      .sort();
    expect(finals).toEqual(['EAN', 'EOK', 'RCR', 'RCS', 'RDC', 'RFS', 'RSC']);
    expect(
      Object.keys(RPETC_HEADER_CODES)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([-15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('end to end: the AEC of an accepted live factura (src/cession/aec.ts buildAec)', () => {
  it('is registered (EOK), the cesionario becomes the holder; the old holder ceding it again is RCS', async () => {
    const t = await startLiveApp(sim, url);
    const live = await createLiveIssuer(t, sim, [33]);
    const issued = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emitir`,
      headers: live.auth,
      payload: factura(),
    });
    expect(issued.statusCode, issued.body).toBe(200);
    const doc = issued.json() as { folio: number; date: string; xml_url: string };
    await eventually(async () => (await estadoOf(t, live.rut, 33, doc.folio)) === 'aceptado');
    const xmlUrl = new URL(doc.xml_url);
    const dteXml = (await t.app.inject({ method: 'GET', url: xmlUrl.pathname + xmlUrl.search })).rawPayload;
    const key = { rutEmisor: live.rut, tipoDoc: 33, folio: doc.folio };
    const cedibleBefore = (await sii.registro.consultarCedible(person, key)).codResp;

    const cedente = {
      rut: live.rut,
      razonSocial: live.issuer.name,
      direccion: 'Av. Apoquindo 1234, Las Condes',
      email: 'finanzas@example.cl',
      autorizados: [{ rut: PERSON, nombre: 'Persona de Prueba' }],
    };
    const aecTo = (cesionarioRut: string, razonSocial: string) =>
      buildAec(
        {
          dteXml,
          seq: 1,
          cedente,
          cesionario: {
            rut: cesionarioRut,
            razonSocial,
            direccion: 'Huérfanos 1160, Santiago',
            email: 'op@example.cl',
          },
          monto: Number(textOf(dteXml.toString('latin1'), 'MntTotal')),
          ultimoVencimiento: addDays(calendarDate(doc.date), 30),
          signedAt: santiagoTimestamp(new Date()),
        },
        person,
      );
    /** The states getEstEnvio showed, in order. */
    let seen: string[] = [];
    /** Whether getEstCesion showed the document ceded right after each upload was answered. */
    const cededAtUpload: boolean[] = [];
    const where = { cert: person, issuerRut: live.rut, type: 33, folio: doc.folio };
    const registered = async (aec: Buffer, fileName: string) => {
      const answer = await sii.rpetc.uploadAec({
        cert: person,
        companyRut: live.rut,
        email: 'x@example.cl',
        aec,
        fileName,
      });
      expect(answer).toMatchObject({ status: 0, accepted: true });
      cededAtUpload.push((await sii.rpetc.getEstCesion(where)).cedido);
      return waitFor(
        async () => {
          const s = await sii.rpetc.getEstEnvio({ cert: person, trackId: answer.trackId! });
          if (s.estado && seen.at(-1) !== s.estado) seen.push(s.estado);
          return s.final && s;
        },
        { intervalMs: 10 },
      );
    };
    // Slow steps, so that getEstEnvio shows the envío walking.
    sim.setProcessingDelay(100);
    const first = await registered(aecTo(FACTOR, 'Factoring Ñandú S.A.'), 'AEC_1.xml');
    sim.setProcessingDelay(5);
    expect(first, first.glosa).toMatchObject({ estado: 'EOK', accepted: true, final: true });
    // While the envío walked (6 steps of 100 ms to go), the registry showed no cesión yet.
    expect(cededAtUpload).toEqual([false]);
    const walk = ['RCP', 'SOK', 'FSO', 'COK', 'VDC', 'VCS', 'EOK'];
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.map((e) => walk.indexOf(e))).toEqual([...seen.map((e) => walk.indexOf(e))].sort((a, b) => a - b));
    expect(seen.every((e) => walk.includes(e))).toBe(true);
    seen = [];
    const [cesion] = sim.cesiones({ issuerRut: live.rut, type: 33, folio: doc.folio });
    expect(cesion).toMatchObject({ seq: 1, cedenteRut: live.rut, cesionarioRut: FACTOR, declaracionJurada: true });
    expect(await sii.rpetc.getEstCesion(where)).toMatchObject({ code: 0, cedido: true });
    expect(await sii.rpetc.getEstCesion({ ...where, idCesion: cesion!.idCesion })).toMatchObject({
      code: 0,
      holderRut: FACTOR,
      declaracionJurada: true,
    });
    expect(await sii.rpetc.getEstCesionRelac({ ...where, companyRut: FACTOR })).toMatchObject({
      code: 0,
      holderRut: FACTOR,
    });
    // The claims registry does not change its answer about the document.
    expect((await sii.registro.consultarCedible(person, key)).codResp).toBe(cedibleBefore);

    // The issuer is no longer the holder: ceding it again as a first cesión is refused.
    const second = await registered(aecTo(OTHER_COMPANY, 'Otro Factoring SpA'), 'AEC_2.xml');
    expect(second).toMatchObject({ estado: 'RCS', accepted: false, final: true });
    expect(seen.at(-1)).toBe('RCS');
    expect(second.glosa).toMatch(/^Cesi[oó]n Invalida: .*SeqCesion/);
    expect(sim.cesiones({ issuerRut: live.rut, type: 33, folio: doc.folio })).toHaveLength(1);
    expect((await sii.rpetc.getEstCesion({ ...where, idCesion: cesion!.idCesion })).holderRut).toBe(FACTOR);
  });
});
