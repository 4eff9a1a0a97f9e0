/**
 * README promises that had no test and are cheap to check (test/README-PROMISES.md lists every
 * promise and where it is tested): which answers carry the RateLimit-* headers, https for live
 * webhook endpoints, the counter check the README gives operators, and how logs look in a
 * terminal.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { expect, it, onTestFinished } from 'vitest';
import { importCertificate } from '../../src/admin/certificates.ts';
import { createUser, signIn } from '../../src/admin/users.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { scanTimeEvents } from '../../src/issuing/time-events.ts';
import { createLogger } from '../../src/logger.ts';
import { updateIssuer } from '../../src/admin/issuers.ts';
import { SIGN_IN_LIMITS } from '../../src/admin/sign-in-limit.ts';
import { buildTestApp, createTestTenant } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { manualClock, waitFor } from '../helpers/time.ts';

it('RateLimit-* headers: on keyed answers and tk downloads; not on the 401 and 403 of the key check', async () => {
  const t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '50' } });
  const a = await createTestTenant(t);
  const b = await createTestTenant(t);
  const issued = await a.api.post(`/api/${a.rut}/emitir`, factura());
  expect(issued.statusCode).toBe(200);
  const has = (res: { headers: Record<string, unknown> }) =>
    ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].filter((h) => h in res.headers);
  const all = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

  expect(has(issued)).toEqual(all);
  const list = await a.api.get(`/api/${a.rut}/emisiones`);
  expect(has(list)).toEqual(all);
  // A download opened with its tk (no key) is counted per client address, and says so.
  const pdf = await t.app.inject({
    method: 'GET',
    url: new URL(issued.json().pdf_url).pathname + new URL(issued.json().pdf_url).search,
  });
  expect(pdf.statusCode).toBe(200);
  expect(has(pdf)).toEqual(all);

  const missing = await t.app.inject({ method: 'GET', url: `/api/${a.rut}/emisiones` });
  expect(missing.statusCode).toBe(401);
  expect(has(missing)).toEqual([]);
  const unknown = await t.app.inject({
    method: 'GET',
    url: `/api/${a.rut}/emisiones`,
    headers: { authorization: `Bearer timbre_${'x'.repeat(40)}` },
  });
  expect(unknown.statusCode).toBe(401);
  expect(has(unknown)).toEqual([]);
  const otherIssuer = await b.api.get(`/api/${a.rut}/emisiones`);
  expect(otherIssuer.statusCode).toBe(403);
  expect(has(otherIssuer)).toEqual([]);
});

it('a live issuer needs an https webhook endpoint; a sandbox issuer may use http', async () => {
  const t = await buildTestApp({ env: { TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'false' } });
  const live = await createTestTenant(t, { issuer: { ambiente: 1 } });
  const sandbox = await createTestTenant(t);
  // A public address written as an IP: nothing to resolve, nothing is connected to on save.
  const refused = await live.api.post(`/api/${live.rut}/webhooks`, { url: 'http://1.1.1.1/timbre' });
  expect(refused.statusCode).toBe(422);
  expect(refused.json()).toMatchObject({ ok: false, code: 'WEBHOOK_URL_BLOCKED' });
  expect(refused.json().error).toMatch(/https/);
  expect((await live.api.post(`/api/${live.rut}/webhooks`, { url: 'https://1.1.1.1/timbre' })).statusCode).toBe(200);
  expect((await sandbox.api.post(`/api/${sandbox.rut}/webhooks`, { url: 'http://1.1.1.1/timbre' })).statusCode).toBe(
    200,
  );
});

it("the README's counter check returns no rows after issuing, voiding and an operator's SQL", async () => {
  const sql = /```sql\n([\s\S]*?)```/.exec(readFileSync('README.md', 'utf8'))?.[1];
  expect(sql).toMatch(/document_counts/);
  const t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  const { rut, api } = await createTestTenant(t);
  const first = await api.post(`/api/${rut}/emitir`, factura());
  expect(first.statusCode).toBe(200);
  for (const type of [33, 33, 34]) {
    const body =
      type === 34 ? { ...factura(), type: 34, items: [{ name: 'Asesoría', qty: 1, price: 1000 }] } : factura();
    expect((await api.post(`/api/${rut}/emitir`, body)).statusCode).toBe(200);
  }
  const { folio, date, totals } = first.json();
  const voiding = await api.post(`/api/${rut}/emitir`, {
    type: 61,
    receiver: factura().receiver,
    items: factura().items,
    refs: [{ type: 33, folio, date, reason: 'Anula factura' }],
  });
  expect(voiding.statusCode, voiding.body).toBe(200);
  expect(voiding.json().totals.total).toBe(totals.total);
  await t.db.prisma.$executeRawUnsafe(
    'UPDATE documents SET date = date - 40 WHERE folio = 2 AND type = 33 AND issuer_id = (SELECT id FROM issuers WHERE rut = $1)',
    rut,
  );
  expect(await runCheck(sql as string)).toEqual([]);
  // And it does find a difference when one exists.
  await t.db.prisma.$executeRawUnsafe(
    "UPDATE document_counts SET count = count + 1 WHERE grain = 'month' AND issuer_id = (SELECT id FROM issuers WHERE rut = $1) AND type = 34",
    rut,
  );
  expect(await runCheck(sql as string)).toHaveLength(1);

  /** The README's statements one by one (a fold, then the comparison); the last one's rows. */
  async function runCheck(text: string): Promise<unknown[]> {
    let rows: unknown[] = [];
    for (const statement of text
      .split(/;\s*\n/)
      .map((x) => x.trim().replace(/;$/, ''))
      .filter(Boolean)) {
      rows = await t.db.prisma.$queryRawUnsafe(statement);
    }
    return rows;
  }
});

