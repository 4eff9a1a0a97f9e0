/**
 * The signing stage in worker threads (src/dte/signing/pool.ts, `ctx.signer`): a document
 * signed in a worker is the document signed on the event loop, byte for byte, and verifies with
 * xmlsec1; key material reaches each worker once; a worker that dies fails only the document it
 * was signing, the folio goes back, and the next request is served by a new worker.
 */
import { createPrivateKey } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSigner, type KeyMaterial, type Signer } from '../../src/dte/signing/pool.ts';
import type { StageResult } from '../../src/dte/signing/stage.ts';
import {
  buildTestApp,
  closeAfterApps,
  createTestIssuer,
  createTestKey,
  type KeyClient,
  type TestApp,
} from '../helpers/app.ts';
import { cafFor, issue, TSTED, testCertificate } from '../helpers/dte-pipeline.ts';
import { factura, requestFor } from '../helpers/requests.ts';
import { xmlsecVerify } from '../helpers/verify.ts';
import type { DteType } from '../../src/dte/model.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';

const cert = testCertificate();

function material(type: DteType): KeyMaterial {
  const caf = cafFor(type);
  return { cert, caf, cafPrivateKey: createPrivateKey(caf.privateKeyPem) };
}

/** A computed document of `type` with `folio` (the pure pipeline's). */
function docOf(type: DteType, folio: number) {
  return issue(requestFor(type), { cert, folio }).doc;
}

function ok(r: StageResult): Extract<StageResult, { ok: true }> {
  if (!r.ok) throw new Error(`expected a signed document: ${r.errors.join('; ')}`);
  return r;
}

/** A signer closed after this file's tests. */
function signer(opts: Parameters<typeof createSigner>[0]): Signer {
  const s = createSigner(opts);
  closeAfterApps(() => s.close());
  return s;
}

describe('the signing pool', () => {
  it('signs in a worker exactly what the event loop signs, and xmlsec1 verifies it', async () => {
    const inWorker = signer({ workers: 1 });
    const inProcess = signer({ workers: 0 });
    for (const type of [33, 39, 52] as const) {
      const input = { doc: docOf(type, 5), timestamp: TSTED };
      const a = ok(await inWorker.sign(input, material(type)));
      const b = ok(await inProcess.sign(input, material(type)));
      expect(a.ted).toBe(b.ted);
      expect(a.bytes.equals(b.bytes)).toBe(true);
      const verified = xmlsecVerify(a.bytes);
      expect(verified.ok, verified.output).toBe(true);
    }
    expect(inWorker.stats()).toMatchObject({ workers: 1, tasks: 3 });
  });

  it('start() boots every worker before the first document, which then goes to one of them', async () => {
    const s = signer({ workers: 2 });
    await s.start();
    expect(s.stats()).toMatchObject({ workers: 2, tasks: 0 });
    const r = ok(await s.sign({ doc: docOf(33, 6), timestamp: TSTED }, material(33)));
    expect(xmlsecVerify(r.bytes).ok).toBe(true);
    expect(s.stats()).toMatchObject({ workers: 2, tasks: 1 });
    // In-process there is nothing to boot.
    await signer({ workers: 0 }).start();
  });

  it('hands a worker the next document while it signs one; a worker that dies fails only the one it was signing', async () => {
    const dispatched: Worker[] = [];
    let kill = false;
    const one = signer({
      workers: 1,
      onDispatch: (worker) => {
        dispatched.push(worker);
        if (kill) {
          kill = false;
          void worker.terminate();
        }
      },
    });
    const keys = material(33);
    const input = (folio: number) => ({ doc: docOf(33, folio), timestamp: TSTED });
    const first = [one.sign(input(7), keys), one.sign(input(8), keys)];
    // Both are with the one worker before it has answered the first: it never waits for the
    // event loop between them.
    expect(dispatched).toHaveLength(2);
    expect(dispatched[1]).toBe(dispatched[0]);
    for (const r of await Promise.all(first)) expect(xmlsecVerify(ok(r).bytes).ok).toBe(true);

    kill = true;
    const outcomes = await Promise.allSettled([one.sign(input(9), keys), one.sign(input(10), keys)]);
    // Both went to the worker that dies. However far it got before it died, it takes at most the
    // document it was signing with it: the one it held is signed by the next worker.
    expect(dispatched[3]).toBe(dispatched[2]);
    expect(outcomes.filter((o) => o.status === 'rejected').length).toBeLessThanOrEqual(1);
    expect(outcomes[1]!.status === 'fulfilled' || outcomes[0]!.status === 'fulfilled').toBe(true);
    for (const o of outcomes) if (o.status === 'fulfilled') expect(xmlsecVerify(ok(o.value).bytes).ok).toBe(true);
  });

  it('sends the keys to each worker once, not with every document', async () => {
    const s = signer({ workers: 2 });
    const keys = material(33);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => s.sign({ doc: docOf(33, i + 1), timestamp: TSTED }, keys)),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    // One certificate and one CAF, to at most two workers.
    expect(s.stats().tasks).toBe(12);
    expect(s.stats().keyTransfers).toBeLessThanOrEqual(4);
    expect(s.stats().keyTransfers).toBeGreaterThanOrEqual(2);
    const before = s.stats().keyTransfers;
    // Equal material in new objects (a cache refilled) is the same key: nothing is sent again.
    const copy = { cert: { ...keys.cert }, caf: { ...keys.caf }, cafPrivateKey: keys.cafPrivateKey };
    await Promise.all(Array.from({ length: 6 }, (_, i) => s.sign({ doc: docOf(33, i + 20), timestamp: TSTED }, copy)));
    expect(s.stats().keyTransfers).toBe(before);
    // Another CAF goes once more to the workers that use it; the certificate does not.
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => s.sign({ doc: docOf(34, i + 1), timestamp: TSTED }, material(34))),
    );
    expect(s.stats().keyTransfers - before).toBeGreaterThanOrEqual(1);
    expect(s.stats().keyTransfers - before).toBeLessThanOrEqual(2);
  });

  it('a worker keeps the most recently used keys and forgets the others, in step with the pool', async () => {
    const s = signer({ workers: 1, maxKeys: 3 });
    const types = [33, 34, 41, 46] as const;
    // Certificate + four CAFs cycle through room for three: keys are forgotten and sent again,
    // and every document is still signed with its own CAF.
    for (let round = 0; round < 2; round++) {
      for (const type of types) {
        const r = ok(await s.sign({ doc: docOf(type, round + 1), timestamp: TSTED }, material(type)));
        expect(r.ted).toContain(`<TD>${type}</TD>`);
        expect(xmlsecVerify(r.bytes).ok).toBe(true);
      }
    }
    expect(s.stats().keyTransfers).toBeGreaterThan(5);
  });

  it('returns what the last check found, as on the event loop', async () => {
    const s = signer({ workers: 1 });
    const doc = docOf(33, 9);
    // Past the request rules, a U+2028 reaches the signer (the general path reads it as a line
    // break, libxml2 does not): the digest cannot match.
    const bad = { ...doc, lines: [{ ...doc.lines[0]!, name: 'Mar\u2028tillo' }, ...doc.lines.slice(1)] };
    const r = await s.sign({ doc: bad, timestamp: TSTED }, material(33));
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.errors.join()).toMatch(/XMLDSig digest mismatch/);
    // The worker is fine afterwards.
    ok(await s.sign({ doc, timestamp: TSTED }, material(33)));
    expect(s.stats().workers).toBe(1);
  });
});

