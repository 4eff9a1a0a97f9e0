/**
 * The claims registry RegistroReclamoDTE: Timbre's real client (src/sii/registro-reclamo.ts)
 * against the local simulator's service (src/sii-simulator/registro-reclamo.ts), with the
 * simulator's clock moved by hand across the 8 days. Every operation, the codResp mapping, the
 * matrix of the manual ([WSRR] ingresarAceptacionReclamoDoc), a retry answered 7 taken as done,
 * and outages classified as retryable.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTestCertificate, parsePkcs12, type SigningCertificate } from '../../src/dte/certificate.ts';
import { createSiiClient } from '../../src/sii/client.ts';
import {
  type AccionDoc,
  consultarDocDteCedible,
  consultarFechaRecepcionSii,
  type DocKey,
  ingresarAceptacionReclamoDoc,
  listarEventosHistDoc,
  parseSiiDateTime,
  REGISTRO_CODES,
  type RegistroCaller,
  registroRequest,
} from '../../src/sii/registro-reclamo.ts';
import { SiiUnavailableError } from '../../src/sii/types.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/index.ts';
import { manualClock } from '../helpers/time.ts';

const SUPPLIER = '76354771-K';
const RECEIVER = '76086428-5';
/** The receiver's representative (the certificate holder who acts for RECEIVER). */
const PERSON = '13185095-6';
/** Someone authorised only for the supplier. */
const SUPPLIER_PERSON = '8414240-9';
const STRANGER = '11111111-1';
const PATH = '/WSREGISTRORECLAMODTE/registroreclamodteservice';
const DAY = 86_400_000;
/** Starts now: the test certificates are valid from the moment they are made. */
const clock = manualClock();
let sim: SiiSimulator;
let url: string;
let receiver: RegistroCaller;
let supplier: RegistroCaller;
let stranger: RegistroCaller;
let nextFolio = 1000;

function cert(holderRut: string): SigningCertificate {
  const { p12, password } = generateTestCertificate({ holderRut, name: 'Persona de Prueba' });
  return parsePkcs12(p12, password);
}

function config(registroUrl = `${url}${PATH}`, timeoutMs = 2_000) {
  return {
    SII_DTEWS_URL: url,
    SII_UPLOAD_URL: url,
    SII_BOLETA_API_URL: `${url}/recursos/v1`,
    SII_BOLETA_UPLOAD_URL: `${url}/recursos/v1`,
    SII_PORTAL_URL: url,
    SII_REGISTRO_URL: registroUrl,
    SII_TIMEOUT_MS: timeoutMs,
  };
}

/** A supplier's factura the SII received `daysAgo` days before the clock's now. */
function received(daysAgo = 0, type = 33): DocKey {
  const folio = nextFolio++;
  sim.registerReceivedDocument({
    issuerRut: SUPPLIER,
    type,
    folio,
    receiverRut: RECEIVER,
    receivedAt: new Date(clock().getTime() - daysAgo * DAY),
  });
  return { rutEmisor: SUPPLIER, tipoDoc: type, folio };
}

const act = (key: DocKey, accion: AccionDoc, who = receiver) => ingresarAceptacionReclamoDoc(who, key, accion);
const codes = async (key: DocKey, acciones: AccionDoc[]) => {
  const out: number[] = [];
  for (const a of acciones) out.push((await act(key, a)).codResp);
  return out;
};

beforeAll(async () => {
  sim = createSiiSimulator({ clock, stepDelayMs: 5 });
  ({ url } = await sim.listen(0));
  sim.authorizeUser({ holderRut: PERSON, companyRut: RECEIVER });
  sim.authorizeUser({ holderRut: SUPPLIER_PERSON, companyRut: SUPPLIER });
  sim.authorizeUser({ holderRut: STRANGER, companyRut: '96874030-K' });
  const sii = createSiiClient({ config: config(), clock });
  receiver = { sii, cert: cert(PERSON) };
  supplier = { sii, cert: cert(SUPPLIER_PERSON) };
  stranger = { sii, cert: cert(STRANGER) };
});
afterAll(() => sim.close());