it('in a terminal, logs are one pretty line each, secrets still redacted', () => {
  let out = '';
  const terminal = Object.assign(
    new Writable({
      write(chunk, _enc, cb) {
        out += String(chunk);
        cb();
      },
    }),
    { isTTY: true },
  ) as unknown as NodeJS.WriteStream;
  const log = createLogger('info', terminal);
  log.info({ headers: { authorization: 'Bearer timbre_secret' }, password: 'hunter22' }, 'incoming request');
  log.flush();
  const lines = out.trimEnd().split('\n');
  expect(lines[0]).toMatch(/INFO.*incoming request/);
  expect(() => JSON.parse(lines[0] as string)).toThrow();
  expect(out).not.toMatch(/timbre_secret|hunter22/);
});

it('a reference must name a document of the same environment: a sandbox folio does not exist for live', async () => {
  const t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  const { rut, api } = await createTestTenant(t);
  const issued = await api.post(`/api/${rut}/emitir`, factura());
  expect(issued.statusCode).toBe(200);
  const { folio, date } = issued.json();
  // Preview runs the same reference check as emitir, before anything live-only (certificate, CAF).
  const note = { type: 56, receiver: factura().receiver, items: [{ name: 'Intereses', qty: 1, price: 500 }] };
  const preview = () => api.post(`/api/${rut}/preview`, { ...note, refs: [{ type: 33, folio, date }] });
  expect((await preview()).statusCode).toBe(200);
  await updateIssuer(t.ctx, rut, { ambiente: 1 });
  const live = await preview();
  expect(live.statusCode).toBe(400);
  expect(live.json().code).toBe('REFERENCE_NOT_FOUND');
});

it('30 failed sign-ins from one address lock that address out, for every e-mail and on every instance', async () => {
  const clock = manualClock('2026-11-23T12:00:00Z');
  const a = await buildTestApp({ clock });
  const b = await buildTestApp({ clock, shareDatabaseOf: a });
  const { issuer } = await createTestTenant(a);
  const password = 'una clave larga y buena';
  await createUser(a.ctx, { rut: issuer.rut, email: 'dueno@ejemplo.cl', role: 'owner', password });
  const attacker = '198.51.100.7';
  // Each failure names another e-mail, so the per-e-mail limit (10) never applies.
  for (let i = 0; i < SIGN_IN_LIMITS.ip; i++) {
    const failed = await signIn(i % 2 ? a.ctx : b.ctx, {
      email: `nadie${i}@ejemplo.cl`,
      password: 'adivinando',
      address: attacker,
    }).catch((e: { code: string }) => e);
    expect(failed).toMatchObject({ code: 'SIGN_IN_FAILED' });
  }
  for (const t of [a, b]) {
    await expect(signIn(t.ctx, { email: 'dueno@ejemplo.cl', password, address: attacker })).rejects.toMatchObject({
      code: 'SIGN_IN_RATE_LIMITED',
    });
  }
  // Another address is not affected; the locked one is free again once the 15 minutes pass.
  expect((await signIn(a.ctx, { email: 'dueno@ejemplo.cl', password, address: '198.51.100.8' })).token).toBeTruthy();
  clock.advance(15 * 60_000 + 1);
  expect((await signIn(b.ctx, { email: 'dueno@ejemplo.cl', password, address: attacker })).token).toBeTruthy();
});

