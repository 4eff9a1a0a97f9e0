/**
 * Live issuing end to end: the HTTP API, the real SII client and the background jobs against
 * the local SII simulator (strict like the SII: signed seeds, schema, envelope and per-DTE
 * signatures, TED against the CAF, Carátula, duplicates). What a live user sees: estado_sii
 * walking from `enviado` to a final state, failures saved as `pendiente` with a warning and
 * submitted later, never two submissions of one document.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importCertificate } from '../../src/admin/certificates.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { envelopeKindOf, envelopeSchemaErrors } from '../../src/dte/envelope.ts';
import { createSubmission, dueSubmissions, FIRST_STEP_GRACE_MS, runSubmission } from '../../src/issuing/submissions.ts';
import type { SiiSimulator } from '../../src/sii-simulator/index.ts';
import { bearer, buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import {
  createLiveIssuer,
  estadoOf,
  eventually,
  type LiveIssuer,
  liveEnv,
  startLiveApp,
  startSimulator,
} from '../helpers/live.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';
import { startServer } from '../helpers/server.ts';
import { manualClock, waitFor } from '../helpers/time.ts';

let sim: SiiSimulator;
let url: string;
let t: TestApp;
let live: LiveIssuer;

beforeAll(async () => {
  ({ sim, url } = await startSimulator());
  t = await startLiveApp(sim, url);
  live = await createLiveIssuer(t, sim, [33, 34, 39, 41, 46, 52, 56, 61]);
});

// A fault never outlives its test, even one that failed half-way.
afterEach(() => {
  sim.clearFaults();
});

async function issue(body: Record<string, unknown>, l: LiveIssuer = live, app: TestApp = t) {
  const res = await app.app.inject({ method: 'POST', url: `/api/${l.rut}/emitir`, headers: l.auth, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const finalStates = ['aceptado', 'aceptado_con_reparos', 'rechazado', 'anulado'];

/** Waits for the background jobs to bring a document to a final state. */
async function settledEstado(type: number, folio: number, l: LiveIssuer = live, app: TestApp = t) {
  return eventually(async () => {
    const e = await estadoOf(app, l.rut, type, folio);
    return e && finalStates.includes(e) ? e : null;
  });
}

/**
 * For an app without jobs: runs the document's open submission step by step, as the jobs would,
 * until none is open; the document's final estado.
 */
async function finalWithoutJobs(app: TestApp, documentId: string) {
  return waitFor(
    async () => {
      const open = await app.ctx.db.prisma.submission.findFirst({ where: { documentId, state: { not: 'done' } } });
      if (open) {
        await runSubmission(app.ctx, open.id, { force: true });
        return null;
      }
      return (await app.ctx.db.prisma.document.findUniqueOrThrow({ where: { id: documentId } })).estadoSii;
    },
    { what: 'the submission final' },
  );
}

function uploadsOf(rut: string, type: number, folio: number) {
  return sim
    .uploads()
    .filter((u) => u.companyRut === rut && u.documents.some((d) => d.type === type && d.folio === folio));
}

/** A factura of `live`, issued and accepted (for the notes that refer to one). */
async function acceptedFactura() {
  const body = await issue(factura());
  expect(await settledEstado(33, body.folio)).toBe('aceptado');
  return { folio: body.folio as number, date: body.date as string, total: body.totals.total as number };
}

