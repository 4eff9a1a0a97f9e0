/**
 * Operator changes take effect at once on every running instance (README "Operator CLI"): two service
 * instances share one database, and the operator CLI runs as a separate process (the real
 * entry point, `node --import tsx src/cli.ts`), as an operator would run it while the service
 * is up. A certificate import is used by the very next issue on both instances; a revoked key
 * is refused by the next request on both. The change feed that carries this
 * (LISTEN/NOTIFY) survives losing its connection.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.ts';
import { importCertificate as importCertificateUseCase } from '../../src/admin/certificates.ts';
import { generateTestCertificate, parsePkcs12 } from '../../src/dte/certificate.ts';
import { buildTestApp, createTestIssuer, createTestKey, TEST_MASTER_KEY, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';

const run = promisify(execFile);

let a: TestApp;
let b: TestApp;
let rut: string;
let issuerId: string;
let auth: { authorization: string };
const dir = mkdtempSync(join(tmpdir(), 'timbre-changes-'));

beforeAll(async () => {
  a = await buildTestApp();
  b = await buildTestApp({ shareDatabaseOf: a });
  const issuer = await createTestIssuer(a.ctx);
  rut = issuer.rut;
  issuerId = issuer.id;
  auth = { authorization: `Bearer ${await createTestKey(a.ctx, rut)}` };
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** The operator CLI as its own process, against the instances' database. */
async function cli(...argv: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...argv], {
    env: {
      ...process.env,
      DATABASE_URL: a.db.url,
      TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
      TIMBRE_DATA_DIR: dir,
      LOG_LEVEL: 'silent',
    },
  });
  return stdout;
}

/** The issuer an operation acts on (the shared one unless a test brings its own). */
interface Who {
  rut: string;
  issuerId: string;
  auth: { authorization: string };
}

let certCount = 0;
/**
 * Imports a new certificate, through the CLI process (default) or through instance B's own use
 * case (then A hears of it only by the change feed); returns its DER (base64), as it appears in
 * signatures.
 */
async function importCertificate(
  validDays: number,
  via: 'cli' | TestApp = 'cli',
  who: Who = { rut, issuerId, auth },
): Promise<string> {
  certCount += 1;
  const password = `pw-${certCount}`;
  const { p12 } = generateTestCertificate({
    holderRut: '13185095-6',
    name: `OPERADOR ${certCount}`,
    validDays,
    password,
  });
  if (via === 'cli') {
    const file = join(dir, `c${certCount}.p12`);
    writeFileSync(file, p12);
    await cli('cert', 'import', '--rut', who.rut, '--file', file, '--password', password, '--json');
  } else {
    await importCertificateUseCase(via.ctx, { rut: who.rut, p12, password });
  }
  return parsePkcs12(p12, password).certDerBase64;
}

