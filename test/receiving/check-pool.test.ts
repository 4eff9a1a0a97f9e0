/**
 * The checks of a received envelope run in a worker thread (src/receiving/check-pool.ts), so a
 * supplier's large envelope does not hold the event loop: the outcome is the one the checks give
 * on the caller's thread, duplicates are still asked of the caller's database handle (in the same
 * order), a failed lookup fails the check with its own error, and checks in flight together each
 * get their own outcome. The same worker writes and signs the receiver's answers: the bytes the
 * caller's thread would write, and a refusal with the builder's own message. (Measured, not timed
 * here: a 300-DTE envelope held the event loop 636 ms in one piece before, 9 ms at most now; its
 * RespuestaDTE another 30 ms, 203 ms for 1600 DTEs; BENCHMARKS.md.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { trustedCafKeys } from '../../src/admin/cafs.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { AnswerNotWritten } from '../../src/receiving/answers.ts';
import {
  createReceiveChecker,
  type ReceiveChecker,
  type ReceiveCheckerOptions,
} from '../../src/receiving/check-pool.ts';
import type { CheckContext } from '../../src/receiving/checks.ts';
import { closeAfterApps } from '../helpers/app.ts';
import { replaceOnce } from '../helpers/dte-pipeline.ts';
import { type Supplier, standInSupplier } from '../helpers/supplier.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

const RECEIVER = '76354771-K';
let supplier: Supplier;

beforeAll(() => {
  supplier = standInSupplier();
});

/** A checker closed after this file's tests. */
function checker(workers: number, onDispatch?: ReceiveCheckerOptions['onDispatch']): ReceiveChecker {
  const c = createReceiveChecker({ workers, ...(onDispatch && { onDispatch }) });
  closeAfterApps(() => c.close());
  return c;
}

function context(
  seen: { files?: readonly string[]; documents?: readonly number[] } = {},
): CheckContext & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    receiverRut: RECEIVER,
    trustedCafKeys: trustedCafKeys(supplier.siiPublicKeyPem),
    seenFile: async (sha256) => {
      asked.push(`file ${sha256.slice(0, 8)}`);
      return seen.files?.includes(sha256) ?? false;
    },
    seenDocument: async (issuerRut, type, folio) => {
      asked.push(`document ${issuerRut} ${type} ${folio}`);
      return seen.documents?.includes(folio) ?? false;
    },
  };
}