describe('the request (SOAP 1.1 rpc/literal, [WSRR], the WSDL)', () => {
  it('is the operation in the service namespace with unqualified, untyped parameters', () => {
    const xml = registroRequest('listarEventosHistDoc', [
      ['rutEmisor', '76354771'],
      ['dvEmisor', 'K'],
    ]);
    expect(xml).toContain('xmlns:ws="http://ws.registroreclamodte.diii.sdi.sii.cl"');
    expect(xml).toContain('<ws:listarEventosHistDoc>');
    expect(xml).toContain('<rutEmisor>76354771</rutEmisor>');
    expect(xml).not.toContain('xsi:type');
  });

  it('the simulator refuses a call without the TOKEN cookie (401) and a call in another namespace (Fault)', async () => {
    const body = registroRequest('getVersion', []);
    const noToken = await fetch(`${url}${PATH}`, { method: 'POST', body, headers: { 'Content-Type': 'text/xml' } });
    expect(noToken.status).toBe(401);
    const wsdl = await fetch(`${url}${PATH}?wsdl`);
    expect(await wsdl.text()).toContain(`location="${url}${PATH}"`);
  });
});

describe('ingresarAceptacionReclamoDoc: the matrix within 8 days', () => {
  it('records the first action of any kind (0)', async () => {
    for (const accion of ['ACD', 'RCD', 'ERM', 'RFP', 'RFT'] as const) {
      const answer = await act(received(), accion);
      expect(answer).toMatchObject({ codResp: 0, outcome: 'ok', registered: true, glosa: 'Acción completada OK' });
    }
  });

  it('after a claim: ERM 6 and ACD 12 (naming the claim), another claim 0, the same claim 7', async () => {
    const key = received(1);
    expect(await codes(key, ['RCD'])).toEqual([0]);
    const erm = await act(key, 'ERM');
    expect(erm).toMatchObject({ codResp: 6, outcome: 'refused', registered: false });
    expect(erm.descResp).toContain('RCD');
    expect(await codes(key, ['ACD', 'RFT', 'RCD', 'RFT'])).toEqual([12, 0, 7, 7]);
  });

  it('after ACD: ERM 0, a claim 11, ACD again 7', async () => {
    const key = received(2);
    expect(await codes(key, ['ACD', 'RFP', 'ERM', 'ACD', 'ERM'])).toEqual([0, 11, 0, 7, 7]);
  });

  it('after ERM: ACD 0, a claim 13 (the receipt of goods cannot be claimed against)', async () => {
    const key = received(3);
    expect(await codes(key, ['ERM', 'RCD', 'RFT', 'ACD'])).toEqual([0, 13, 13, 0]);
    expect(REGISTRO_CODES[13]!.glosa).toMatch(/recibo de mercaderías/);
  });

  it('day 7 is still inside, day 9 is outside (8), and exactly 8 × 24 h after the reception is outside', async () => {
    expect((await act(received(7.9), 'RCD')).codResp).toBe(0);
    expect((await act(received(9), 'ACD')).codResp).toBe(8);
    const boundary = received(8);
    expect(await act(boundary, 'ERM')).toMatchObject({ codResp: 8, outcome: 'refused' });
    clock.advance(-1);
    try {
      expect((await act(boundary, 'ERM')).codResp).toBe(0);
    } finally {
      clock.advance(1);
    }
  });

  it('a reception moved by the control call moves the window', async () => {
    const key = received(0);
    sim.setReceptionDate({
      issuerRut: SUPPLIER,
      type: 33,
      folio: Number(key.folio),
      receivedAt: new Date(+clock() - 10 * DAY),
    });
    expect((await act(key, 'ACD')).codResp).toBe(8);
  });

  it('only the receiving company may act (17); the issuer may not either', async () => {
    const key = received();
    expect((await act(key, 'ACD', stranger)).codResp).toBe(17);
    expect((await act(key, 'RCD', supplier)).codResp).toBe(17);
    expect(sim.registroEvents({ issuerRut: SUPPLIER, type: 33, folio: Number(key.folio) })).toEqual([]);
  });

  it('bad parameters: RUT 1, folio 2, type 3, action 4; an unknown document 10', async () => {
    const key = received();
    expect((await act({ ...key, rutEmisor: '76354771-0' }, 'ACD')).codResp).toBe(1);
    expect((await act({ ...key, rutEmisor: '999-5' }, 'ACD')).codResp).toBe(1);
    expect((await act({ ...key, folio: 0 }, 'ACD')).codResp).toBe(2);
    expect((await act({ ...key, tipoDoc: 52 }, 'ACD')).codResp).toBe(3);
    expect((await act(key, 'XYZ' as AccionDoc)).codResp).toBe(4);
    expect(await act({ ...key, folio: 99_999_999 }, 'ACD')).toMatchObject({ codResp: 10, outcome: 'refused' });
  });
});