describe('each document type reaches aceptado', () => {
  it.each([33, 34, 39, 41, 46, 52])('type %i', async (type) => {
    const body = await issue(requestFor(type));
    expect(body).toMatchObject({ ok: true, env: 'live', estado_sii: 'enviado' });
    expect(body.track_id).toMatch(/^\d{10,15}$/);
    expect(body.sii).toMatchObject({ track_id: body.track_id });
    expect(body.warning).toBeUndefined();
    expect(await settledEstado(type, body.folio)).toBe('aceptado');
    const uploads = uploadsOf(live.rut, type, body.folio);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.channel).toBe(type === 39 || type === 41 ? 'boleta-rest' : 'dteupload');
  });

  it("the answer's Server-Timing adds the SII upload to the folio, signing and storing stages", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emitir`,
      headers: live.auth,
      payload: factura(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['server-timing']).toMatch(
      /^folio;dur=\d+\.\d, sign;dur=\d+\.\d, store;dur=\d+\.\d, sii;dur=\d+\.\d$/,
    );
  });

  it('a debit note (56) on the accepted factura', async () => {
    const f = await acceptedFactura();
    const body = await issue({
      type: 56,
      receiver: RECEIVER,
      items: [{ name: 'Intereses por mora', qty: 1, price: 12000 }],
      refs: [{ type: 33, folio: f.folio, date: f.date, reason: 'Intereses' }],
    });
    expect(await settledEstado(56, body.folio)).toBe('aceptado');
  });

  it('a credit note (61) voiding the factura is accepted and then marks the factura anulado', async () => {
    const f = await acceptedFactura();
    const original = factura() as { receiver: { rut: string; name: string }; items: unknown[] };
    const body = await issue({
      type: 61,
      receiver: { rut: original.receiver.rut, name: original.receiver.name },
      items: original.items,
      refs: [{ type: 33, folio: f.folio, date: f.date, code: 1, reason: 'Anula factura' }],
    });
    // Live waits for the SII: the factura is not voided by the mere issuing of the note.
    expect(await estadoOf(t, live.rut, 33, f.folio)).toBe('aceptado');
    expect(await settledEstado(61, body.folio)).toBe('aceptado');
    expect(await estadoOf(t, live.rut, 33, f.folio)).toBe('anulado');
    // …and the SII agrees when asked.
    const status = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emision_estado_dte`,
      headers: live.auth,
      payload: { type: 33, folio: f.folio },
    });
    expect(status.json()).toMatchObject({ ok: true, estado_sii: 'anulado', sii: { estado: 'ANC' } });
  });
});

describe('verdicts of the SII', () => {
  it('a forced rejection ends rechazado with the SII code kept', async () => {
    const body = await issue(factura({ receiver: { ...RECEIVER, rut: '11111111-1' } }));
    expect(await settledEstado(33, body.folio)).toBe('rechazado');
    const doc = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: live.issuer.id, folio: body.folio, type: 33 },
    });
    expect(`${doc.siiCode} ${doc.siiGlosa}`).toMatch(/RCH|rechaz/i);
  });

  it('accepted with objections ends aceptado_con_reparos', async () => {
    const body = await issue(factura({ receiver: { ...RECEIVER, rut: '22222222-2' } }));
    expect(await settledEstado(33, body.folio)).toBe('aceptado_con_reparos');
  });

  it('emision_estado_dte asks the SII and stores the answer', async () => {
    const body = await issue(requestFor(34));
    await settledEstado(34, body.folio);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emision_estado_dte`,
      headers: live.auth,
      payload: { type: 34, folio: body.folio },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      ok: true,
      type: 34,
      folio: body.folio,
      env: 'live',
      estado_sii: 'aceptado',
      sii: { estado: 'DOK', track_id: body.track_id },
    });
    expect(new Date(res.json().sii.checked_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const unknown = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emision_estado_dte`,
      headers: live.auth,
      payload: { type: 34, folio: 999_999 },
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('failures on the way to the SII', () => {
  it('SII down at issue time: saved as pendiente with a warning, then submitted by the jobs', async () => {
    sim.setFault({ kind: 'down', paths: ['/cgi_dte/UPL/DTEUpload', '/DTEWS/CrSeed.jws'], count: 3 });
    const body = await issue(factura());
    expect(body).toMatchObject({ ok: true, env: 'live', estado_sii: 'pendiente', track_id: '' });
    expect(body.warning).toMatch(/saved/);
    expect(body.warning).toMatch(/SII/);
    // The PDF and XML exist at once: the document is stored with its signed XML.
    const xml = await t.app.inject({
      method: 'GET',
      url: new URL(body.xml_url).pathname + new URL(body.xml_url).search,
    });
    expect(xml.statusCode).toBe(200);
    expect(await settledEstado(33, body.folio)).toBe('aceptado');
    expect(uploadsOf(live.rut, 33, body.folio)).toHaveLength(1);
  });

  it('a timeout after the SII received the upload: asked before re-sending, one submission only', async () => {
    sim.setFault({ kind: 'timeout-after-receipt', paths: ['/cgi_dte/UPL/DTEUpload'], companyRut: live.rut, count: 1 });
    const body = await issue(factura());
    expect(body.estado_sii).toBe('pendiente');
    expect(body.track_id).toBe('');
    expect(await settledEstado(33, body.folio)).toBe('aceptado');
    const uploads = uploadsOf(live.rut, 33, body.folio);
    expect(uploads).toHaveLength(1);
    const doc = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: live.issuer.id, type: 33, folio: body.folio },
    });
    // The track id the SII gave the first (unanswered) upload is learnt afterwards: the user
    // sees it on the accepted document.
    expect(doc.trackId).toBe(uploads[0]!.trackId);
    const listed = await t.as(live.key).get(`/api/${live.rut}/emisiones?tipo_dte=33&q=${body.folio}`);
    expect(listed.json().data[0]).toMatchObject({ folio: body.folio, track_id: uploads[0]!.trackId });
  });

  it('a 500 from the upload is retried without a second submission', async () => {
    sim.setFault({ kind: 'http500', paths: ['/cgi_dte/UPL/DTEUpload'], companyRut: live.rut, count: 1 });
    const body = await issue(requestFor(46));
    expect(body.estado_sii).toBe('pendiente');
    expect(await settledEstado(46, body.folio)).toBe('aceptado');
    expect(uploadsOf(live.rut, 46, body.folio)).toHaveLength(1);
  });

  it('expired tokens are renewed without the caller noticing', async () => {
    await issue(requestFor(34));
    sim.expireTokens();
    const body = await issue(requestFor(34));
    expect(body.estado_sii).toBe('enviado');
    expect(await settledEstado(34, body.folio)).toBe('aceptado');
  });
});