describe('issuing through the pool', () => {
  let t: TestApp;
  let client: KeyClient;
  let rut: string;

  beforeAll(async () => {
    t = await buildTestApp({ env: { SIGN_WORKERS: '2' } });
    const issuer = await createTestIssuer(t.ctx);
    rut = issuer.rut;
    client = t.as(await createTestKey(t.ctx, rut));
  });

  const emitir = () => client.post(`/api/${rut}/emitir`, factura());
  const documents = () => t.ctx.db.prisma.document.count({ where: { issuer: { rut } } });

  it('a document issued through the pool is stored as signed and verifies with xmlsec1', async () => {
    const res = await emitir();
    expect(res.statusCode, res.body).toBe(200);
    const stored = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuer: { rut }, folio: res.json().folio, type: 33 },
    });
    const verified = xmlsecVerify(await signedXmlOf(t.ctx, stored));
    expect(verified.ok, verified.output).toBe(true);
    expect(t.ctx.signer.stats().workers).toBeGreaterThanOrEqual(1);
  });

  it('a worker killed while signing fails only its request; its folio is issued next', async () => {
    const last = (await emitir()).json().folio as number;
    const before = await documents();
    // From now on the first document handed to a worker dies with it.
    const previous = t.ctx.signer;
    let victim: Worker | null = null;
    t.ctx.signer = signer({
      workers: 2,
      onDispatch: (worker) => {
        if (victim) return;
        victim = worker;
        void worker.terminate();
      },
    });
    await previous.close();
    const both = await Promise.all([emitir(), emitir()]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 500]);
    const failed = both.find((r) => r.statusCode === 500)!;
    expect(failed.json()).toMatchObject({ ok: false, code: 'INTERNAL' });
    expect(failed.body).not.toMatch(/worker/);
    const served = both.find((r) => r.statusCode === 200)!.json().folio as number;
    expect(await documents()).toBe(before + 1);
    // The killed request's folio went back: the next request takes it, and folios stay contiguous.
    const next = await emitir();
    expect(next.statusCode, next.body).toBe(200);
    expect([served, next.json().folio].sort((a, b) => a - b)).toEqual([last + 1, last + 2]);
    expect(await documents()).toBe(before + 2);
    expect(t.ctx.signer.stats().workers).toBeGreaterThanOrEqual(1);
    const stored = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuer: { rut }, folio: next.json().folio, type: 33 },
    });
    expect(xmlsecVerify(await signedXmlOf(t.ctx, stored)).ok).toBe(true);
  });
});