describe('the received-envelope checker', () => {
  it('gives in a worker the outcome the checks give on the event loop, byte for byte', async () => {
    const inWorker = checker(1);
    const inProcess = checker(0);
    const good = supplier.envelope(RECEIVER, [supplier.dte(RECEIVER, 31), supplier.dte(RECEIVER, 32)]);
    // A DTE altered after signing (its signature no longer verifies), and an already received one.
    const altered = replaceOnce(supplier.dte(RECEIVER, 34), '<Folio>34</Folio>', '<Folio>35</Folio>');
    const mixed = supplier.envelope(RECEIVER, [altered, supplier.dte(RECEIVER, 33)]);
    for (const [bytes, seen] of [
      [good, {}],
      [mixed, { documents: [33] }],
    ] as const) {
      const a = context(seen);
      const b = context(seen);
      const fromWorker = await inWorker.check(bytes, a);
      const onLoop = await inProcess.check(bytes, b);
      expect(fromWorker).toEqual(onLoop);
      expect(a.asked).toEqual(b.asked);
      for (const d of fromWorker.documents) expect(Buffer.isBuffer(d.bytes)).toBe(true);
    }
    expect(inWorker.stats().workerChecks).toBe(2);
    const mixedOutcome = await inWorker.check(mixed, context({ documents: [33] }));
    expect(mixedOutcome.documents.map((d) => d.reason === null)).toEqual([false, false]);
  });

  it('a lookup that throws fails the check with its error; the next check is fine', async () => {
    const c = checker(1);
    const bytes = supplier.envelope(RECEIVER, [supplier.dte(RECEIVER, 41)]);
    const failing = {
      ...context(),
      seenDocument: async () => {
        throw new Error('connection lost');
      },
    };
    await expect(c.check(bytes, failing)).rejects.toThrow('connection lost');
    const outcome = await c.check(bytes, context());
    expect(outcome.documents).toHaveLength(1);
    expect(outcome.documents[0]!.reason).toBeNull();
  });

  it('many checks at once each get their own outcome', async () => {
    const c = checker(1);
    const envelopes = [51, 52, 53, 54, 55].map((folio) => supplier.envelope(RECEIVER, [supplier.dte(RECEIVER, folio)]));
    const outcomes = await Promise.all(envelopes.map((bytes) => c.check(bytes, context())));
    expect(outcomes.map((o) => o.documents[0]!.dte?.folio)).toEqual([51, 52, 53, 54, 55]);
  });

  it("writes and signs the receiver's answers in the worker: the caller's bytes, valid and verifiable; a refusal keeps its message", async () => {
    const inWorker = checker(1);
    const inProcess = checker(0);
    const { cert } = generateTestCertificate({ holderRut: '13185095-6', name: 'Recepción Prueba' });
    const documents = Array.from({ length: 300 }, (_, i) => ({
      type: 33,
      folio: 1000 + i,
      date: '2026-11-20',
      issuerRut: '96790240-3',
      receiverRut: RECEIVER,
      total: 119_000 + i,
      estado: 0,
      glosa: 'DTE Recibido OK',
    }));
    const respuesta = {
      kind: 'respuesta' as const,
      input: {
        responderRut: RECEIVER,
        recipientRut: '96790240-3',
        number: 7,
        fileName: 'EnvioDTE_96790240-3.xml',
        receivedAt: '2026-11-27T10:00:00',
        signedAt: '2026-11-27T10:00:00',
        setId: 'SetDoc',
        digest: 'n4zQ8BZ8SuZc9IvK4bSmyoz8H5A=',
        caratulaIssuerRut: '96790240-3',
        caratulaReceiverRut: RECEIVER,
        estado: 0,
        glosa: 'Envio Recibido Conforme',
        dteCount: documents.length,
        documents,
      },
    };
    const fromWorker = await inWorker.answer(respuesta, cert);
    expect(Buffer.isBuffer(fromWorker)).toBe(true);
    expect(fromWorker.equals(await inProcess.answer(respuesta, cert))).toBe(true);
    expect(xmllint(fromWorker, 'RespuestaEnvioDTE_v10.xsd').ok).toBe(true);
    expect(xmlsecVerify(fromWorker, { idAttrs: ['Resultado', 'http://www.sii.cl/SiiDte:Resultado'] }).ok).toBe(true);
    expect(fromWorker.toString('latin1').match(/<RecepcionDTE>/g)).toHaveLength(300);

    // The schema's RUTType refuses this RutResponde: the builder's refusal, not a worker failure.
    const refused = { ...respuesta, input: { ...respuesta.input, responderRut: '76354771-X' } };
    const [inWorkerError, onLoopError] = await Promise.all([
      inWorker.answer(refused, cert).catch((e: unknown) => e),
      inProcess.answer(refused, cert).catch((e: unknown) => e),
    ]);
    expect(inWorkerError).toBeInstanceOf(AnswerNotWritten);
    expect(onLoopError).toBeInstanceOf(AnswerNotWritten);
    expect((inWorkerError as Error).message).toBe((onLoopError as Error).message);
    expect((inWorkerError as Error).message).toContain('RutResponde');
  });

  it('a worker stopped while writing an answer is a failure, not a refusal; the next answer is written by a new worker', async () => {
    let stop = true;
    const c = checker(1, (worker) => {
      if (!stop) return;
      stop = false;
      void worker.terminate();
    });
    const { cert } = generateTestCertificate({ holderRut: '13185095-6', name: 'Recepción Prueba' });
    const resultado = {
      kind: 'resultado' as const,
      input: {
        responderRut: RECEIVER,
        recipientRut: '96790240-3',
        number: 3,
        signedAt: '2026-11-27T10:00:00',
        document: {
          type: 33,
          folio: 77,
          date: '2026-11-20',
          issuerRut: '96790240-3',
          receiverRut: RECEIVER,
          total: 119_000,
          envelopeNumber: 2,
        },
        estado: 0 as const,
        reason: null,
      },
    };
    const failed = await c.answer(resultado, cert).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    // The reception that waits for it fails and records nothing, instead of storing an envelope
    // without its answer as it does for a refusal (src/receiving/receive.ts).
    expect(failed).not.toBeInstanceOf(AnswerNotWritten);
    expect((failed as Error).message).toMatch(/stopped|failed/);
    const written = await c.answer(resultado, cert);
    expect(xmllint(written, 'RespuestaEnvioDTE_v10.xsd').ok).toBe(true);
    expect(written.toString('latin1')).toContain('<Folio>77</Folio>');
  });
});