describe('the first step of a submission belongs to the call that stored it', () => {
  it('the jobs leave a submission nobody has tried yet to that call for FIRST_STEP_GRACE_MS, then take it', async () => {
    // Taken by a job in between, the call would answer `pendiente` about a document on its way.
    const quiet = await startLiveApp(sim, url, { env: { JOBS_ENABLED: 'false' } });
    const own = await createLiveIssuer(quiet, sim, [33]);
    const issued = await quiet
      .as(own.key)
      .post(`/api/${own.rut}/emitir`, factura({ receiver: { ...RECEIVER, rut: '11111111-1' } }));
    const doc = await quiet.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: own.issuer.id, type: 33, folio: issued.json().folio },
    });
    expect(await finalWithoutJobs(quiet, doc.id)).toBe('rechazado');
    // A new submission as a resubmit stores it, before the resubmit's own first step.
    const fresh = await createSubmission(quiet.ctx, { issuer: own.issuer, document: doc });
    const clock = manualClock();
    const poller = await buildTestApp({
      env: liveEnv(sim, url, { JOBS_ENABLED: 'false' }),
      shareDatabaseOf: quiet,
      clock,
    });
    const due = async () => (await dueSubmissions(poller.ctx)).map((s) => s.id);
    expect(fresh.nextRunAt.getTime()).toBeLessThanOrEqual(clock().getTime());
    expect(await due()).not.toContain(fresh.id);
    // Its storing process died before the step: the jobs take it after the grace.
    clock.advance(FIRST_STEP_GRACE_MS + 1_000);
    expect(await due()).toContain(fresh.id);
  });
});