it('caf.expiring fires at 30, then 7 days; a subject first seen past several thresholds gets only the nearest', async () => {
  const t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  const scanAt = (at: string) => scanTimeEvents({ ...t.ctx, clock: () => new Date(at) });
  const events = async (issuerId: string, prefix: string) =>
    (
      await t.db.prisma.event.findMany({
        where: { issuerId, type: { startsWith: prefix } },
        orderBy: { createdAt: 'asc' },
      })
    ).map((e) => `${e.type}:${(e.data as { threshold_days?: number }).threshold_days ?? ''}`);

  // A range of 33 with folios left that expires on 1 March 2027 (as a live CAF of type 33 does
  // 180 days after its authorisation; sandbox ranges carry no expiry, so it is written here).
  const expiring = (issuerId: string) =>
    t.db.prisma.caf.updateMany({ where: { issuerId }, data: { expiresAt: new Date('2027-03-01T00:00:00Z') } });
  const early = await createTestTenant(t);
  const late = await createTestTenant(t);
  for (const tenant of [early, late]) {
    expect((await tenant.api.post(`/api/${tenant.rut}/emitir`, factura())).statusCode).toBe(200);
  }
  await expiring(early.issuer.id);
  for (const at of ['2027-01-20T15:00:00Z', '2027-01-31T15:00:00Z', '2027-02-10T15:00:00Z']) await scanAt(at);
  expect(await events(early.issuer.id, 'caf.')).toEqual(['caf.expiring:30']);
  // The other issuer's range is first seen 5 days before it expires: only the 7-day notice.
  await expiring(late.issuer.id);
  for (const at of ['2027-02-24T15:00:00Z', '2027-02-25T15:00:00Z']) await scanAt(at);
  expect(await events(early.issuer.id, 'caf.')).toEqual(['caf.expiring:30', 'caf.expiring:7']);
  expect(await events(late.issuer.id, 'caf.')).toEqual(['caf.expiring:7']);

  // A certificate first seen 5 days before it expires: certificate.expiring 7, not 30, then 1.
  const { p12, password } = generateTestCertificate({ holderRut: '13185095-6', name: 'FIRMA', validDays: 60 });
  const cert = await importCertificate(t.ctx, { rut: early.rut, p12, password });
  const day = 24 * 3600 * 1000;
  for (const daysBefore of [5, 4, 0.5]) {
    await scanTimeEvents({ ...t.ctx, clock: () => new Date(cert.notAfter.getTime() - daysBefore * day) });
  }
  expect(await events(early.issuer.id, 'certificate.')).toEqual(['certificate.expiring:7', 'certificate.expiring:1']);
});

it('without PUBLIC_BASE_URL the OpenAPI servers entry is the relative /', async () => {
  const t = await buildTestApp({ env: { PUBLIC_BASE_URL: undefined as unknown as string } });
  expect(t.config.PUBLIC_BASE_URL).toBeUndefined();
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(['/']);
});

/** An SMTP server that refuses every recipient with `code`, counting the attempts. */
async function refusingSmtp(code: number) {
  let attempts = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      attempts++;
      callback(Object.assign(new Error(code >= 500 ? 'no such mailbox' : 'try again later'), { responseCode: code }));
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, attempts: () => attempts };
}

