/**
 * Decisions on received documents (README "Accepting and claiming received documents"): accept
 * (ACD, with ERM) and claim (RCD, RFP, RFT) a supplier's factura, the SII's matrix enforced before
 * any call, the bulk form with per-item results, the answers to the supplier (ResultadoDTE and
 * EnvioRecibos, checked by xmllint and xmlsec1, e-mailed through the outbox), the events; in
 * sandbox (decided locally) and in live against the SII simulator's registry, including an
 * outage that leaves a decision pending until the SII answers again (registered once).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { scanDeadlineEvents } from '../../src/receiving/deadline-events.ts';
import type { SiiSimulator } from '../../src/sii-simulator/index.ts';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { startMailCatcher, type MailCatcher } from '../helpers/events.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';
import { createLiveIssuer, startLiveApp, startSimulator } from '../helpers/live.ts';
import { manualClock, waitFor } from '../helpers/time.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

let t: TestApp;
let supplier: Supplier;
let mail: MailCatcher;
const clock = manualClock('2026-11-21T12:00:00Z');

beforeAll(async () => {
  supplier = standInSupplier();
  mail = await startMailCatcher();
  t = await buildTestApp({
    clock,
    env: { TIMBRE_EXTRA_CAF_KEYS: supplier.siiPublicKeyPem, SMTP_URL: mail.url, JOBS_ENABLED: 'true' },
  });
  return () => mail.close();
});

let nextFolio = 100;

/** A sandbox tenant that received `count` facturas from the supplier; their folios. */
async function received(count = 1, role: 'owner' | 'editor' | 'viewer' = 'owner') {
  const tenant = await createTestTenant(t, { role: 'owner' });
  const folios = Array.from({ length: count }, () => nextFolio++);
  const res = await tenant.api.inject({
    method: 'POST',
    url: `/api/${tenant.rut}/recibidos`,
    headers: { 'content-type': 'application/xml' },
    payload: supplier.envelope(
      tenant.rut,
      folios.map((f) => supplier.dte(tenant.rut, f)),
    ),
  });
  expect(res.json()).toMatchObject({ accepted: true });
  const api = role === 'owner' ? tenant.api : t.as(await createKey(tenant.rut, role));
  return { ...tenant, api, folios };
}

async function createKey(rut: string, role: 'editor' | 'viewer') {
  const { createTestKey } = await import('../helpers/app.ts');
  return createTestKey(t.ctx, rut, role);
}

const base = (rut: string, folio: number, type = 33) => `/api/${rut}/recibidos/${SUPPLIER.rut}/${type}/${folio}`;
const accept = (api: KeyClient, rut: string, folio: number, body: object = {}) =>
  api.post(`${base(rut, folio)}/aceptar`, body);
const claim = (api: KeyClient, rut: string, folio: number, motivo: string, glosa = 'No corresponde') =>
  api.post(`${base(rut, folio)}/reclamar`, { motivo, glosa });