/** Issues a factura on `t` and returns the certificate in its signature. */
async function issueAndGetSigner(t: TestApp, who: Who = { rut, issuerId, auth }): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${who.rut}/emitir`,
    headers: who.auth,
    payload: factura(),
  });
  expect(res.statusCode, res.body).toBe(200);
  const doc = await t.db.prisma.document.findFirstOrThrow({
    where: { issuerId: who.issuerId, folio: res.json().folio },
    select: { issuerId: true, signedXml: true },
  });
  const xml = (await signedXmlOf(t.ctx, doc)).toString('latin1');
  return /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(xml)![1]!.replace(/\s+/g, '');
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('operator changes made with the CLI while two instances run', () => {
  it('a certificate import is used by the next issue on both instances', async () => {
    // An issuer of its own: under a shuffled order the change-feed test may already have given
    // the shared issuer certificates valid longer than these, which rightly sign instead.
    const issuer = await createTestIssuer(a.ctx);
    const who = {
      rut: issuer.rut,
      issuerId: issuer.id,
      auth: { authorization: `Bearer ${await createTestKey(a.ctx, issuer.rut)}` },
    };
    const first = await importCertificate(365, 'cli', who);
    // Both instances now sign with the first certificate (and keep the list in memory).
    expect(await issueAndGetSigner(a, who)).toBe(first);
    expect(await issueAndGetSigner(b, who)).toBe(first);
    expect(a.ctx.caches.certificateList(who.issuerId)).toHaveLength(1);
    expect(b.ctx.caches.certificateList(who.issuerId)).toHaveLength(1);

    // A newer certificate (valid longer) is imported by another process: the next issue, at
    // once, signs with it everywhere.
    // (Issued as soon as the CLI process has exited: nothing waits for a cache to expire.)
    const second = await importCertificate(730, 'cli', who);
    const [onA, onB] = await Promise.all([issueAndGetSigner(a, who), issueAndGetSigner(b, who)]);
    expect(onA).toBe(second);
    expect(onB).toBe(second);
  });

  it('a revoked key is refused (401) by the next request on both instances', async () => {
    const { key, record } = await createApiKey(a.ctx, { rut, role: 'viewer' });
    const headers = { authorization: `Bearer ${key}` };
    const list = (t: TestApp) => t.app.inject({ method: 'GET', url: `/api/${rut}/emisiones`, headers });
    expect((await list(a)).statusCode).toBe(200);
    expect((await list(b)).statusCode).toBe(200);
    await cli('key', 'revoke', '--id', record.id, '--json');
    const [ra, rb] = await Promise.all([list(a), list(b)]);
    expect(ra.statusCode).toBe(401);
    expect(rb.statusCode).toBe(401);
    expect(ra.json().code).toBe('INVALID_API_KEY');
  });

  it('an issuer deactivated with the CLI answers 404 at once on both instances', async () => {
    const other = await createTestIssuer(a.ctx);
    const headers = { authorization: `Bearer ${await createTestKey(a.ctx, other.rut)}` };
    const list = (t: TestApp) => t.app.inject({ method: 'GET', url: `/api/${other.rut}/emisiones`, headers });
    expect((await list(b)).statusCode).toBe(200);
    await cli('issuer', 'deactivate', '--rut', other.rut, '--json');
    expect((await list(a)).statusCode).toBe(404);
    expect((await list(b)).statusCode).toBe(404);
  });
});

describe('the change feed connection', () => {
  it('reconnects after the server drops it, and a change made after that reaches both instances', async () => {
    await importCertificate(900, b); // a certificate to keep in memory, whichever tests ran before
    await issueAndGetSigner(a);
    expect(a.ctx.caches.trustworthy).toBe(true);
    const lostBefore = (t: TestApp) => t.logs.filter((l) => l.includes('operator change feed lost')).length;
    const [lostA, lostB] = [lostBefore(a), lostBefore(b)];

    // Drop every change-feed connection of this database from the server side.
    const admin = new pg.Client({ connectionString: a.db.url });
    await admin.connect();
    const killed = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'timbre-change-feed' AND datname = current_database()",
    );
    await admin.end();
    expect(killed.rowCount).toBe(2);
    await until('both instances noticed the drop', () => lostBefore(a) > lostA && lostBefore(b) > lostB);
    await until('both instances listen again', () => a.ctx.caches.trustworthy && b.ctx.caches.trustworthy);

    // Listening again: the list is kept again, and a new import made by instance B reaches A
    // (through the feed only) at once.
    await issueAndGetSigner(a);
    expect(a.ctx.caches.certificateList(issuerId)).toBeDefined();
    const third = await importCertificate(1000, b);
    // The notice reaches A's listener a moment after B's commit (same test process, so wait for
    // it rather than race it); then A's next issue uses the new certificate.
    await until('A dropped its list', () => a.ctx.caches.certificateList(issuerId) === undefined);
    expect(await issueAndGetSigner(a)).toBe(third);
    expect(await issueAndGetSigner(b)).toBe(third);
  });
});