describe('listarEventosHistDoc', () => {
  it('lists every event (many listaEventosDoc) with who and when; 16 when there are none', async () => {
    const key = received(1);
    expect(await listarEventosHistDoc(receiver, key)).toMatchObject({ codResp: 16, eventos: [] });
    await act(key, 'ACD');
    clock.advance(60_000);
    await act(key, 'ERM');
    const answer = await listarEventosHistDoc(receiver, key);
    expect(answer.codResp).toBe(15);
    expect(answer.eventos.map((e) => e.accion)).toEqual(['ACD', 'ERM']);
    expect(answer.eventos[0]!.rutResponsable).toBe(PERSON);
    expect(answer.eventos[1]!.at?.getTime()).toBe(Math.floor(clock().getTime() / 1000) * 1000);
    expect(answer.eventos[1]!.fecha).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
  });

  it('one listaEventosDoc is read too, and the issuer may ask (what its customer did); others get 14', async () => {
    const key = received();
    await act(key, 'RFT');
    const answer = await listarEventosHistDoc(supplier, key);
    expect(answer).toMatchObject({ codResp: 15, eventos: [{ accion: 'RFT', codEvento: 'RFT' }] });
    expect((await listarEventosHistDoc(stranger, key)).codResp).toBe(14);
    expect((await listarEventosHistDoc(receiver, { ...key, folio: 88_888_888 })).codResp).toBe(18);
  });

  it('shows NCA when a voiding credit note references the document, ENC for another note', async () => {
    const key = received();
    for (const codRef of [1, 3]) {
      sim.registerReceivedDocument({
        issuerRut: SUPPLIER,
        type: 61,
        folio: nextFolio++,
        receiverRut: RECEIVER,
        references: [{ type: 33, folio: Number(key.folio), codRef }],
      });
    }
    const answer = await listarEventosHistDoc(receiver, key);
    expect(answer.eventos.map((e) => e.accion).sort()).toEqual(['ENC', 'NCA']);
    expect((await consultarDocDteCedible(receiver, key)).codResp).toBe(21);
  });
});

describe('consultarDocDteCedible (20–25)', () => {
  it('22 without events, 23 with ERM, 24 when claimed, 25 after 8 days, 20 for another type', async () => {
    expect((await consultarDocDteCedible(receiver, received())).codResp).toBe(22);
    const withErm = received();
    await act(withErm, 'ERM');
    expect(await consultarDocDteCedible(receiver, withErm)).toMatchObject({
      codResp: 23,
      glosa: 'DTE cedible, sin reclamos',
    });
    const claimed = received();
    await act(claimed, 'RCD');
    expect((await consultarDocDteCedible(supplier, claimed)).codResp).toBe(24);
    expect((await consultarDocDteCedible(receiver, received(8.5))).codResp).toBe(25);
    expect((await consultarDocDteCedible(receiver, { ...received(), tipoDoc: 52 })).codResp).toBe(20);
  });
});