it.each([
  ['a permanent refusal (5xx) is given up at once', 550, 1],
  ['a temporary failure is retried up to EMAIL_MAX_ATTEMPTS, then given up', 451, 3],
])('e-mail: %s, with email.failed', async (_name, code, expected) => {
  const smtp = await refusingSmtp(code);
  const t = await buildTestApp({
    env: {
      JOBS_ENABLED: 'true',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'facturas@timbre.test',
      EMAIL_RETRY_BASE_MS: '50',
      EMAIL_MAX_ATTEMPTS: '3',
      WEBHOOK_POLL_MS: '50',
    },
  });
  const { issuer, rut, api } = await createTestTenant(t);
  const issued = await api.post(`/api/${rut}/emitir`, factura());
  expect(issued.statusCode).toBe(200);
  const row = await waitFor(
    async () => {
      const m = await t.db.prisma.emailMessage.findFirst({ where: { issuerId: issuer.id } });
      return m?.state === 'failed' ? m : null;
    },
    { timeoutMs: 30_000, what: 'the e-mail given up' },
  );
  expect(row.attempts).toBe(expected);
  expect(row.lastError).toContain(`SMTP ${code}`);
  expect(smtp.attempts()).toBe(expected);
  const failed = (await api.get(`/api/${rut}/events?type=email.failed`)).json().data;
  expect(failed).toHaveLength(1);
  expect(failed[0].data).toMatchObject({ folio: issued.json().folio, attempts: expected });
  const entry = (await api.get(`/api/${rut}/emisiones`)).json().data[0];
  expect(entry.email.status).toBe('failed');
});

it('without SMTP_URL the service says once, at start, that documents are not e-mailed', async () => {
  const t = await buildTestApp({ env: { JOBS_ENABLED: 'true', WEBHOOK_POLL_MS: '50' } });
  const said = () => t.logs.filter((l) => l.includes('SMTP_URL is not set')).length;
  await waitFor(() => said() > 0, { what: 'the notice' });
  const { rut, api } = await createTestTenant(t);
  expect((await api.post(`/api/${rut}/emitir`, factura())).statusCode).toBe(200);
  const entry = (await api.get(`/api/${rut}/emisiones`)).json().data[0];
  expect(entry.email.status).toBe('disabled');
  expect(said()).toBe(1);
});

it('preview warns what would still stop a live issue: no SII resolution, no live folios for the type', async () => {
  const t = await buildTestApp();
  const { issuer, rut, api } = await createTestTenant(t, { issuer: { ambiente: 1 } });
  const preview = () => api.post(`/api/${rut}/preview`, factura());
  const configured = await preview();
  expect(configured.statusCode).toBe(200);
  expect(configured.json()).toMatchObject({ env: 'live' });
  expect(configured.json().warnings).toEqual([expect.stringMatching(/no live folios for type 33/)]);
  await updateIssuer(t.ctx, rut, { resolutionDate: null, resolutionNumber: null });
  const warnings = (await preview()).json().warnings as string[];
  expect(warnings).toHaveLength(2);
  expect(warnings[0]).toMatch(/no SII resolution/);
  // Nothing was reserved or stored by either preview.
  expect(await t.db.prisma.folioReservation.count()).toBe(0);
  expect(await t.db.prisma.document.count({ where: { issuerId: issuer.id } })).toBe(0);
});

async function trustProxyCase(value: string) {
  const call = (t: Awaited<ReturnType<typeof buildTestApp>>, rut: string, client: string) =>
    t.app.inject({
      method: 'GET',
      url: `/api/${rut}/emisiones`,
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': client },
    });
  const proxied = await buildTestApp({ env: { AUTH_FAILURES_PER_MINUTE: '2', TRUST_PROXY: value } });
  const { rut } = await createTestTenant(proxied);
  expect([
    (await call(proxied, rut, '203.0.113.1')).statusCode,
    (await call(proxied, rut, '203.0.113.1')).statusCode,
  ]).toEqual([401, 401]);
  expect((await call(proxied, rut, '203.0.113.1')).statusCode).toBe(429);
  expect((await call(proxied, rut, '203.0.113.2')).statusCode).toBe(401);
  // Without TRUST_PROXY the header is ignored: every client is the balancer's address.
  const direct = await buildTestApp({ env: { AUTH_FAILURES_PER_MINUTE: '2' }, shareDatabaseOf: proxied });
  await call(direct, rut, '203.0.113.1');
  await call(direct, rut, '203.0.113.1');
  expect((await call(direct, rut, '203.0.113.2')).statusCode).toBe(429);
}

it.each([
  ['a CIDR', '127.0.0.0/8'],
  ['true', 'true'],
  // Fastify 5 reads a bare number as "trust nobody"; src/app.ts hands it a function instead.
  ['a hop count', '1'],
])('TRUST_PROXY as %s takes the client address from X-Forwarded-For; the default does not', async (_n, value) => {
  await trustProxyCase(value);
});