describe('the envelope is validated against its XSD before any upload', () => {
  it('a valid EnvioDTE and EnvioBOLETA pass and are uploaded', async () => {
    for (const type of [33, 39]) {
      const body = await issue(requestFor(type));
      expect(body.estado_sii).toBe('enviado');
      const doc = await t.ctx.db.prisma.document.findFirstOrThrow({
        where: { issuerId: live.issuer.id, type, folio: body.folio },
        include: { submissions: true },
      });
      const [submission] = doc.submissions;
      expect(envelopeSchemaErrors(envelopeKindOf(type), submission!.envelope)).toEqual([]);
      expect(uploadsOf(live.rut, type, body.folio)).toHaveLength(1);
    }
  });

  it('an envelope that fails its XSD when built: 500 DOCUMENT_SCHEMA_INVALID, nothing stored or uploaded, the folio goes back', async () => {
    const own = await createLiveIssuer(t, sim, [33]);
    const uploadsBefore = sim.uploads().length;
    // NroResol has at most 6 digits (NroResolType): a Carátula our code must never write.
    const setResolution = async (resolutionNumber: number) => {
      await t.ctx.db.prisma.issuer.update({ where: { id: own.issuer.id }, data: { resolutionNumber } });
      t.ctx.caches.apply({ kind: 'issuer', issuerId: own.issuer.id }); // as the change feed would
    };
    await setResolution(1_234_567);
    const res = await t.as(own.key).post(`/api/${own.rut}/emitir`, factura());
    expect(res.statusCode, res.body).toBe(500);
    expect(res.json()).toMatchObject({ code: 'DOCUMENT_SCHEMA_INVALID' });
    expect(res.json().error).toMatch(/envelope/);
    expect(await t.ctx.db.prisma.document.count({ where: { issuerId: own.issuer.id } })).toBe(0);
    expect(await t.ctx.db.prisma.submission.count({ where: { issuerId: own.issuer.id } })).toBe(0);
    expect(sim.uploads().filter((u) => u.companyRut === own.rut)).toHaveLength(0);
    expect(sim.uploads().length).toBe(uploadsBefore);
    // With the resolution right again the same folio is issued and sent.
    await setResolution(80);
    const ok = await t.as(own.key).post(`/api/${own.rut}/emitir`, factura());
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ folio: 1, estado_sii: 'enviado' });
  });

  it('a stored envelope that fails its XSD is never uploaded: the reason is recorded on the submission and the document', async () => {
    const quiet = await startLiveApp(sim, url, { env: { JOBS_ENABLED: 'false' } });
    const own = await createLiveIssuer(quiet, sim, [33]);
    sim.setFault({ kind: 'down', paths: ['/cgi_dte/UPL/DTEUpload'] });
    const issued = await quiet.as(own.key).post(`/api/${own.rut}/emitir`, factura());
    expect(issued.json().estado_sii).toBe('pendiente');
    sim.clearFaults();
    const submission = await quiet.ctx.db.prisma.submission.findFirstOrThrow({ where: { issuerId: own.issuer.id } });
    // Damaged after it was stored (or stored before the check existed).
    const damaged = Buffer.from(submission.envelope)
      .toString('latin1')
      .replace('<NroResol>80</NroResol>', '<NroResol>1234567</NroResol>');
    expect(damaged).toContain('1234567');
    await quiet.ctx.db.prisma.submission.update({
      where: { id: submission.id },
      data: { envelope: new Uint8Array(Buffer.from(damaged, 'latin1')) },
    });
    const uploadsBefore = uploadsOf(own.rut, 33, issued.json().folio).length;
    const step = await runSubmission(quiet.ctx, submission.id, { force: true });
    expect(step?.submission).toMatchObject({ state: 'queued' });
    expect(step?.submission.lastError).toMatch(/XSD.*not uploaded.*EnvioDTE_v10\.xsd/);
    expect(step?.document).toMatchObject({ estadoSii: 'pendiente' });
    expect(step?.document.lastSubmitError).toMatch(/XSD/);
    expect(uploadsOf(own.rut, 33, issued.json().folio)).toHaveLength(uploadsBefore);
    const resend = await quiet
      .as(own.key)
      .post('/api/emision_reenviar', { rut: own.rut, type: 33, folio: issued.json().folio });
    expect(resend.json()).toMatchObject({ estado_sii: 'pendiente' });
    expect(resend.json().warning).toMatch(/XSD/);
    expect(uploadsOf(own.rut, 33, issued.json().folio)).toHaveLength(uploadsBefore);
  });
});

