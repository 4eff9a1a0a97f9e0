/**
 * Ceding an issued factura (README "Cesión") in live against the SII simulator: Timbre's real
 * SII client, the simulator's claims registry (consultarDocDteCedible) and its RPETC (the AEC
 * upload, getEstEnvio, getEstCesion). The AEC is checked by xmllint (AEC_v10.xsd) and xmlsec1
 * (its three signatures and the DTE's), not by our own code.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateTestCertificate, parsePkcs12 } from '../../src/dte/certificate.ts';
import { createSiiClient } from '../../src/sii/client.ts';
import { type AccionDoc, ingresarAceptacionReclamoDoc } from '../../src/sii/registro-reclamo.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/index.ts';
import { setMailbox } from '../../src/receiving/mailbox-settings.ts';
import { bearer, buildTestApp, closeAfterApps, createTestKey, createTestTenant, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';
import { createLiveIssuer, estadoOf, eventually, type LiveIssuer, liveEnv } from '../helpers/live.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

const CESIONARIO = {
  rut: '96516320-4',
  razon_social: 'Factoring del Sur S.A.',
  direccion: 'Av. Apoquindo 3000, Las Condes',
  email: 'operaciones@factoringdelsur.cl',
};

let t: TestApp;
let sim: SiiSimulator;
let url: string;
let live: LiveIssuer;

beforeAll(async () => {
  sim = createSiiSimulator({ stepDelayMs: 20 });
  closeAfterApps(() => sim.close());
  ({ url } = await sim.listen(0));
  t = await buildTestApp({ env: liveEnv(sim, url) });
  live = await createLiveIssuer(t, sim, [33, 61]);
});

interface Issued {
  folio: number;
  date: string;
  total: number;
}

/** A factura issued and accepted by the SII. */
async function issued(by: LiveIssuer = live): Promise<Issued> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${by.rut}/emitir`,
    headers: by.auth,
    payload: factura(),
  });
  expect(res.statusCode).toBe(200);
  const body = res.json() as { folio: number; date: string; totals: { total: number } };
  await eventually(async () => (await estadoOf(t, by.rut, 33, body.folio)) === 'aceptado');
  return { folio: body.folio, date: body.date, total: body.totals.total };
}

/** The receiver (RECEIVER's representative) acts at the claims registry. */
async function customer(folio: number, accion: AccionDoc, issuerRut = live.rut) {
  const { p12, password } = generateTestCertificate({ holderRut: '8414240-9', name: 'Cliente de Prueba' });
  const sii = createSiiClient({
    config: { ...liveEnv(sim, url), SII_TIMEOUT_MS: 3000 } as never,
    clock: () => new Date(),
  });
  const answer = await ingresarAceptacionReclamoDoc(
    { sii, cert: parsePkcs12(p12, password) },
    { rutEmisor: issuerRut, tipoDoc: 33, folio },
    accion,
  );
  expect(answer.codResp).toBe(0);
}

/** A factura the SII accepted and its receiver acknowledged (ERM): cedible (23). */
async function cedible(by: LiveIssuer = live): Promise<Issued> {
  const doc = await issued(by);
  await customer(doc.folio, 'ERM', by.rut);
  return doc;
}

function cede(folio: number, over: Record<string, unknown> = {}, auth = live.auth) {
  return t.app.inject({
    method: 'POST',
    url: `/api/${live.rut}/ceder`,
    headers: auth,
    payload: {
      type: 33,
      folio,
      cesionario: CESIONARIO,
      ultimo_vencimiento: '2099-12-31',
      email_deudor: RECEIVER.email,
      cedente_email: 'cobranzas@emisor.cl',
      ...over,
    },
  });
}

async function cesionesOf(folio: number) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/${live.rut}/cesiones?folio=${folio}`,
    headers: live.auth,
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as Record<string, unknown>[];
}

async function estadoOfCesion(folio: number): Promise<string | undefined> {
  return (await cesionesOf(folio))[0]?.estado as string | undefined;
}

async function storedCount(folio: number): Promise<number> {
  return t.db.prisma.cession.count({ where: { issuerId: live.issuer.id, document: { type: 33, folio } } });
}

