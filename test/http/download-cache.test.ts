/**
 * Downloads served from memory (src/file-cache.ts, README "Hostile input and abuse"): a repeat download reads
 * no database and gives the very bytes stored; the memory never serves what the database path
 * would refuse — a wrong token, another issuer's key, a deactivated issuer (on this instance
 * or, through the change feed, on another one) — nor a file other than the one stored, after
 * voiding or any other state change.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { deactivateIssuer } from '../../src/admin/issuers.ts';
import { FileCache } from '../../src/file-cache.ts';
import { buildTestApp, createTestTenant, TEST_MASTER_KEY, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';

const run = promisify(execFile);

let a: TestApp;
let b: TestApp;
/** The same database with FILE_CACHE_MB=0: always what the database path serves. */
let plain: TestApp;

beforeAll(async () => {
  a = await buildTestApp({ env: { FILE_CACHE_MB: '1' } });
  b = await buildTestApp({ shareDatabaseOf: a, env: { FILE_CACHE_MB: '1' } });
  plain = await buildTestApp({ shareDatabaseOf: a, env: { FILE_CACHE_MB: '0' } });
});

interface Issued {
  type: number;
  folio: number;
  date: string;
  total: number;
  pdf: string;
  xml: string;
  tk: string;
}

async function issue(api: KeyClient, rut: string, body: Record<string, unknown> = factura()): Promise<Issued> {
  const res = await api.post(`/api/${rut}/emitir`, body);
  expect(res.statusCode, res.body).toBe(200);
  const j = res.json();
  const path = (url: string) => url.replace('http://timbre.test', '');
  return {
    type: j.type,
    folio: j.folio,
    date: j.date,
    total: j.totals.total,
    pdf: path(j.pdf_url),
    xml: path(j.xml_url),
    tk: new URL(j.pdf_url).searchParams.get('tk')!,
  };
}

const get = (t: TestApp, url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers });

/** The stored bytes: the PDF as kept in document_files, the XML as signed. */
async function stored(t: TestApp, rut: string, d: Issued) {
  const doc = await t.db.prisma.document.findFirstOrThrow({
    where: { issuer: { rut }, type: d.type, folio: d.folio },
    select: {
      id: true,
      issuerId: true,
      signedXml: true,
      files: { where: { format: 'letter' }, select: { body: true } },
    },
  });
  return { id: doc.id, xml: await signedXmlOf(t.ctx, doc), pdf: doc.files[0] ? Buffer.from(doc.files[0].body) : null };
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a repeat download', () => {
  it('is served from memory: the stored bytes, with no database read', async () => {
    const { rut, api } = await createTestTenant(a);
    const d = await issue(api, rut);
    const first = await get(a, d.pdf);
    expect(first.statusCode).toBe(200);
    const xml = await get(a, d.xml);
    expect(xml.statusCode).toBe(200);
    const saved = await stored(a, rut, d);
    expect(first.rawPayload.equals(saved.pdf!)).toBe(true);
    expect(xml.rawPayload.equals(saved.xml)).toBe(true);

    // Overwrite the stored PDF behind the service's back: the instance that served the file
    // still answers the original bytes (it did not read the database), one that keeps no
    // files answers what the database holds now.
    await a.db.prisma.documentFile.update({
      where: { documentId_format: { documentId: saved.id, format: 'letter' } },
      data: { body: new Uint8Array(Buffer.from('%PDF-1.3 overwritten')) },
    });
    try {
      const again = await get(a, d.pdf);
      expect(again.statusCode).toBe(200);
      expect(again.headers['content-type']).toBe('application/pdf');
      expect(again.headers['content-disposition']).toBe(`inline; filename="DTE_${rut}_T33_F${d.folio}.pdf"`);
      expect(again.rawPayload.equals(saved.pdf!)).toBe(true);
      // Also wrapped in JSON, and opened with a key instead of the token.
      const b64 = await get(a, `${d.pdf}&base64=1`);
      expect(Buffer.from(b64.json().base64, 'base64').equals(saved.pdf!)).toBe(true);
      const keyed = await api.get(`/api/${rut}/pdf/33/${d.folio}`);
      expect(keyed.rawPayload.equals(saved.pdf!)).toBe(true);
      expect((await get(plain, d.pdf)).rawPayload.toString()).toBe('%PDF-1.3 overwritten');
    } finally {
      await a.db.prisma.documentFile.update({
        where: { documentId_format: { documentId: saved.id, format: 'letter' } },
        data: { body: new Uint8Array(saved.pdf!) },
      });
    }
  });

  it('keeps each format apart, and an entry first filled by a keyed download opens only with the token', async () => {
    const { rut, api } = await createTestTenant(a);
    const d = await issue(api, rut);
    // Filled by the key: the entry still knows the document's token.
    const keyed = await api.get(`/api/${rut}/pdf/33/${d.folio}?format=80mm`);
    expect(keyed.statusCode).toBe(200);
    const roll = await get(a, `${d.pdf}&format=80mm`);
    expect(roll.rawPayload.equals(keyed.rawPayload)).toBe(true);
    const letter = await get(a, d.pdf);
    expect(letter.rawPayload.equals(roll.rawPayload)).toBe(false);
    expect(roll.headers['content-disposition']).toMatch(/_80mm\.pdf"$/);

    const wrong = await get(a, `/api/${rut}/pdf/33/${d.folio}?tk=${d.tk.slice(0, -1)}x&format=80mm`);
    const wrongUncached = await get(plain, `/api/${rut}/pdf/33/${d.folio}?tk=${d.tk.slice(0, -1)}x&format=80mm`);
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().code).toBe('DOCUMENT_NOT_FOUND');
    // The same answer as the database path gives: memory reveals nothing more.
    expect(wrong.json().error).toBe(wrongUncached.json().error);
    expect((await get(a, `/api/${rut}/pdf/33/${d.folio}?format=80mm`)).statusCode).toBe(401);
  });

  it('is refused to another issuer’s key even when the file is in memory', async () => {
    const { rut, api } = await createTestTenant(a);
    const other = await createTestTenant(a, { role: 'viewer' });
    const d = await issue(api, rut);
    expect((await get(a, d.pdf)).statusCode).toBe(200);
    expect((await get(a, d.xml)).statusCode).toBe(200);
    for (const url of [`/api/${rut}/pdf/33/${d.folio}`, `/api/${rut}/xml/33/${d.folio}`]) {
      const res = await other.api.get(url);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN_ISSUER');
      // Its own issuer's path with the same folio: that issuer's document, not the cached one.
      const own = await other.api.get(url.replace(rut, other.rut));
      expect(own.statusCode).toBe(404);
    }
  });

  it('stays within FILE_CACHE_MB', async () => {
    const { rut, api } = await createTestTenant(a);
    // A 1000-line boleta's files weigh about 70 KiB (PDF) and 400 KiB (XML): three documents
    // give more than the 1 MiB this instance keeps.
    const lines = Array.from({ length: 1000 }, (_, i) => ({ name: `Artículo Nº ${i + 1}`, qty: 1, price: 990 + i }));
    for (let i = 0; i < 3; i++) {
      const d = await issue(api, rut, { type: 39, items: lines });
      expect((await get(a, d.pdf)).statusCode).toBe(200);
      expect((await get(a, d.xml)).statusCode).toBe(200);
      expect(a.ctx.caches.files.bytes).toBeLessThanOrEqual(1024 * 1024);
    }
    expect(a.ctx.caches.files.bytes).toBeGreaterThan(0);
  });
});