describe('consultarFechaRecepcionSii', () => {
  it('answers the SII reception date-time (Santiago, to the second); none for an unknown document', async () => {
    const key = received(2.5);
    const answer = await consultarFechaRecepcionSii(receiver, key);
    expect(answer.codResp).toBe(0);
    expect(answer.fechaRecepcion?.getTime()).toBe(Math.floor((clock().getTime() - 2.5 * DAY) / 1000) * 1000);
    expect(await consultarFechaRecepcionSii(receiver, { ...key, folio: 77_777_777 })).toMatchObject({
      codResp: 18,
      fechaRecepcion: null,
    });
  });

  it('reads DD-MM-YYYY HH:MM:SS as Santiago time, summer and winter', () => {
    expect(parseSiiDateTime('02-11-2026 10:00:00')?.toISOString()).toBe('2026-11-02T13:00:00.000Z');
    expect(parseSiiDateTime('15-06-2026 10:00:00')?.toISOString()).toBe('2026-06-15T14:00:00.000Z');
    expect(parseSiiDateTime('2026-06-15 10:00:00')).toBeNull();
  });
});

describe('failures: classified as for issuing', () => {
  it('a refused token is renewed once and the call goes through', async () => {
    const key = received();
    await listarEventosHistDoc(receiver, key);
    sim.expireTokens();
    expect((await act(key, 'ACD')).codResp).toBe(0);
  });

  it('an outage (connection dropped, HTTP 500) is SiiUnavailableError: retried later', async () => {
    const key = received();
    await listarEventosHistDoc(receiver, key);
    sim.setFault({ kind: 'down', count: 1, paths: [PATH] });
    await expect(act(key, 'ACD')).rejects.toBeInstanceOf(SiiUnavailableError);
    sim.setFault({ kind: 'http500', count: 1, paths: [PATH] });
    await expect(listarEventosHistDoc(receiver, key)).rejects.toBeInstanceOf(SiiUnavailableError);
    expect((await act(key, 'ACD')).codResp).toBe(0);
  });

  it('an answer lost after the SII registered the event: the retry is answered 7 and counts as registered', async () => {
    const key = received();
    await listarEventosHistDoc(receiver, key);
    sim.setFault({ kind: 'timeout-after-receipt', count: 1, paths: [PATH], delayMs: 5_000 });
    const slow = createSiiClient({ config: config(`${url}${PATH}`, 500), clock });
    await expect(ingresarAceptacionReclamoDoc({ sii: slow, cert: receiver.cert }, key, 'ERM')).rejects.toBeInstanceOf(
      SiiUnavailableError,
    );
    expect(sim.registroEvents({ issuerRut: SUPPLIER, type: 33, folio: Number(key.folio) })).toHaveLength(1);
    const retry = await act(key, 'ERM');
    expect(retry).toMatchObject({ codResp: 7, outcome: 'already', registered: true });
    expect(sim.registroEvents({ issuerRut: SUPPLIER, type: 33, folio: Number(key.folio) })).toHaveLength(1);
  });

  it('codResp -1 (internal error, retry later) is SiiUnavailableError', async () => {
    const fake = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/xml; charset=utf-8' });
      res.end(
        '<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body>' +
          '<ns2:ingresarAceptacionReclamoDocResponse xmlns:ns2="http://ws.registroreclamodte.diii.sdi.sii.cl">' +
          '<return><codResp>-1</codResp><descResp>Error Interno</descResp></return>' +
          '</ns2:ingresarAceptacionReclamoDocResponse></S:Body></S:Envelope>',
      );
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      const sii = createSiiClient({
        config: config(`http://127.0.0.1:${(fake.address() as AddressInfo).port}${PATH}`),
        clock,
      });
      await expect(ingresarAceptacionReclamoDoc({ sii, cert: receiver.cert }, received(), 'ACD')).rejects.toThrow(
        SiiUnavailableError,
      );
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });
});
