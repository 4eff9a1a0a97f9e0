/**
 * The rules of notes that depend on other notes hold when the notes arrive at the same time:
 * one voiding note per document, never more credited than the document's total, one debit note
 * voiding a credit note. Requests are sent concurrently over two connection pools (as two
 * instances would), several rounds each; exactly the right ones pass, the others are refused as
 * they would be one after the other, and a refused note consumes no folio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyCaches } from '../../src/context.ts';
import { openDatabase } from '../../src/db/database.ts';
import { issueDocument } from '../../src/issuing/issue-document.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { AppError } from '../../src/errors.ts';
import type { AppContext } from '../../src/context.ts';
import { bearer, buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';
import { runSubmission } from '../../src/issuing/submissions.ts';
import { createLiveIssuer, estadoOf, eventually, liveEnv, startLiveApp, startSimulator } from '../helpers/live.ts';
import { waitFor } from '../helpers/time.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';

const ROUNDS = 3;

let t: TestApp;
let ctx2: AppContext;
let closeSecond: () => Promise<void>;
let issuer: Issuer;

beforeAll(async () => {
  t = await buildTestApp();
  const second = await openDatabase(t.config, { url: t.db.url, migrate: false, poolMax: 10 });
  ctx2 = { ...t.ctx, db: second, caches: createKeyCaches() };
  closeSecond = () => second.close();
  issuer = await createTestIssuer(t.ctx);
});

afterAll(async () => {
  await closeSecond();
});

interface Issued {
  type: number;
  folio: number;
  date: string;
  total: number;
}

async function issue(body: Record<string, unknown>, ctx: AppContext = t.ctx): Promise<Issued> {
  const { document } = await issueDocument(ctx, issuer, issueRequestSchema.parse(body));
  return {
    type: document.type,
    folio: document.folio,
    date: document.date.toISOString().slice(0, 10),
    total: Number(document.total),
  };
}

/** Sends every body at once, alternating the two pools; each result is the document or the error. */
async function concurrently(bodies: Record<string, unknown>[]): Promise<(Issued | AppError)[]> {
  return Promise.all(
    bodies.map((b, i) =>
      issue(b, i % 2 === 0 ? t.ctx : ctx2).catch((err: unknown) => {
        if (err instanceof AppError) return err;
        throw err;
      }),
    ),
  );
}

const issued = (rs: (Issued | AppError)[]) => rs.filter((r): r is Issued => !(r instanceof AppError));
const refused = (rs: (Issued | AppError)[]) => rs.filter((r): r is AppError => r instanceof AppError);

function note(type: 56 | 61, of: Issued, code: 1 | 3, items: unknown[]) {
  return {
    type,
    receiver: type === 61 ? { rut: RECEIVER.rut, name: RECEIVER.name } : RECEIVER,
    refs: [{ type: of.type, folio: of.folio, date: of.date, code, reason: code === 1 ? 'Anula' : 'Descuento' }],
    items,
  };
}

async function row(d: { type: number; folio: number }) {
  return t.ctx.db.prisma.document.findFirstOrThrow({ where: { issuerId: issuer.id, type: d.type, folio: d.folio } });
}

/**
 * The folios of the refused notes went back: once as many other 61s are issued, the issuer's
 * 61 folios are 1…n without a gap (a consumed folio would leave one).
 */
async function expectNoFolioConsumed(refusedCount: number) {
  for (let i = 0; i < refusedCount; i++) {
    const other = await issue(factura());
    await issue(note(61, other, 3, [{ name: 'Descuento', qty: 1, price: 100 }]));
  }
  const folios = (
    await t.ctx.db.prisma.document.findMany({ where: { issuerId: issuer.id, type: 61 }, select: { folio: true } })
  )
    .map((d) => d.folio)
    .sort((x, y) => x - y);
  expect(folios).toEqual(folios.map((_, i) => i + 1));
}

