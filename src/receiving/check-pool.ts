/**
 * The checks of a received envelope (checks.ts `checkReceived`: parsing, XSD, the envelope's and
 * each DTE's signature, the TEDs) off the event loop, in one worker thread started on first use.
 * On the event loop a 300-DTE envelope (1.8 MB) held it for 636 ms in one piece and a 10-DTE
 * one for ~65 ms in pieces of up to 27 ms, during which the instance answered nothing else (its
 * issues included); the largest envelope accepted (10 MB) would have held it for seconds. Now
 * the event loop only copies the outcome back: 6–9 ms, 61 ms for 1600 DTEs in 9.8 MB.
 *
 * The worker asks the duplicate lookups (`seenFile`, `seenDocument`) back: they run here, on the
 * caller's database handle (a transaction's, when the caller checks again under its lock), so
 * the checks and their order are exactly those of `checkReceived`. A lookup that throws fails
 * the check with that error. A worker that dies fails the checks it was running; the next check
 * starts a new one. With `workers: 0` (the CLI, SIGN_WORKERS=0) the checks run on the caller's
 * thread.
 *
 * The same worker writes and signs the receiver's answers (`answer`: the envelope's RespuestaDTE,
 * a decision's ResultadoDTE and EnvioRecibos; answers.ts says what they cost the event loop).
 *
 * The process shares one checker (`receiveChecker`): it holds no database or app state (each
 * check brings its lookups), and its worker is unreferenced while idle, so it never keeps a
 * process alive and needs no closing with the app.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../dte/worker-thread.ts';
import { type SignatureKey, signatureKeyOf } from '../dte/xmldsig.ts';
import { AnswerNotWritten, type AnswerTask, buildAnswer } from './answers.ts';
import type { FromCheckWorker, Lookup, ToCheckWorker } from './check-worker.ts';
import { type CheckContext, checkReceived, type EnvelopeOutcome } from './checks.ts';

export interface ReceiveChecker {
  check(bytes: Buffer, ctx: CheckContext): Promise<EnvelopeOutcome>;
  /**
   * The answer written and signed (ISO-8859-1 bytes); rejects with `AnswerNotWritten` and its
   * builder's message when the builder refuses (a value its schema refuses), with another error
   * when the work could not run (the worker stopped).
   */
  answer(task: AnswerTask, cert: SignatureKey): Promise<Buffer>;
  /** Checks run in a worker so far (0 when they run on the caller's thread). */
  stats(): { workerChecks: number };
  close(): Promise<void>;
}

let shared: ReceiveChecker | null = null;
const onCallerThread = createReceiveChecker({ workers: 0 });

/** The process's checker: in a worker thread unless SIGN_WORKERS is 0 (then on the caller's thread). */
export function receiveChecker(config: { SIGN_WORKERS: number }): ReceiveChecker {
  if (config.SIGN_WORKERS <= 0) return onCallerThread;
  shared ??= createReceiveChecker({ workers: 1 });
  return shared;
}

/** Old-generation heap of the worker, MB: an envelope of up to 10 MB is parsed into a DOM there. */
const WORKER_HEAP_MB = 256;

interface CheckTask {
  kind: 'check';
  ctx: CheckContext;
  resolve(outcome: EnvelopeOutcome): void;
  reject(err: Error): void;
  /** The error of a lookup that failed here: what the check fails with. */
  lookupError?: unknown;
}

interface AnswerRun {
  kind: 'answer';
  resolve(bytes: Buffer): void;
  reject(err: Error): void;
}

type Task = CheckTask | AnswerRun;

export interface ReceiveCheckerOptions {
  /** Worker threads: 1, or 0 to check and sign on the caller's thread. */
  workers: number;
  /** Called when a task is handed to the worker (tests use it to stop that worker). */
  onDispatch?: (worker: Worker) => void;
}