describe('what memory must not serve', () => {
  it('voiding changes the state, not the file: memory serves what the database holds', async () => {
    const { rut, api } = await createTestTenant(a);
    const d = await issue(api, rut);
    const before = { pdf: (await get(a, d.pdf)).rawPayload, xml: (await get(a, d.xml)).rawPayload };
    await issue(api, rut, {
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      items: factura().items,
      refs: [{ type: 33, folio: d.folio, date: d.date, code: 1, reason: 'Anula factura' }],
    });
    const list = await api.get(`/api/${rut}/emisiones?tipo_dte=33`);
    expect(list.json().data.find((x: { folio: number }) => x.folio === d.folio).estado_sii).toBe('anulado');
    for (const url of [d.pdf, d.xml]) {
      const fromMemory = await get(a, url);
      const fromDatabase = await get(plain, url);
      expect(fromDatabase.statusCode).toBe(200);
      expect(fromMemory.rawPayload.equals(fromDatabase.rawPayload)).toBe(true);
    }
    expect((await get(a, d.pdf)).rawPayload.equals(before.pdf)).toBe(true);
    expect((await get(a, d.xml)).rawPayload.equals(before.xml)).toBe(true);
  });

  it('an issuer deactivated on this instance: the next download is 404 at once, with or without a key', async () => {
    const { rut, api } = await createTestTenant(a);
    const d = await issue(api, rut);
    expect((await get(a, d.pdf)).statusCode).toBe(200);
    expect((await get(a, d.xml)).statusCode).toBe(200);
    await deactivateIssuer(a.ctx, rut);
    for (const url of [d.pdf, d.xml]) {
      const res = await get(a, url);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('DOCUMENT_NOT_FOUND');
    }
    const keyed = await api.get(`/api/${rut}/pdf/33/${d.folio}`);
    expect(keyed.statusCode).toBe(404);
    expect(keyed.json().code).toBe('ISSUER_NOT_FOUND');
  });

  it('an issuer deactivated with the CLI: the next download is 404 at once on both instances', async () => {
    const { rut, api, issuer } = await createTestTenant(a);
    const d = await issue(api, rut);
    for (const t of [a, b]) {
      expect((await get(t, d.pdf)).statusCode).toBe(200);
      expect((await get(t, d.xml)).statusCode).toBe(200);
    }
    const kept = (t: TestApp) => t.ctx.caches.file(FileCache.key(rut, 33, d.folio, 'pdf:letter'));
    expect(kept(a)?.issuerId).toBe(issuer.id);
    expect(kept(b)?.issuerId).toBe(issuer.id);

    // The operator CLI as its own process, as an operator runs it while the service is up.
    await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'issuer', 'deactivate', '--rut', rut, '--json'], {
      env: {
        ...process.env,
        DATABASE_URL: a.db.url,
        TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
        TIMBRE_DATA_DIR: mkdtempSync(join(tmpdir(), 'timbre-cli-')),
        LOG_LEVEL: 'silent',
      },
    });
    const answers = await Promise.all([a, b].flatMap((t) => [get(t, d.pdf), get(t, d.xml)]));
    expect(answers.map((r) => r.statusCode)).toEqual([404, 404, 404, 404]);
    expect(kept(a)).toBeUndefined();
    expect(kept(b)).toBeUndefined();
  });

  it('an issuer deactivated by another instance: this one drops its files when the notice arrives', async () => {
    const { rut, api } = await createTestTenant(a);
    const d = await issue(api, rut);
    expect((await get(b, d.pdf)).statusCode).toBe(200);
    const key = FileCache.key(rut, 33, d.folio, 'pdf:letter');
    expect(b.ctx.caches.file(key)).toBeDefined();
    await deactivateIssuer(a.ctx, rut);
    // B hears of it only through the change feed, a moment after A's commit (same test
    // process: wait for the notice rather than race it).
    await until('B dropped the file', () => b.ctx.caches.file(key) === undefined);
    expect((await get(b, d.pdf)).statusCode).toBe(404);
  });
});