describe('concurrent notes against one document', () => {
  it('four voiding credit notes: exactly one is issued and voids the factura, three are refused', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const original = await issue(factura());
      const before = await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id, type: 61 } });
      const results = await concurrently(Array.from({ length: 4 }, () => note(61, original, 1, factura().items)));
      const ok = issued(results);
      expect(ok, `round ${round}`).toHaveLength(1);
      for (const err of refused(results)) {
        expect(err.code).toBe('VALIDATION_FAILED');
        expect(err.message + JSON.stringify(err.details)).toMatch(/already voided/);
      }
      const voided = await row(original);
      expect(voided.estadoSii).toBe('anulado');
      expect(voided.voidedById).toBe((await row(ok[0]!)).id);
      const notes = await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id, type: 61 } });
      expect(notes).toBe(before + 1);
      await expectNoFolioConsumed(refused(results).length);
    }
  });

  it('three 6 000-peso credit notes against 11 900: one is issued, two are refused, never more than the total credited', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const original = await issue(factura({ items: [{ name: 'Caja', qty: 1, price: 10000 }] }));
      expect(original.total).toBe(11900);
      // 5 042 net + 958 VAT = 6 000
      const results = await concurrently(
        Array.from({ length: 3 }, () => note(61, original, 3, [{ name: 'Descuento', qty: 1, price: 5042 }])),
      );
      const ok = issued(results);
      expect(ok.map((r) => r.total)).toEqual([6000]);
      for (const err of refused(results)) {
        expect(err.code).toBe('TOTALS_MISMATCH');
        expect(err.message).toContain('already credited 6000, remaining 5900');
      }
      await expectNoFolioConsumed(refused(results).length);
    }
  });

  it('a voiding note and a partial credit note at once: exactly one of them is issued', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const original = await issue(factura());
      const results = await concurrently([
        note(61, original, 1, factura().items),
        note(61, original, 3, [{ name: 'Descuento', qty: 1, price: 1000 }]),
      ]);
      expect(issued(results), `round ${round}`).toHaveLength(1);
      expect(refused(results)).toHaveLength(1);
      await expectNoFolioConsumed(refused(results).length);
    }
  });

  it('two debit notes voiding one credit note: one is issued, and the factura is restored once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const original = await issue(factura());
      const credit = await issue(note(61, original, 1, factura().items));
      expect((await row(original)).estadoSii).toBe('anulado');
      const results = await concurrently([note(56, credit, 1, factura().items), note(56, credit, 1, factura().items)]);
      expect(issued(results), `round ${round}`).toHaveLength(1);
      expect(refused(results)[0]?.message + JSON.stringify(refused(results)[0]?.details)).toMatch(/already voided/);
      expect((await row(credit)).estadoSii).toBe('anulado');
      const restored = await row(original);
      expect(restored.estadoSii).toBe('local');
      expect(restored.voidedById).toBeNull();
      const events = await t.ctx.db.prisma.event.findMany({
        where: { documentId: restored.id, type: 'document.restored' },
      });
      expect(events).toHaveLength(1);
    }
  });
});

describe('one after the other', () => {
  it('a voiding note after a partial credit note is refused, with what remains to credit', async () => {
    const original = await issue(factura({ items: [{ name: 'Caja', qty: 1, price: 10000 }] }));
    await issue(note(61, original, 3, [{ name: 'Descuento', qty: 1, price: 1000 }])); // 1 190
    const err = await issue(note(61, original, 1, [{ name: 'Caja', qty: 1, price: 10000 }])).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('TOTALS_MISMATCH');
    expect(err.message).toContain('remaining 10710');
    expect(err.message).toContain('CodRef 3');
  });
});