/** xmlsec1 on one signature of the AEC, found by the element that holds it. */
function verifySignature(aec: Buffer, holder: string) {
  return xmlsecVerify(aec, {
    nodeXpath: `//*[local-name()='${holder}']/*[local-name()='Signature']`,
    idAttrs: [
      'http://www.sii.cl/SiiDte:DocumentoAEC',
      'http://www.sii.cl/SiiDte:DocumentoCesion',
      'http://www.sii.cl/SiiDte:DocumentoDTECedido',
      'http://www.sii.cl/SiiDte:Documento',
      'DocumentoAEC',
      'DocumentoCesion',
      'DocumentoDTECedido',
      'Documento',
    ],
  });
}

describe('POST /api/{rut}/ceder', () => {
  it('cedes an acknowledged factura: stored, uploaded, EOK → aceptada with the cesionario as holder, cession.registered, the AEC byte-exact and valid', async () => {
    const doc = await cedible();
    const res = await cede(doc.folio);
    expect(res.statusCode, res.body).toBe(200);
    const first = res.json().cesion;
    expect(first).toMatchObject({
      type: 33,
      folio: doc.folio,
      seq: 1,
      cesionario: CESIONARIO,
      monto: doc.total,
      ultimo_vencimiento: '2099-12-31',
      email_deudor: RECEIVER.email,
    });
    expect(['enviada', 'aceptada']).toContain(first.estado);
    expect(first.track_id).toBeTruthy();

    await eventually(async () => (await estadoOfCesion(doc.folio)) === 'aceptada');
    const [done] = await cesionesOf(doc.folio);
    expect(done).toMatchObject({ estado: 'aceptada', sii_estado: 'EOK', tenedor: CESIONARIO.rut, last_error: null });

    const event = await eventually(() =>
      t.db.prisma.event.findFirst({ where: { issuerId: live.issuer.id, type: 'cession.registered' } }),
    );
    expect(event.data).toMatchObject({ cesion: { id: first.id, estado: 'aceptada', tenedor: CESIONARIO.rut } });

    // The AEC as stored, downloaded byte for byte, valid for xmllint and xmlsec1.
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/${live.rut}/cesiones/${first.id}/aec`,
      headers: live.auth,
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toMatch(/^application\/xml/);
    const aec = download.rawPayload;
    const row = await t.db.prisma.cession.findUniqueOrThrow({ where: { id: first.id } });
    expect(Buffer.compare(aec, Buffer.from(row.aec))).toBe(0);
    const schema = xmllint(aec, 'AEC_v10.xsd');
    expect(schema.ok, schema.output).toBe(true);
    for (const holder of ['AEC', 'Cesion', 'DTECedido', 'DTE']) {
      const v = verifySignature(aec, holder);
      expect(v.ok, `${holder}: ${v.output}`).toBe(true);
    }
    expect(aec.toString('latin1')).toContain(`<RutCesionario>${CESIONARIO.rut}</RutCesionario>`);

    // The document says it is ceded, in the list and in its status.
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/${live.rut}/emisiones?q=${doc.folio}`,
      headers: live.auth,
    });
    const entry = (list.json().data as { folio: number; cesion: unknown }[]).find((d) => d.folio === doc.folio);
    expect(entry?.cesion).toMatchObject({
      estado: 'aceptada',
      cesionario: { rut: CESIONARIO.rut },
      tenedor: CESIONARIO.rut,
    });

    // Ceding it again: it belongs to the cesionario now.
    const again = await cede(doc.folio);
    expect(again.statusCode).toBe(422);
    expect(again.json()).toMatchObject({ ok: false, code: 'DOCUMENT_CEDED' });

    // A credit note that voids it, or reduces its amounts: refused.
    for (const [code, items] of [
      [1, factura().items],
      [3, [{ name: 'Descuento por volumen', qty: 1, price: 1000 }]],
    ] as const) {
      const note = await t.app.inject({
        method: 'POST',
        url: `/api/${live.rut}/emitir`,
        headers: live.auth,
        payload: {
          type: 61,
          receiver: RECEIVER,
          refs: [{ type: 33, folio: doc.folio, date: doc.date, code, reason: 'Anula o corrige' }],
          items,
        },
      });
      expect(note.statusCode, note.body).toBe(422);
      expect(note.json()).toMatchObject({ ok: false, code: 'DOCUMENT_CEDED' });
      expect(note.json().error).toMatch(/belongs to the cesionario/);
    }
  });

  it('a factura the receiver claimed is not cedible: 422 with the SII code and the reason, nothing stored', async () => {
    const doc = await issued();
    await customer(doc.folio, 'RCD');
    const res = await cede(doc.folio);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ok: false, code: 'DOCUMENT_NOT_CEDIBLE' });
    expect(res.json().error).toMatch(/consultarDocDteCedible 24/);
    expect(res.json().error).toMatch(/reclamó/);
    expect(await storedCount(doc.folio)).toBe(0);
  });

  it('a factura a credit note voids (on its way or accepted) is not cedible: 422, nothing stored', async () => {
    const doc = await cedible();
    const note = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emitir`,
      headers: live.auth,
      payload: {
        type: 61,
        receiver: RECEIVER,
        refs: [{ type: 33, folio: doc.folio, date: doc.date, code: 1, reason: 'Anula factura' }],
        items: factura().items,
      },
    });
    expect(note.statusCode, note.body).toBe(200);
    const res = await cede(doc.folio);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ok: false, code: 'DOCUMENT_NOT_CEDIBLE' });
    expect(res.json().error).toMatch(/void/);
    expect(await storedCount(doc.folio)).toBe(0);
  });

  it('a factura without the receipt and within 8 days is not cedible yet (22)', async () => {
    const doc = await issued();
    const res = await cede(doc.folio);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatch(/consultarDocDteCedible 22/);
    expect(res.json().error).toMatch(/no ha acusado recibo/);
  });

  it('four concurrent cesiones of one factura: one is stored and its AEC uploaded once, the others refused', async () => {
    const doc = await cedible();
    const answers = await Promise.all([1, 2, 3, 4].map(() => cede(doc.folio)));
    const ok = answers.filter((r) => r.statusCode === 200);
    expect(ok, answers.map((r) => r.body).join('\n')).toHaveLength(1);
    for (const r of answers.filter((a) => a.statusCode !== 200)) {
      // In flight (409) or, if the first already reached EOK, ceded (422): never a second cesión.
      expect([409, 422]).toContain(r.statusCode);
      expect(['CESSION_IN_PROGRESS', 'DOCUMENT_CEDED']).toContain(r.json().code);
    }
    expect(await storedCount(doc.folio)).toBe(1);
    await eventually(async () => (await estadoOfCesion(doc.folio)) === 'aceptada');
    expect(sim.aecUploads().filter((u) => u.filename.includes(`_T33_F${doc.folio}_`))).toHaveLength(1);
  });

  it('the SII down at upload: pendiente, a second cesión meanwhile is 409, then aceptada once it is back', async () => {
    const doc = await cedible();
    sim.setFault({ kind: 'down', count: 2, paths: ['/cgi_rtc/RTC/RTCAnotEnvio.cgi'] });
    const res = await cede(doc.folio);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().cesion).toMatchObject({ estado: 'pendiente', track_id: null });
    // A reset connection: the client cannot tell whether the upload arrived (ambiguous).
    expect(res.json().cesion.last_error).toMatch(/the SII/);
    const second = await cede(doc.folio, { cesionario: { ...CESIONARIO, rut: '76086428-5' } });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ ok: false, code: 'CESSION_IN_PROGRESS' });
    await eventually(async () => (await estadoOfCesion(doc.folio)) === 'aceptada');
    expect(await storedCount(doc.folio)).toBe(1);
    const [row] = await cesionesOf(doc.folio);
    expect(row).toMatchObject({ tenedor: CESIONARIO.rut });
    expect(row!.attempts).toBeGreaterThanOrEqual(2);
  });

  it('an upload whose answer is lost is not registered twice: the registry is asked first', async () => {
    const doc = await cedible();
    sim.setFault({ kind: 'timeout-after-receipt', count: 1, delayMs: 100, paths: ['/cgi_rtc/RTC/RTCAnotEnvio.cgi'] });
    const res = await cede(doc.folio);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().cesion.estado).toBe('pendiente');
    await eventually(async () => (await estadoOfCesion(doc.folio)) === 'aceptada');
    const row = await t.db.prisma.cession.findFirstOrThrow({
      where: { issuerId: live.issuer.id, document: { folio: doc.folio } },
    });
    expect(row).toMatchObject({ estado: 'aceptada', holderRut: CESIONARIO.rut, uploadStartedAt: null, attempts: 1 });
  });

  it('a factura already ceded at the registry (outside Timbre): the registry refuses the AEC (RCS) → rechazada, cession.rejected', async () => {
    const doc = await cedible();
    sim.registerCesion({ issuerRut: live.rut, type: 33, folio: doc.folio, cesionarioRut: '76086428-5' });
    const res = await cede(doc.folio);
    expect(res.statusCode, res.body).toBe(200);
    await eventually(async () => (await estadoOfCesion(doc.folio)) === 'rechazada');
    const [row] = await cesionesOf(doc.folio);
    expect(row).toMatchObject({ estado: 'rechazada', sii_estado: 'RCS', tenedor: null });
    expect(row!.sii_glosa).toBeTruthy();
    const event = await eventually(() =>
      t.db.prisma.event.findFirst({
        where: {
          issuerId: live.issuer.id,
          type: 'cession.rejected',
          data: { path: ['cesion', 'id'], equals: row!.id as string },
        },
      }),
    );
    expect(event.data).toMatchObject({ cesion: { estado: 'rechazada', sii_estado: 'RCS' } });
    // A refused cesión holds nothing: the list shows no cesión on the document.
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/${live.rut}/emisiones?q=${doc.folio}`,
      headers: live.auth,
    });
    const entry = (list.json().data as { folio: number; cesion: unknown }[]).find((d) => d.folio === doc.folio);
    expect(entry?.cesion).toBeNull();
  });

  it("the cedente's e-mail defaults to the issuer's intercambio mailbox address", async () => {
    const other = await createLiveIssuer(t, sim, [33]);
    await setMailbox(t.ctx, other.issuer, { host: '127.0.0.1', port: 1, user: 'dte@ferreteria.cl', password: 'x' });
    const doc = await cedible(other);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${other.rut}/ceder`,
      headers: other.auth,
      payload: { type: 33, folio: doc.folio, cesionario: CESIONARIO, ultimo_vencimiento: '2099-12-31' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const row = await t.db.prisma.cession.findUniqueOrThrow({ where: { id: res.json().cesion.id } });
    expect(row.cedenteEmail).toBe('dte@ferreteria.cl');
    expect(Buffer.from(row.aec).toString('latin1')).toMatch(/<Cedente>[\s\S]*<eMail>dte@ferreteria\.cl<\/eMail>/);
  });

  it('the SII unreachable when asked whether it is cedible: 502, nothing stored', async () => {
    const doc = await cedible();
    sim.setFault({ kind: 'down', count: 6, paths: ['/WSREGISTRORECLAMODTE/*'] });
    const res = await cede(doc.folio);
    sim.clearFaults();
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ ok: false, code: 'SII_UNAVAILABLE' });
    expect(await storedCount(doc.folio)).toBe(0);
  });

  it('validation errors name the field', async () => {
    const doc = await issued();
    const cases: [Record<string, unknown>, string, number][] = [
      [{ monto: doc.total + 1 }, 'monto', 400],
      [{ ultimo_vencimiento: '2000-01-01' }, 'ultimo_vencimiento', 400],
      [{ ultimo_vencimiento: '2099-02-30' }, 'ultimo_vencimiento', 400],
      [{ cesionario: { ...CESIONARIO, rut: '96516320-5' } }, 'cesionario.rut', 400],
      [{ cesionario: { ...CESIONARIO, rut: live.rut } }, 'cesionario.rut', 400],
      [{ cesionario: { ...CESIONARIO, email: 'no es correo' } }, 'cesionario.email', 400],
      [{ cedente_email: undefined }, 'cedente_email', 400],
    ];
    for (const [over, path, status] of cases) {
      const res = await cede(doc.folio, over);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(status);
      expect(res.json().details?.[0]?.path, res.body).toBe(path);
    }
    const type = await cede(doc.folio, { type: 52 });
    expect(type.statusCode).toBe(422);
    expect(type.json()).toMatchObject({ code: 'DOCUMENT_NOT_CEDIBLE' });
    const missing = await cede(999_999);
    expect(missing.statusCode).toBe(404);
    expect(await storedCount(doc.folio)).toBe(0);
  });

  it("a sandbox issuer cannot cede: 422 that says the cesión is the SII's", async () => {
    const tenant = await createTestTenant(t);
    const issuedSandbox = await tenant.api.post(`/api/${tenant.rut}/emitir`, factura());
    expect(issuedSandbox.statusCode).toBe(200);
    const res = await tenant.api.post(`/api/${tenant.rut}/ceder`, {
      type: 33,
      folio: issuedSandbox.json().folio,
      cesionario: CESIONARIO,
      ultimo_vencimiento: '2099-12-31',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ok: false, code: 'SANDBOX_NOT_SUBMITTABLE' });
    expect(res.json().error).toMatch(/registered at the SII/);
  });

  it('viewer and editor keys may not cede (403); a viewer lists', async () => {
    const doc = await issued();
    for (const role of ['viewer', 'editor'] as const) {
      const key = await createTestKey(t.ctx, live.rut, role);
      const res = await cede(doc.folio, {}, bearer(key));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ ok: false, code: 'FORBIDDEN_ROLE' });
    }
    const viewer = bearer(await createTestKey(t.ctx, live.rut, 'viewer'));
    const list = await t.app.inject({ method: 'GET', url: `/api/${live.rut}/cesiones`, headers: viewer });
    expect(list.statusCode).toBe(200);
    expect(await storedCount(doc.folio)).toBe(0);
  });
});

describe('the dashboard', () => {
  it('an owner cedes from the document page; the Cesiones page lists it with its AEC', async () => {
    const doc = await cedible();
    const session = await dashboardSession(t, live.issuer);
    const pageUrl = `/dashboard/${live.rut}/documentos/33/${doc.folio}`;
    const before = await t.app.inject({ method: 'GET', url: pageUrl, headers: { cookie: session.cookie } });
    expect(before.body).toContain(`href="${pageUrl}/ceder"`);
    const bad = await t.app.inject({
      method: 'POST',
      url: `${pageUrl}/ceder`,
      headers: session.headers,
      payload: new URLSearchParams({
        _csrf: session.csrf,
        cesionario_rut: CESIONARIO.rut,
        cesionario_razon_social: CESIONARIO.razon_social,
        cesionario_direccion: CESIONARIO.direccion,
        cesionario_email: CESIONARIO.email,
        monto: String(doc.total + 1),
        ultimo_vencimiento: '2099-12-31',
        cedente_email: 'cobranzas@emisor.cl',
      }).toString(),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('No puede superar el total del documento');
    const post = await t.app.inject({
      method: 'POST',
      url: `${pageUrl}/ceder`,
      headers: session.headers,
      payload: new URLSearchParams({
        _csrf: session.csrf,
        cesionario_rut: CESIONARIO.rut,
        cesionario_razon_social: CESIONARIO.razon_social,
        cesionario_direccion: CESIONARIO.direccion,
        cesionario_email: CESIONARIO.email,
        ultimo_vencimiento: '2099-12-31',
        cedente_email: 'cobranzas@emisor.cl',
      }).toString(),
    });
    expect(post.statusCode, post.body).toBe(303);
    await eventually(async () => (await estadoOfCesion(doc.folio)) === 'aceptada');
    const after = await t.app.inject({
      method: 'GET',
      url: post.headers.location!,
      headers: { cookie: session.cookie },
    });
    expect(after.body).toContain('>Cedida</span>');
    expect(after.body).not.toContain('>Corregir montos<');
    expect(after.body).not.toContain(`href="${pageUrl}/ceder"`);
    const docs = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${live.rut}/documentos?q=${doc.folio}`,
      headers: { cookie: session.cookie },
    });
    expect(docs.body).toContain('title="Cedida a Factoring del Sur S.A."');
    const list = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${live.rut}/cesiones`,
      headers: { cookie: session.cookie },
    });
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(CESIONARIO.razon_social);
    const [row] = await cesionesOf(doc.folio);
    const aec = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${live.rut}/cesiones/${row!.id}/aec`,
      headers: { cookie: session.cookie },
    });
    expect(aec.statusCode).toBe(200);
    expect(aec.body).toContain('<AEC');
    const viewer = await dashboardSession(t, live.issuer, 'viewer');
    const form = await t.app.inject({ method: 'GET', url: `${pageUrl}/ceder`, headers: { cookie: viewer.cookie } });
    expect(form.statusCode).toBe(403);
  });

  it('the form says in Spanish why the SII does not take a claimed factura, and stores nothing', async () => {
    const doc = await issued();
    await customer(doc.folio, 'RFT');
    const session = await dashboardSession(t, live.issuer);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/${live.rut}/documentos/33/${doc.folio}/ceder`,
      headers: session.headers,
      payload: new URLSearchParams({
        _csrf: session.csrf,
        cesionario_rut: CESIONARIO.rut,
        cesionario_razon_social: CESIONARIO.razon_social,
        cesionario_direccion: CESIONARIO.direccion,
        cesionario_email: CESIONARIO.email,
        ultimo_vencimiento: '2099-12-31',
        cedente_email: 'cobranzas@emisor.cl',
      }).toString(),
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('El receptor reclamó la factura en el SII: no es cedible. (código 24 del SII)');
    expect(await storedCount(doc.folio)).toBe(0);
  });
});