describe('resubmit (POST /api/emision_reenviar)', () => {
  it('sends a pending document now, never with a new folio or signature', async () => {
    // An instance without background jobs, on its own database: no worker can take the
    // submission between the test's steps, so "now" is the resubmit call itself.
    const quiet = await startLiveApp(sim, url, { env: { JOBS_ENABLED: 'false' } });
    const own = await createLiveIssuer(quiet, sim, [33]);
    const api = quiet.as(own.key);
    sim.setFault({ kind: 'down', paths: ['/cgi_dte/UPL/DTEUpload'] });
    const issued = await api.post(`/api/${own.rut}/emitir`, factura());
    const body = issued.json();
    expect(body.estado_sii).toBe('pendiente');
    const before = await quiet.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: own.issuer.id, type: 33, folio: body.folio },
    });
    const resend = () => api.post('/api/emision_reenviar', { rut: own.rut, type: 33, folio: body.folio });
    const stillDown = await resend();
    expect(stillDown.statusCode).toBe(200);
    expect(stillDown.json()).toMatchObject({ ok: true, folio: body.folio, estado_sii: 'pendiente', track_id: '' });
    expect(stillDown.json().warning).toBeDefined();
    sim.clearFaults();
    const res = await resend();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, env: 'live', folio: body.folio, estado_sii: 'enviado' });
    expect(res.json().track_id).toMatch(/^\d{10}$/);
    const after = await quiet.ctx.db.prisma.document.findUniqueOrThrow({ where: { id: before.id } });
    expect(Buffer.from(after.signedXml).equals(Buffer.from(before.signedXml))).toBe(true);
    // No jobs here: ask the SII until it has processed the upload.
    const status = await waitFor(
      async () => {
        const r = await api.post(`/api/${own.rut}/emision_estado_dte`, { type: 33, folio: body.folio });
        const answer = r.json() as { estado_sii: string; sii: { track_id: string } };
        return answer.estado_sii === 'aceptado' ? answer : null;
      },
      { what: 'the resubmitted factura accepted' },
    );
    expect(status.sii.track_id).toBe(res.json().track_id);
    expect(uploadsOf(own.rut, 33, body.folio)).toHaveLength(1);
  });

  it('an accepted document is not sent again; another issuer, a sandbox document and an unknown folio are refused', async () => {
    const body = await issue(requestFor(34));
    await settledEstado(34, body.folio);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/emision_reenviar',
      headers: live.auth,
      payload: { rut: live.rut, type: 34, folio: body.folio },
    });
    expect(again.json()).toMatchObject({ ok: true, estado_sii: 'aceptado' });
    expect(again.json().warning).toMatch(/nothing was sent/);
    expect(uploadsOf(live.rut, 34, body.folio)).toHaveLength(1);

    const sandbox = await createTestIssuer(t.ctx);
    const sandboxKey = bearer(await createTestKey(t.ctx, sandbox.rut));
    const issued = await t.app.inject({
      method: 'POST',
      url: `/api/${sandbox.rut}/emitir`,
      headers: sandboxKey,
      payload: factura(),
    });
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/emision_reenviar',
      headers: sandboxKey,
      payload: { rut: sandbox.rut, type: 33, folio: issued.json().folio },
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBe('SANDBOX_NOT_SUBMITTABLE');
    const cross = await t.app.inject({
      method: 'POST',
      url: '/api/emision_reenviar',
      headers: sandboxKey,
      payload: { rut: live.rut, type: 34, folio: body.folio },
    });
    expect(cross.statusCode).toBe(403);
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/emision_reenviar',
      headers: live.auth,
      payload: { rut: live.rut, type: 34, folio: 999_999 },
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('Idempotency-Key in live (no second folio, range or upload)', () => {
  const post = (url: string, payload: object, key: string) =>
    t.app.inject({ method: 'POST', url, headers: { ...live.auth, 'idempotency-key': key }, payload });

  it('emitir: the retry gets the same document and the SII gets one upload', async () => {
    const first = await post(`/api/${live.rut}/emitir`, factura(), 'live-order-1');
    const again = await post(`/api/${live.rut}/emitir`, factura(), 'live-order-1');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().folio).toBe(first.json().folio);
    expect(await settledEstado(33, first.json().folio)).toBe('aceptado');
    expect(uploadsOf(live.rut, 33, first.json().folio)).toHaveLength(1);
  });

  it('folios_sii: the retry answers the same range and stores no second CAF', async () => {
    const cafs = await t.ctx.db.prisma.caf.count({ where: { issuerId: live.issuer.id } });
    const first = await post(`/api/${live.rut}/folios_sii`, { tipo_dte: 34, cantidad: 3 }, 'live-folios-1');
    const again = await post(`/api/${live.rut}/folios_sii`, { tipo_dte: 34, cantidad: 3 }, 'live-folios-1');
    expect(first.statusCode, first.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await t.ctx.db.prisma.caf.count({ where: { issuerId: live.issuer.id } })).toBe(cafs + 1);
  });

  it('emision_reenviar: the retry is answered from the first call', async () => {
    sim.setFault({ kind: 'down', paths: ['/cgi_dte/UPL/DTEUpload'] });
    const body = await issue(requestFor(34));
    expect(body.estado_sii).toBe('pendiente');
    const payload = { rut: live.rut, type: 34, folio: body.folio };
    const first = await post('/api/emision_reenviar', payload, 'live-resend-1');
    sim.clearFaults();
    const again = await post('/api/emision_reenviar', payload, 'live-resend-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await settledEstado(34, body.folio)).toBe('aceptado');
    expect(uploadsOf(live.rut, 34, body.folio)).toHaveLength(1);
  });
});

