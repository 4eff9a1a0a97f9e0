/**
 * Your invoices seen from your customers (docs/claims-registry.md §5), in live against the SII
 * simulator: an issued factura the SII accepted is followed at the claims registry until the
 * customer's 8 days pass; what the customer did becomes events and shows in `emisiones` and
 * `emision_estado_dte`. The app and the simulator share a clock that runs with real time plus an
 * offset the test moves (the submission needs time to run; the 8 days must not be waited for).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateTestCertificate, parsePkcs12 } from '../../src/dte/certificate.ts';
import { createSiiClient } from '../../src/sii/client.ts';
import { type AccionDoc, ingresarAceptacionReclamoDoc } from '../../src/sii/registro-reclamo.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/index.ts';
import { buildTestApp, closeAfterApps, type TestApp } from '../helpers/app.ts';
import { dashboardSession } from '../helpers/dashboard.ts';
import { createLiveIssuer, estadoOf, eventually, type LiveIssuer, liveEnv } from '../helpers/live.ts';
import { factura } from '../helpers/requests.ts';

const DAY = 86_400_000;
let offset = 0;
const clock = () => new Date(Date.now() + offset);
let t: TestApp;
let sim: SiiSimulator;
let url: string;
let live: LiveIssuer;

beforeAll(async () => {
  sim = createSiiSimulator({ stepDelayMs: 20, clock });
  closeAfterApps(() => sim.close());
  ({ url } = await sim.listen(0));
  t = await buildTestApp({ clock, env: liveEnv(sim, url, { REGISTRY_POLL_MS: '200' }) });
  live = await createLiveIssuer(t, sim, [33]);
});

/** A factura issued and accepted by the SII; its folio. */
async function issued(): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${live.rut}/emitir`,
    headers: live.auth,
    payload: factura(),
  });
  expect(res.statusCode).toBe(200);
  const folio = res.json().folio as number;
  await eventually(async () => (await estadoOf(t, live.rut, 33, folio)) === 'aceptado');
  return folio;
}

/** The customer (RECEIVER's representative) acts at the registry. */
async function customer(folio: number, accion: AccionDoc) {
  const { p12, password } = generateTestCertificate({ holderRut: '8414240-9', name: 'Cliente de Prueba' });
  const sii = createSiiClient({
    config: { ...liveEnv(sim, url), SII_TIMEOUT_MS: 3000 } as never,
    clock,
  });
  const answer = await ingresarAceptacionReclamoDoc(
    { sii, cert: parsePkcs12(p12, password) },
    { rutEmisor: live.rut, tipoDoc: 33, folio },
    accion,
  );
  expect(answer.codResp).toBe(0);
}

async function eventTypes(folio: number): Promise<string[]> {
  const doc = await t.db.prisma.document.findFirstOrThrow({ where: { issuerId: live.issuer.id, type: 33, folio } });
  const events = await t.db.prisma.event.findMany({ where: { documentId: doc.id }, orderBy: { createdAt: 'asc' } });
  return events.map((e) => e.type);
}

async function listed(folio: number) {
  const res = await t.app.inject({ method: 'GET', url: `/api/${live.rut}/emisiones?q=${folio}`, headers: live.auth });
  return (res.json().data as { folio: number; receiver_action: Record<string, unknown> | null }[]).find(
    (d) => d.folio === folio,
  )!;
}

describe('what the customer did with an issued factura', () => {
  it('a claim (RFT) → document.claimed with the claim; emisiones and emision_estado_dte say to issue a credit note', async () => {
    const folio = await issued();
    await customer(folio, 'RFT');
    await eventually(async () => (await eventTypes(folio)).includes('document.claimed'));
    const claimed = await t.db.prisma.event.findFirstOrThrow({
      where: { type: 'document.claimed', data: { path: ['folio'], equals: folio } },
    });
    expect(claimed.data).toMatchObject({ folio, action: { code: 'RFT' }, receiver_action: { outcome: 'reclamado' } });
    const entry = await listed(folio);
    expect(entry.receiver_action).toMatchObject({ outcome: 'reclamado', claim: { code: 'RFT' } });
    expect(entry.receiver_action!.message).toMatch(/credit note/);
    const status = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emision_estado_dte`,
      headers: live.auth,
      payload: { type: 33, folio },
    });
    expect(status.json().receiver_action).toMatchObject({ outcome: 'reclamado', events: [{ accion: 'RFT' }] });
    const { cookie } = await dashboardSession(t, live.issuer);
    const page = await t.app.inject({
      method: 'GET',
      url: `/dashboard/${live.rut}/documentos/33/${folio}`,
      headers: { cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Tu cliente en el SII');
    expect(page.body).toContain('El cliente reclamó esta factura en el SII (RFT');
    expect(page.body).toContain('Emite una nota de crédito');
    // Polled again, it is not announced twice.
    await new Promise((r) => setTimeout(r, 800));
    expect((await eventTypes(folio)).filter((e) => e === 'document.claimed')).toHaveLength(1);
  });

  it('ERM then ACD → document.receipt_acknowledged and document.accepted_by_receiver; outcome aceptado', async () => {
    const folio = await issued();
    await customer(folio, 'ERM');
    await eventually(async () => (await eventTypes(folio)).includes('document.receipt_acknowledged'));
    expect((await listed(folio)).receiver_action).toMatchObject({ outcome: 'acuse_recibo', claim: null });
    await customer(folio, 'ACD');
    await eventually(async () => (await eventTypes(folio)).includes('document.accepted_by_receiver'));
    expect((await listed(folio)).receiver_action).toMatchObject({ outcome: 'aceptado', message: null });
  });

  it('nothing for 8 days → document.tacitly_accepted after the deadline, and the watch ends', async () => {
    const folio = await issued();
    await eventually(async () => (await listed(folio)).receiver_action?.outcome === 'pendiente');
    expect(await eventTypes(folio)).not.toContain('document.tacitly_accepted');
    offset += 8 * DAY + 2 * 60_000;
    await eventually(async () => (await eventTypes(folio)).includes('document.tacitly_accepted'));
    expect(await eventTypes(folio)).toEqual(['document.issued', 'document.accepted', 'document.tacitly_accepted']);
    const doc = await t.db.prisma.document.findFirstOrThrow({ where: { issuerId: live.issuer.id, type: 33, folio } });
    const watch = await t.db.prisma.registryWatch.findUniqueOrThrow({ where: { documentId: doc.id } });
    expect(watch).toMatchObject({ outcome: 'aceptado_tacitamente', nextCheckAt: null });
  });
});