describe('in sandbox (decided locally)', () => {
  it('accepts with a receipt: ACD + ERM, a ResultadoDTE and an EnvioRecibos that xmllint and xmlsec1 accept, the event, the e-mail to the supplier', async () => {
    const { issuer, rut, api, folios } = await received();
    const res = await accept(api, rut, folios[0]!, { recibo: { recinto: 'Bodega Ñuñoa' }, email: ['dte@enacon.cl'] });
    expect(res.statusCode).toBe(200);
    const d = res.json().decision;
    expect(d).toMatchObject({
      kind: 'accept',
      actions: ['ACD', 'ERM'],
      registered: ['ACD', 'ERM'],
      state: 'local',
      recinto: 'Bodega Ñuñoa',
      sii: null,
      email_to: ['dte@enacon.cl'],
    });

    const resultado = (await api.get(new URL(d.resultado_url).pathname)).rawPayload;
    expect(xmllint(resultado, 'RespuestaEnvioDTE_v10.xsd').ok).toBe(true);
    expect(xmlsecVerify(resultado, { idAttrs: ['Resultado', 'http://www.sii.cl/SiiDte:Resultado'] }).ok).toBe(true);
    expect(resultado.toString('latin1')).toContain('<EstadoDTE>0</EstadoDTE>');
    expect(resultado.toString('latin1')).toContain(`<Folio>${folios[0]}</Folio>`);

    const recibos = (await api.get(new URL(d.recibos_url).pathname)).rawPayload;
    const lint = xmllint(recibos, 'EnvioRecibos_v10.xsd');
    expect(lint.output).toContain('validates');
    const ids = [
      'SetRecibos',
      'http://www.sii.cl/SiiDte:SetRecibos',
      'DocumentoRecibo',
      'http://www.sii.cl/SiiDte:DocumentoRecibo',
    ];
    expect(xmlsecVerify(recibos, { idAttrs: ids, nodeXpath: '/*/*[local-name()="Signature"]' }).ok).toBe(true);
    expect(
      xmlsecVerify(recibos, { idAttrs: ids, nodeXpath: '//*[local-name()="Recibo"]/*[local-name()="Signature"]' }).ok,
    ).toBe(true);
    expect(recibos.toString('latin1')).toContain('<Recinto>Bodega Ñuñoa</Recinto>');

    const events = await t.db.prisma.event.findMany({ where: { issuerId: issuer.id, type: 'received.accepted' } });
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ number: d.number, actions: ['ACD', 'ERM'], state: 'local' });

    const sent = await waitFor(
      () => mail.messages.find((m) => m.attachments.some((a) => a.content.equals(resultado))),
      {
        what: 'the answer e-mailed to the supplier',
      },
    );
    expect(sent.attachments.map((a) => a.filename)).toEqual([
      `ResultadoDTE_${rut}_T33_F${folios[0]}.xml`,
      `EnvioRecibos_${rut}_T33_F${folios[0]}.xml`,
    ]);
    expect(sent.attachments[1]!.content.equals(recibos)).toBe(true);
    await waitFor(
      async () => (await t.db.prisma.event.count({ where: { issuerId: issuer.id, type: 'email.sent' } })) === 1,
    );

    // The document's detail lists its decisions.
    const detail = (await api.get(base(rut, folios[0]!))).json().document;
    expect(detail.decisions).toHaveLength(1);
    expect(detail.decisions[0]).toMatchObject({ number: d.number, state: 'local' });
  });

  for (const [motivo, accion, estado] of [
    ['contenido', 'RCD', 2],
    ['falta_parcial', 'RFP', 1],
    ['falta_total', 'RFT', 2],
  ] as const) {
    it(`claims (${motivo} → ${accion}) with a ResultadoDTE EstadoDTE ${estado} carrying the glosa`, async () => {
      const { issuer, rut, api, folios } = await received();
      const res = await claim(api, rut, folios[0]!, motivo, 'Faltan 3 tableros');
      expect(res.statusCode).toBe(200);
      const d = res.json().decision;
      expect(d).toMatchObject({
        kind: 'claim',
        actions: [accion],
        motivo,
        glosa: 'Faltan 3 tableros',
        recibos_url: null,
      });
      const xml = (await api.get(new URL(d.resultado_url).pathname)).rawPayload;
      expect(xmllint(xml, 'RespuestaEnvioDTE_v10.xsd').ok).toBe(true);
      expect(xml.toString('latin1')).toContain(`<EstadoDTE>${estado}</EstadoDTE>`);
      expect(xml.toString('latin1')).toContain('Faltan 3 tableros');
      expect(await t.db.prisma.event.count({ where: { issuerId: issuer.id, type: 'received.claimed' } })).toBe(1);
    });
  }

  describe('the SII matrix, before any call', () => {
    it('7: the same decision twice; a receipt after a plain acceptance registers only ERM', async () => {
      const { rut, api, folios } = await received();
      expect((await accept(api, rut, folios[0]!)).json().decision.actions).toEqual(['ACD']);
      const again = await accept(api, rut, folios[0]!);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ code: 'DECISION_ALREADY_REGISTERED' });
      expect(again.json().error).toContain('code 7');
      const erm = await accept(api, rut, folios[0]!, { recibo: { recinto: 'Oficina' } });
      expect(erm.json().decision.actions).toEqual(['ERM']);
    });

    it('11: a claim after an acceptance (13, after a receipt, is in test/unit/decision-matrix.test.ts)', async () => {
      const { rut, api, folios } = await received(1);
      await accept(api, rut, folios[0]!);
      const res = await claim(api, rut, folios[0]!, 'contenido');
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'DECISION_NOT_ALLOWED' });
      expect(res.json().error).toContain('code 11');
      expect(res.json().error).toContain('No se puede reclamar un documento cuyo contenido ya fue aceptado');
    });

    it('6: a receipt after a claim; 12: an acceptance after a claim; another claim is allowed, the same one is 7', async () => {
      const { rut, api, folios } = await received();
      expect((await claim(api, rut, folios[0]!, 'falta_total')).statusCode).toBe(200);
      const erm = await accept(api, rut, folios[0]!, { recibo: { recinto: 'Bodega' } });
      expect(erm.statusCode).toBe(409);
      expect(erm.json().error).toContain('code 6');
      const acd = await accept(api, rut, folios[0]!);
      expect(acd.statusCode).toBe(409);
      expect(acd.json().error).toContain('code 12');
      expect((await claim(api, rut, folios[0]!, 'falta_total')).json()).toMatchObject({
        code: 'DECISION_ALREADY_REGISTERED',
      });
      expect((await claim(api, rut, folios[0]!, 'contenido')).statusCode).toBe(200);
    });

    it('8: after 8 × 24 h from the reception nothing is recorded; one second before is still in time', async () => {
      const { rut, api, folios } = await received(2);
      clock.advance(8 * 24 * 3_600_000 - 1000);
      expect((await accept(api, rut, folios[0]!)).statusCode).toBe(200);
      clock.advance(1000);
      const late = await claim(api, rut, folios[1]!, 'contenido');
      expect(late.statusCode).toBe(422);
      expect(late.json()).toMatchObject({ code: 'DECISION_DEADLINE_PASSED' });
      expect(late.json().error).toContain('code 8');
      expect(await t.db.prisma.receivedDecision.count({ where: { receivedDocument: { folio: folios[1]! } } })).toBe(0);
    });

    it('a type the registry does not take is a 422 that says why; an unknown document is a 404', async () => {
      const { rut, api, folios } = await received();
      const res = await api.post(`${base(rut, folios[0]!, 61)}/aceptar`, {});
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'RECEIVED_TYPE_NOT_DECIDABLE' });
      expect(res.json().error).toContain('33');
      expect((await accept(api, rut, 999_999)).statusCode).toBe(404);
    });
  });

  it('a decided document is not announced as tacitly accepted when its 8 days pass; an undecided one is', async () => {
    const { issuer, rut, api, folios } = await received(2);
    expect((await claim(api, rut, folios[0]!, 'falta_total')).statusCode).toBe(200);
    clock.advance(8 * 24 * 3_600_000 + 1000);
    await scanDeadlineEvents(t.ctx);
    const tacit = await t.db.prisma.event.findMany({
      where: { issuerId: issuer.id, type: 'received.tacitly_accepted' },
    });
    expect(tacit.map((e) => (e.data as { folio: number }).folio)).toEqual([folios[1]]);
  });

  it('the bulk form answers each item in order, one refusal never stopping another', async () => {
    const { rut, api, folios } = await received(3);
    await accept(api, rut, folios[2]!);
    const res = await api.post(`/api/${rut}/recibidos/decisiones`, {
      decisions: [
        { emisor: SUPPLIER.rut, type: 33, folio: folios[0], decision: 'aceptar', recibo: { recinto: 'Bodega' } },
        {
          emisor: SUPPLIER.rut,
          type: 33,
          folio: folios[1],
          decision: 'reclamar',
          motivo: 'contenido',
          glosa: 'Precio',
        },
        { emisor: SUPPLIER.rut, type: 33, folio: folios[2], decision: 'reclamar', motivo: 'falta_total', glosa: 'x' },
        { emisor: SUPPLIER.rut, type: 52, folio: folios[0], decision: 'aceptar' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const results = res.json().results;
    expect(results.map((r: { ok: boolean }) => r.ok)).toEqual([true, true, false, false]);
    expect(results[0].decision.actions).toEqual(['ACD', 'ERM']);
    expect(results[1].decision.actions).toEqual(['RCD']);
    expect(results[2]).toMatchObject({ code: 'DECISION_NOT_ALLOWED', sii_code: 11, document: { folio: folios[2] } });
    expect(results[2].error).toContain('code 11');
    expect(results[3]).toMatchObject({ code: 'RECEIVED_TYPE_NOT_DECIDABLE' });
  });

  it('refuses unknown fields and a claim without glosa (400)', async () => {
    const { rut, api, folios } = await received();
    expect((await accept(api, rut, folios[0]!, { recibo: { recinto: 'x', extra: 1 } })).statusCode).toBe(400);
    expect((await api.post(`${base(rut, folios[0]!)}/reclamar`, { motivo: 'contenido' })).statusCode).toBe(400);
    expect((await api.post(`${base(rut, folios[0]!)}/reclamar`, { motivo: 'otro', glosa: 'x' })).statusCode).toBe(400);
  });

  it('security: a viewer may not decide (403), another issuer cannot reach the document', async () => {
    const { rut, folios, api: owner } = await received(1);
    const viewer = t.as(await createKey(rut, 'viewer'));
    expect((await accept(viewer, rut, folios[0]!)).statusCode).toBe(403);
    const editor = t.as(await createKey(rut, 'editor'));
    const other = await createTestTenant(t);
    expect((await accept(other.api, rut, folios[0]!)).statusCode).toBe(403);
    expect((await accept(other.api, other.rut, folios[0]!)).statusCode).toBe(404);
    const d = (await accept(editor, rut, folios[0]!)).json().decision;
    expect(d.state).toBe('local');
    expect((await other.api.get(`/api/${other.rut}/recibidos_decisiones/${d.number}/resultado`)).statusCode).toBe(404);
    expect((await owner.get(`/api/${rut}/recibidos_decisiones/${d.number}/recibos`)).statusCode).toBe(404);
  });
});

describe('in live, against the SII simulator', () => {
  const PATH = '/WSREGISTRORECLAMODTE/registroreclamodteservice';
  let sim: SiiSimulator;
  let live: TestApp;

  beforeAll(async () => {
    const started = await startSimulator();
    sim = started.sim;
    live = await startLiveApp(sim, started.url, {
      env: { TIMBRE_EXTRA_CAF_KEYS: `${sim.cafPublicKeyPem}\n${supplier.siiPublicKeyPem}`, SMTP_URL: mail.url },
    });
  });

  /** A live issuer that received `count` facturas, which the SII knows it received (unless `unknownToSii`). */
  async function liveReceived(count = 1, opts: { unknownToSii?: boolean } = {}) {
    const li = await createLiveIssuer(live, sim, []);
    const api = live.as(li.key);
    const folios = Array.from({ length: count }, () => nextFolio++);
    const res = await api.inject({
      method: 'POST',
      url: `/api/${li.rut}/recibidos`,
      headers: { 'content-type': 'application/xml' },
      payload: supplier.envelope(
        li.rut,
        folios.map((f) => supplier.dte(li.rut, f)),
      ),
    });
    expect(res.json()).toMatchObject({ accepted: true });
    if (!opts.unknownToSii) {
      for (const folio of folios) {
        sim.registerReceivedDocument({ issuerRut: SUPPLIER.rut, type: 33, folio, receiverRut: li.rut });
      }
    }
    return { ...li, api, folios };
  }

  const siiEvents = (folio: number) =>
    sim.registroEvents({ issuerRut: SUPPLIER.rut, type: 33, folio }).map((e) => e.codEvento);

  it('accepts with a receipt: ACD and ERM registered at the SII (code 0), the answers signed, e-mailed and downloadable', async () => {
    const { issuer, rut, api, folios } = await liveReceived();
    const res = await accept(api, rut, folios[0]!, { recibo: { recinto: 'Bodega' }, email: ['dte@enacon.cl'] });
    expect(res.statusCode).toBe(200);
    const d = res.json().decision;
    expect(d).toMatchObject({ state: 'done', actions: ['ACD', 'ERM'], registered: ['ACD', 'ERM'], attempts: 1 });
    expect(d.sii.cod_resp).toBe(0);
    expect(siiEvents(folios[0]!)).toEqual(['ACD', 'ERM']);
    const resultado = (await api.get(new URL(d.resultado_url).pathname)).rawPayload;
    expect(xmllint(resultado, 'RespuestaEnvioDTE_v10.xsd').ok).toBe(true);
    expect(xmlsecVerify(resultado, { idAttrs: ['Resultado', 'http://www.sii.cl/SiiDte:Resultado'] }).ok).toBe(true);
    const recibos = (await api.get(new URL(d.recibos_url).pathname)).rawPayload;
    expect(xmllint(recibos, 'EnvioRecibos_v10.xsd').ok).toBe(true);
    // The certificate holder signs the receipt (RutFirma).
    expect(recibos.toString('latin1')).toContain('<RutFirma>13185095-6</RutFirma>');
    await waitFor(() => mail.messages.some((m) => m.attachments.some((a) => a.content.equals(recibos))), {
      what: 'the EnvioRecibos e-mailed to the supplier',
    });
    const events = await live.db.prisma.event.findMany({ where: { issuerId: issuer.id, type: 'received.accepted' } });
    expect(events).toHaveLength(1);
  });

  for (const [motivo, accion] of [
    ['contenido', 'RCD'],
    ['falta_parcial', 'RFP'],
    ['falta_total', 'RFT'],
  ] as const) {
    it(`claims ${motivo}: ${accion} registered at the SII`, async () => {
      const { rut, api, folios } = await liveReceived();
      const d = (await claim(api, rut, folios[0]!, motivo)).json().decision;
      expect(d).toMatchObject({ state: 'done', registered: [accion] });
      expect(siiEvents(folios[0]!)).toEqual([accion]);
    });
  }

  it('an ERM after a claim is refused before the SII is called (6, in Spanish); nothing more is registered', async () => {
    const { rut, api, folios } = await liveReceived();
    await claim(api, rut, folios[0]!, 'falta_total');
    const res = await accept(api, rut, folios[0]!, { recibo: { recinto: 'Bodega' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toContain('code 6');
    expect(res.json().error).toContain('No se puede otorgar recibo');
    expect(siiEvents(folios[0]!)).toEqual(['RFT']);
  });

  it("the SII's own refusal (10: not received at the SII) ends the decision refused, with its code and an event", async () => {
    const { issuer, rut, api, folios } = await liveReceived(1, { unknownToSii: true });
    const d = (await accept(api, rut, folios[0]!)).json().decision;
    expect(d.state).toBe('refused');
    expect(d.sii.cod_resp).toBe(10);
    expect(d.resultado_url).toBeNull();
    expect(
      await live.db.prisma.event.count({ where: { issuerId: issuer.id, type: 'received.decision_refused' } }),
    ).toBe(1);
    // Refused at the SII: it does not count as recorded, so it may be decided again.
    sim.registerReceivedDocument({ issuerRut: SUPPLIER.rut, type: 33, folio: folios[0]!, receiverRut: rut });
    expect((await accept(api, rut, folios[0]!)).json().decision.state).toBe('done');
  });

  it('an outage leaves the decision pending; the jobs register it when the SII is back, once', async () => {
    const { issuer, rut, api, folios } = await liveReceived();
    sim.setFault({ kind: 'down', paths: [PATH] });
    const d = (await accept(api, rut, folios[0]!, { recibo: { recinto: 'Bodega' } })).json().decision;
    expect(d).toMatchObject({ state: 'pending', registered: [] });
    expect(d.last_error).toBeTruthy();
    expect(siiEvents(folios[0]!)).toEqual([]);
    // Still pending, and still refused by the matrix meanwhile (it counts as recorded).
    expect((await accept(api, rut, folios[0]!)).statusCode).toBe(409);
    sim.clearFaults();
    await live.db.prisma.receivedDecision.updateMany({
      where: { issuerId: issuer.id },
      data: { nextRunAt: new Date() },
    });
    const done = await waitFor(
      async () => {
        const row = await live.db.prisma.receivedDecision.findFirstOrThrow({ where: { issuerId: issuer.id } });
        return row.state === 'done' ? row : null;
      },
      { what: 'the decision registered by the jobs' },
    );
    expect(done.registered).toEqual(['ACD', 'ERM']);
    expect(siiEvents(folios[0]!)).toEqual(['ACD', 'ERM']);
    expect(await live.db.prisma.event.count({ where: { issuerId: issuer.id, type: 'received.accepted' } })).toBe(1);
  });

  it('an answer lost after the SII recorded the action: the retry is answered 7 and counts as done, registered once', async () => {
    const { issuer, rut, api, folios } = await liveReceived();
    // Only the decision's call: the reception clock's job asks the same path (consultarFechaRecepcionSii)
    // and, under load, could otherwise use the one fault up first.
    sim.setFault({
      kind: 'timeout-after-receipt',
      paths: [PATH],
      operations: ['ingresarAceptacionReclamoDoc'],
      count: 1,
      delayMs: 10,
    });
    const d = (await accept(api, rut, folios[0]!)).json().decision;
    expect(d.state).toBe('pending');
    expect(siiEvents(folios[0]!)).toEqual(['ACD']);
    await live.db.prisma.receivedDecision.updateMany({
      where: { issuerId: issuer.id },
      data: { nextRunAt: new Date() },
    });
    const done = await waitFor(
      async () => {
        const row = await live.db.prisma.receivedDecision.findFirstOrThrow({ where: { issuerId: issuer.id } });
        return row.state === 'done' ? row : null;
      },
      { what: 'the decision registered by the jobs' },
    );
    expect(done.codResp).toBe(7);
    expect(siiEvents(folios[0]!)).toEqual(['ACD']);
  });
});
