/**
 * Live-mode wiring for tests: Timbre's real SII client talking to the local SII simulator on
 * a random port (never a mock of our own client), with short delays so documents reach a final
 * state within a second or two.
 */
import { importCertificate } from '../../src/admin/certificates.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/index.ts';
import { bearer, buildTestApp, closeAfterApps, createTestIssuer, createTestKey, type TestApp } from './app.ts';
import { waitFor } from './time.ts';

const SENDER_RUT = '13185095-6';

/** A simulator on a random port, closed after the file's apps (see closeAfterApps). */
export async function startSimulator(stepDelayMs = 20): Promise<{ sim: SiiSimulator; url: string }> {
  const sim = createSiiSimulator({ stepDelayMs });
  closeAfterApps(() => sim.close());
  const { url } = await sim.listen(0);
  return { sim, url };
}

/** Configuration pointing every SII URL at the simulator, with fast retries and polls. */
export function liveEnv(sim: SiiSimulator, url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SII_DTEWS_URL: url,
    SII_UPLOAD_URL: url,
    SII_PORTAL_URL: url,
    SII_BOLETA_API_URL: `${url}/recursos/v1`,
    SII_BOLETA_UPLOAD_URL: `${url}/recursos/v1`,
    SII_REGISTRO_URL: `${url}/WSREGISTRORECLAMODTE/registroreclamodteservice`,
    SII_RPETC_URL: url,
    TIMBRE_EXTRA_CAF_KEYS: sim.cafPublicKeyPem,
    SII_TIMEOUT_MS: '1500',
    SII_RETRY_BASE_MS: '150',
    SII_POLL_INTERVAL_MS: '100',
    JOBS_ENABLED: 'true',
    JOBS_POLL_SECONDS: '0.5',
    JOBS_SWEEP_SECONDS: '1',
    ...extra,
  };
}

export async function startLiveApp(
  sim: SiiSimulator,
  url: string,
  opts: { env?: Record<string, string>; shareDatabaseOf?: TestApp } = {},
): Promise<TestApp> {
  return buildTestApp({
    env: liveEnv(sim, url, opts.env),
    ...(opts.shareDatabaseOf && { shareDatabaseOf: opts.shareDatabaseOf }),
  });
}

export interface LiveIssuer {
  issuer: Issuer;
  rut: string;
  key: string;
  auth: Record<string, string>;
}

/**
 * A live issuer (sii_ambiente 1) with its SII resolution, an imported certificate whose holder
 * is SENDER_RUT, known to the simulator, and CAF ranges for `types` obtained from the simulator
 * through POST /api/{rut}/folios_sii.
 */
export async function createLiveIssuer(t: TestApp, sim: SiiSimulator, types: number[]): Promise<LiveIssuer> {
  const created = await createTestIssuer(t.ctx, { ambiente: 1 });
  const { p12, password } = generateTestCertificate({ holderRut: SENDER_RUT, name: 'FIRMANTE PRUEBA' });
  await importCertificate(t.ctx, { rut: created.rut, p12, password });
  sim.registerIssuer({ rut: created.rut, resolutionDate: '2014-08-22', resolutionNumber: 80 });
  const key = await createTestKey(t.ctx, created.rut, 'owner');
  const auth = bearer(key);
  for (const type of types) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${created.rut}/folios_sii`,
      headers: auth,
      payload: { tipo_dte: type, cantidad: 20 },
    });
    if (res.statusCode !== 200) throw new Error(`folios_sii ${type}: ${res.body}`);
  }
  const issuer = await t.ctx.db.prisma.issuer.findUniqueOrThrow({ where: { rut: created.rut } });
  return { issuer, rut: created.rut, key, auth };
}

/** Polls until `check` returns a value (or fails after `ms`): `waitFor` with a timeout. */
export function eventually<T>(check: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  return waitFor(check, { timeoutMs: ms, intervalMs: 100 });
}

/** The document's estado_sii as stored. */
export async function estadoOf(t: TestApp, rut: string, type: number, folio: number): Promise<string | undefined> {
  const issuer = await t.ctx.db.prisma.issuer.findUniqueOrThrow({ where: { rut } });
  const doc = await t.ctx.db.prisma.document.findFirst({ where: { issuerId: issuer.id, type, folio } });
  return doc?.estadoSii;
}