describe('live: a voiding note is pending until the SII accepts it', () => {
  let live: TestApp;
  let sim: Awaited<ReturnType<typeof startSimulator>>['sim'];
  let simUrl: string;
  let lv: Awaited<ReturnType<typeof createLiveIssuer>>;

  beforeAll(async () => {
    const started = await startSimulator();
    sim = started.sim;
    simUrl = started.url;
    live = await startLiveApp(sim, started.url);
    lv = await createLiveIssuer(live, sim, [33, 56, 61]);
  });

  const post = (body: unknown) =>
    live.app.inject({ method: 'POST', url: `/api/${lv.rut}/emitir`, headers: lv.auth, payload: body as object });

  async function settled(type: number, folio: number): Promise<string> {
    return eventually(async () => {
      const e = await estadoOf(live, lv.rut, type, folio);
      return e && ['aceptado', 'aceptado_con_reparos', 'rechazado', 'anulado'].includes(e) ? e : null;
    });
  }

  it('a second voiding note while the first is pending is refused; voiding the note restores aceptado_con_reparos', async () => {
    // RUTRecep 33333333-3: the simulator accepts with objections (RPR).
    const receiver = { ...RECEIVER, rut: '33333333-3' };
    const res = await post(factura({ receiver }));
    expect(res.statusCode, res.body).toBe(200);
    const original = res.json() as Issued;
    expect(await settled(33, original.folio)).toBe('aceptado_con_reparos');

    const voiding = {
      type: 61,
      receiver: { rut: receiver.rut, name: receiver.name },
      refs: [{ type: 33, folio: original.folio, date: original.date, code: 1, reason: 'Anula' }],
      items: factura().items,
    };
    const [a, b] = await Promise.all([post(voiding), post(voiding)]);
    const statuses = [a.statusCode, b.statusCode].sort();
    expect(statuses).toEqual([200, 400]);
    const credit = (a.statusCode === 200 ? a : b).json() as Issued;
    expect((a.statusCode === 400 ? a : b).json().details[0].message).toMatch(/already voided/);
    await settled(61, credit.folio);
    expect(await eventually(async () => (await estadoOf(live, lv.rut, 33, original.folio)) === 'anulado')).toBe(true);

    const debit = await post({
      type: 56,
      receiver,
      refs: [{ type: 61, folio: credit.folio, date: credit.date, code: 1, reason: 'Anula la nota de crédito' }],
      items: factura().items,
    });
    expect(debit.statusCode, debit.body).toBe(200);
    await settled(56, debit.json().folio);
    // Back to the state it had before the void, not to `aceptado`.
    const back = await eventually(async () => {
      const e = await estadoOf(live, lv.rut, 33, original.folio);
      return e !== 'anulado' ? e : null;
    });
    expect(back).toBe('aceptado_con_reparos');
    expect(await estadoOf(live, lv.rut, 61, credit.folio)).toBe('anulado');
  });

  it('two resubmits of one rejected document at once create one new submission, and the SII gets it once', async () => {
    // RUTRecep 11111111-1: the simulator rejects it.
    const res = await post(factura({ receiver: { ...RECEIVER, rut: '11111111-1' } }));
    expect(res.statusCode, res.body).toBe(200);
    const folio = res.json().folio as number;
    expect(await settled(33, folio)).toBe('rechazado');
    const doc = await live.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: lv.issuer.id, type: 33, folio },
    });
    const resend = () =>
      live.app.inject({
        method: 'POST',
        url: '/api/emision_reenviar',
        headers: bearer(lv.key),
        payload: { rut: lv.rut, type: 33, folio },
      });
    const answers = await Promise.all([resend(), resend()]);
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    const submissions = await live.ctx.db.prisma.submission.findMany({ where: { documentId: doc.id } });
    expect(submissions).toHaveLength(2); // the first one and exactly one resubmission
    expect(await settled(33, folio)).toBe('rechazado');
    const uploads = sim
      .uploads()
      .filter((u) => u.companyRut === lv.rut && u.documents.some((d) => d.folio === folio && d.type === 33));
    expect(uploads).toHaveLength(2);
  });

  it('a worker whose lease was taken over mid-upload does not overwrite the new holder’s outcome', async () => {
    const quiet = await buildTestApp({ env: liveEnv(sim, simUrl, { JOBS_ENABLED: 'false' }), shareDatabaseOf: live });
    // The first attempt, right after the commit, cannot reach the SII: the submission stays queued.
    sim.setFault({ kind: 'down', paths: ['/cgi_dte/UPL/DTEUpload'], count: 1 });
    const res = await quiet.as(lv.key).post(`/api/${lv.rut}/emitir`, factura());
    expect(res.statusCode, res.body).toBe(200);
    const doc = await quiet.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: lv.issuer.id, type: 33, folio: res.json().folio },
    });
    expect(doc.estadoSii).toBe('pendiente');
    const submission = await quiet.ctx.db.prisma.submission.findFirstOrThrow({ where: { documentId: doc.id } });

    // This worker's upload is slow; while it waits, its lease passes to another worker, which
    // records its own view of the submission.
    sim.setFault({ kind: 'slow', delayMs: 1500, paths: ['/cgi_dte/UPL/DTEUpload'], count: 1 });
    const step = runSubmission(quiet.ctx, submission.id, { force: true });
    await waitFor(
      async () =>
        (await quiet.ctx.db.prisma.submission.findUniqueOrThrow({ where: { id: submission.id } })).state === 'sending',
      { what: 'the upload under way' },
    );
    const otherLease = new Date(Date.now() + 10 * 60_000);
    await quiet.ctx.db.prisma.submission.update({
      where: { id: submission.id },
      data: { leaseUntil: otherLease, state: 'ambiguous', lastError: 'taken over' },
    });
    expect(await step).toBeNull();
    const after = await quiet.ctx.db.prisma.submission.findUniqueOrThrow({ where: { id: submission.id } });
    expect(after).toMatchObject({ state: 'ambiguous', lastError: 'taken over', trackId: null });
    expect(after.leaseUntil?.getTime()).toBe(otherLease.getTime());
    const stillPending = await quiet.ctx.db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(stillPending.estadoSii).toBe('pendiente');
    expect(stillPending.trackId).toBeNull();
  });
});