describe('folios_sii in live', () => {
  it('obtains a CAF from the SII, verifies and stores it, and GET folios shows it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/folios_sii`,
      headers: live.auth,
      payload: { tipo_dte: 33, cantidad: 7 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, env: 'live', type: 33, count: 7 });
    const { from, to } = res.json();
    expect(to - from + 1).toBe(7);
    const folios = await t.app.inject({ method: 'GET', url: `/api/${live.rut}/folios`, headers: live.auth });
    const ranges = folios.json().data.find((d: { type: number }) => d.type === 33).ranges;
    expect(ranges).toContainEqual(expect.objectContaining({ from, to, next: from, available: 7 }));
  });

  it('refuses a CAF signed by a key Timbre does not trust (nothing stored)', async () => {
    const untrusting = await buildTestApp({
      env: {
        SII_DTEWS_URL: url,
        SII_UPLOAD_URL: url,
        SII_PORTAL_URL: url,
        SII_BOLETA_API_URL: `${url}/recursos/v1`,
        SII_BOLETA_UPLOAD_URL: `${url}/recursos/v1`,
      },
      shareDatabaseOf: t,
    });
    const before = await t.ctx.db.prisma.caf.count({ where: { issuerId: live.issuer.id } });
    const res = await untrusting.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/folios_sii`,
      headers: live.auth,
      payload: { tipo_dte: 33, cantidad: 5 },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('CAF_SIGNATURE_INVALID');
    expect(await t.ctx.db.prisma.caf.count({ where: { issuerId: live.issuer.id } })).toBe(before);
  });
});

describe('422 before anything is consumed', () => {
  it('no certificate, a certificate not yet valid, no SII resolution, no CAF for the type', async () => {
    const post = (rut: string, key: string, body: unknown) => t.as(key).post(`/api/${rut}/emitir`, body);

    const noCert = await createTestIssuer(t.ctx, { ambiente: 1 });
    const noCertKey = await createTestKey(t.ctx, noCert.rut);
    const r1 = await post(noCert.rut, noCertKey, factura());
    expect(r1.statusCode).toBe(422);
    expect(r1.json().code).toBe('NO_CERTIFICATE');

    const future = await createTestIssuer(t.ctx, { ambiente: 1 });
    const { p12, password } = generateTestCertificate({
      holderRut: '13185095-6',
      name: 'FUTURO',
      notBefore: new Date(Date.now() + 5 * 86_400_000),
    });
    await importCertificate(t.ctx, { rut: future.rut, p12, password });
    const r2 = await post(future.rut, await createTestKey(t.ctx, future.rut), factura());
    expect(r2.statusCode).toBe(422);
    expect(r2.json().code).toBe('CERTIFICATE_NOT_YET_VALID');

    const noResolution = await createTestIssuer(t.ctx, { ambiente: 1, resolutionDate: null, resolutionNumber: null });
    const cert = generateTestCertificate({ holderRut: '13185095-6', name: 'SIN RESOLUCION' });
    await importCertificate(t.ctx, { rut: noResolution.rut, ...cert });
    const r3 = await post(noResolution.rut, await createTestKey(t.ctx, noResolution.rut), factura());
    expect(r3.statusCode).toBe(422);
    expect(r3.json().code).toBe('ISSUER_NOT_CONFIGURED');

    // The live issuer has no range for type 52 left after using it? Use a type it never got.
    const partial = await createLiveIssuer(t, sim, [34]);
    const r4 = await post(partial.rut, partial.key, factura());
    expect(r4.statusCode).toBe(422);
    expect(r4.json().code).toBe('FOLIOS_EXHAUSTED');
    expect(r4.json().error).toMatch(/folios_sii/);
    expect(
      await t.ctx.db.prisma.document.count({
        where: { issuerId: { in: [noCert.id, future.id, noResolution.id, partial.issuer.id] } },
      }),
    ).toBe(0);
  });

  it('an expired certificate', async () => {
    let now = Date.now();
    const clocked = await buildTestApp({
      clock: () => new Date(now),
      shareDatabaseOf: t,
      env: { JOBS_ENABLED: 'false' },
    });
    const issuer = await createTestIssuer(clocked.ctx, { ambiente: 1 });
    const { p12, password } = generateTestCertificate({ holderRut: '13185095-6', name: 'CADUCA', validDays: 30 });
    await importCertificate(clocked.ctx, { rut: issuer.rut, p12, password });
    now += 40 * 86_400_000;
    const key = await createTestKey(clocked.ctx, issuer.rut);
    const res = await clocked.as(key).post(`/api/${issuer.rut}/emitir`, factura());
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('CERTIFICATE_EXPIRED');
  });
});

describe('README promises of the live path', () => {
  it('emision_estado_dte answers 502 SII_UNAVAILABLE when the SII cannot be reached, and keeps the stored state', async () => {
    const body = await issue(requestFor(34));
    expect(await settledEstado(34, body.folio)).toBe('aceptado');
    sim.setFault({ kind: 'down' });
    const res = await t.as(live.key).post(`/api/${live.rut}/emision_estado_dte`, { type: 34, folio: body.folio });
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()).toMatchObject({ ok: false, code: 'SII_UNAVAILABLE' });
    expect(res.json().request_id).toBe(res.headers['x-request-id']);
    expect(await estadoOf(t, live.rut, 34, body.folio)).toBe('aceptado');
  });

  it('resubmitting a rechazado document sends the same signed DTE in a new envelope, same folio', async () => {
    // Issued and resubmitted through an instance whose clock stands still, so both envelopes
    // are signed within the same second (the SII simulator rejects fast): the new envelope
    // must still differ from the rejected one, or DTEUpload would answer it as already received.
    // On a database of its own that no instance runs jobs on: the resubmit call is the only one
    // that can take the new submission (the file's app, which runs jobs, could otherwise take it
    // between its commit and the call's own first step, and the call would answer `pendiente`).
    const quiet = await startLiveApp(sim, url, { env: { JOBS_ENABLED: 'false' } });
    const own = await createLiveIssuer(quiet, sim, [33]);
    const frozen = await buildTestApp({
      env: liveEnv(sim, url, { JOBS_ENABLED: 'false' }),
      shareDatabaseOf: quiet,
      clock: manualClock(),
    });
    const issued = await frozen
      .as(own.key)
      .post(`/api/${own.rut}/emitir`, factura({ receiver: { ...RECEIVER, rut: '11111111-1' } }));
    expect(issued.statusCode, issued.body).toBe(200);
    const body = issued.json();
    const before = await quiet.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: own.issuer.id, type: 33, folio: body.folio },
    });
    expect(await finalWithoutJobs(quiet, before.id)).toBe('rechazado');
    const res = await frozen.as(own.key).post('/api/emision_reenviar', { rut: own.rut, type: 33, folio: body.folio });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, folio: body.folio, estado_sii: 'enviado' });
    const uploads = uploadsOf(own.rut, 33, body.folio);
    expect(uploads).toHaveLength(2);
    expect(res.json().track_id).toBe(uploads[1]!.trackId);
    expect(uploads[1]!.trackId).not.toBe(uploads[0]!.trackId);
    const after = await quiet.ctx.db.prisma.document.findUniqueOrThrow({ where: { id: before.id } });
    expect(Buffer.from(after.signedXml).equals(Buffer.from(before.signedXml))).toBe(true);
    const submissions = await quiet.ctx.db.prisma.submission.findMany({ where: { documentId: before.id } });
    expect(submissions).toHaveLength(2);
    expect(submissions[0]!.envelopeSha256).not.toBe(submissions[1]!.envelopeSha256);
    // The SII still refuses this receiver: the new envelope ends rechazado too, and nothing
    // else was issued for it.
    expect(await finalWithoutJobs(quiet, before.id)).toBe('rechazado');
    expect(
      await quiet.ctx.db.prisma.document.count({ where: { issuerId: own.issuer.id, type: 33, folio: body.folio } }),
    ).toBe(1);
  });

  it('a process killed mid-upload: the next worker asks the SII first, never uploads twice, and learns the track id', async () => {
    // An issuer on a database of its own that no instance runs jobs on: the server below is the
    // only process that can take its submission. (On the file's database, the file's app, which
    // runs jobs, could take the row between the server's commit and its first step and upload
    // it instead; the fault went to that upload and the server answered 200 before the kill.)
    const quiet = await startLiveApp(sim, url, { env: { JOBS_ENABLED: 'false' } });
    const own = await createLiveIssuer(quiet, sim, [52]);
    // The SII receives this company's upload but the answer never comes; the server is killed meanwhile.
    sim.setFault({
      kind: 'timeout-after-receipt',
      paths: ['/cgi_dte/UPL/DTEUpload'],
      companyRut: own.rut,
      count: 1,
    });
    const server = await startServer(quiet, liveEnv(sim, url, { JOBS_ENABLED: 'false', SII_TIMEOUT_MS: '120000' }));
    const ownUploads = () => sim.uploads().filter((u) => u.companyRut === own.rut);
    let answered = false;
    try {
      const pending = fetch(`${server.url}/api/${own.rut}/emitir`, {
        method: 'POST',
        headers: { ...own.auth, 'content-type': 'application/json' },
        body: JSON.stringify(requestFor(52)),
      })
        .then((res) => {
          answered = true;
          return res;
        })
        .catch(() => null);
      // A fresh process's first document (signing workers, schemas) is slow on a loaded machine:
      // a generous deadline, but an answer ends the wait at once (it fails just below).
      await waitFor(() => answered || ownUploads().length > 0, {
        timeoutMs: 90_000,
        what: 'the SII receiving the upload',
      });
      await server.kill();
      expect(await pending).toBeNull();
    } finally {
      await server.kill();
    }

    const [upload] = ownUploads();
    expect(ownUploads()).toHaveLength(1);
    const folio = upload!.documents[0]!.folio;
    const doc = await quiet.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: own.issuer.id, type: 52, folio },
    });
    expect(doc.estadoSii).toBe('pendiente');
    const submission = await quiet.ctx.db.prisma.submission.findFirstOrThrow({ where: { documentId: doc.id } });
    // The trace the dead process left: marked as being uploaded, under its lease.
    expect(submission.state).toBe('sending');

    // Another worker, once the dead one's lease is over (its clock moved past it).
    const clock = manualClock(new Date(Date.now() + 4 * 60_000));
    const worker = await buildTestApp({
      env: liveEnv(sim, url, { JOBS_ENABLED: 'false' }),
      shareDatabaseOf: quiet,
      clock,
    });
    for (let i = 0; i < 20; i++) {
      const step = await runSubmission(worker.ctx, submission.id, { force: true });
      if (step?.submission.state === 'done') break;
      clock.advance(1_000);
    }
    const after = await quiet.ctx.db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(after.estadoSii).toBe('aceptado');
    expect(after.trackId).toBe(upload!.trackId);
    expect(uploadsOf(own.rut, 52, folio)).toHaveLength(1);
  }, 180_000);
});