export function createReceiveChecker(opts: ReceiveCheckerOptions): ReceiveChecker {
  if (opts.workers <= 0) {
    return {
      check: (bytes, ctx) => checkReceived(bytes, ctx),
      answer: async (task, cert) => buildAnswer(task, cert),
      stats: () => ({ workerChecks: 0 }),
      close: async () => {},
    };
  }
  let worker: Worker | null = null;
  const tasks = new Map<number, Task>();
  let nextId = 1;
  let workerChecks = 0;
  let closed = false;

  function lookup(ctx: CheckContext, l: Lookup): Promise<boolean> {
    return l.kind === 'file' ? ctx.seenFile(l.sha256) : ctx.seenDocument(l.issuerRut, l.type, l.folio);
  }

  function started(): Worker {
    if (worker) return worker;
    const w = startModuleWorker(import.meta.url, './check-worker', { maxOldGenerationSizeMb: WORKER_HEAP_MB });
    w.unref();
    w.on('message', (m: FromCheckWorker) => {
      const task = tasks.get(m.id);
      if (!task) return;
      if (m.type === 'ask') {
        if (task.kind !== 'check') return;
        lookup(task.ctx, m.lookup).then(
          (seen) => w.postMessage({ type: 'seen', id: m.id, q: m.q, seen } satisfies ToCheckWorker),
          (err: unknown) => {
            task.lookupError = err;
            w.postMessage({ type: 'lookup_failed', id: m.id, q: m.q } satisfies ToCheckWorker);
          },
        );
        return;
      }
      tasks.delete(m.id);
      if (tasks.size === 0) w.unref();
      if (task.kind === 'answer') {
        if (m.type === 'signed') task.resolve(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
        else if (m.type === 'not_written') task.reject(new AnswerNotWritten(m.error));
        else task.reject(new Error(`writing an answer failed in a worker: ${'error' in m ? m.error : m.type}`));
      } else if (m.type === 'done') task.resolve(withBuffers(m.outcome));
      else
        task.reject(
          toError(task.lookupError) ??
            new Error(`the received-envelope check failed in a worker: ${'error' in m ? m.error : m.type}`),
        );
    });
    const fail = (err: Error) => {
      if (worker !== w) return;
      worker = null;
      for (const t of tasks.values()) t.reject(err);
      tasks.clear();
      void w.terminate();
    };
    w.on('error', (err) => fail(new Error(`the received-envelope checker failed: ${err.message}`)));
    w.on('exit', (code) => fail(new Error(`the received-envelope checker stopped (exit code ${code})`)));
    worker = w;
    return w;
  }

  /** Hands one message to the worker; the task is answered by its id. */
  function send(task: Task, message: (id: number) => ToCheckWorker): void {
    const w = started();
    const id = nextId++;
    tasks.set(id, task);
    // A task in flight keeps the process alive until it answers; an idle worker does not.
    w.ref();
    w.postMessage(message(id));
    opts.onDispatch?.(w);
  }

  return {
    check(bytes, ctx) {
      if (closed) return Promise.reject(new Error('the received-envelope checker is closed'));
      workerChecks += 1;
      return new Promise<EnvelopeOutcome>((resolve, reject) => {
        send({ kind: 'check', ctx, resolve, reject }, (id) => ({
          type: 'check',
          id,
          bytes,
          receiverRut: ctx.receiverRut,
          trustedCafKeys: ctx.trustedCafKeys,
        }));
      });
    },
    answer(task, cert) {
      if (closed) return Promise.reject(new Error('the received-envelope checker is closed'));
      return new Promise<Buffer>((resolve, reject) => {
        send({ kind: 'answer', resolve, reject }, (id) => ({
          type: 'answer',
          id,
          task,
          // Only what signing needs of the certificate crosses (its key and KeyInfo parts).
          cert: signatureKeyOf(cert),
        }));
      });
    },
    stats: () => ({ workerChecks }),
    async close() {
      closed = true;
      const w = worker;
      worker = null;
      for (const t of tasks.values()) t.reject(new Error('the received-envelope checker is closed'));
      tasks.clear();
      await w?.terminate();
    },
  };
}

function toError(err: unknown): Error | undefined {
  if (err === undefined) return undefined;
  return err instanceof Error ? err : new Error(String(err));
}

/** Structured clone turns each Buffer into a plain Uint8Array: the DTEs' bytes become Buffers again. */
function withBuffers(outcome: EnvelopeOutcome): EnvelopeOutcome {
  return {
    ...outcome,
    documents: outcome.documents.map((d) => {
      const b = d.bytes as Uint8Array;
      return { ...d, bytes: Buffer.from(b.buffer, b.byteOffset, b.byteLength) };
    }),
  };
}
