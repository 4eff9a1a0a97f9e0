/**
 * The signing stage off the event loop (README "Signing off the event loop"): a pool of `workers` worker threads, each
 * running `signStage` (TED, XML, XMLDSig, the last check) for one document at a time; further
 * documents wait in order. With `workers: 0` the stage runs on the calling thread (the CLI,
 * and `SIGN_WORKERS=0`).
 *
 * Key material goes to a worker once: the first document signed with a certificate or CAF in
 * a worker carries it in a `key` message before the task, the worker keeps it parsed (with the
 * public keys derived), and later tasks name it by id. A key is identified by its content
 * (SHA-256 of the certificate's DER, of the CAF element), memoised per object, so the caches of
 * `src/issuing/key-material.ts` map to stable ids. Each worker keeps the MAX_KEYS most recently
 * used keys; the pool tells it which to forget, so both sides always agree.
 *
 * A worker that dies (an uncaught error, `terminate()`, out of memory) fails only the document
 * it was signing, with an error the API answers as a 500 (the issuing use case releases the
 * folio); the pool starts a new worker for the next document.
 *
 * Why not piscina: its tasks go to whichever worker is free, so it cannot tell whether that
 * worker already holds a key, and every task would carry the keys again. The pool here is the
 * shape of the PDF renderer's (src/dte/pdf/renderer.ts): started on first use, the `.ts` worker
 * through tsx in development and tests, the compiled `.js` in `dist/`.
 */
import { createHash, type KeyObject } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../worker-thread.ts';
import type { Caf } from '../caf.ts';
import { type SignatureKey, signatureKeyOf } from '../xmldsig.ts';
import { type KeyPayload, KeyStore, type StageInput, type StageResult, signStage } from './stage.ts';
import type { FromWorker, ToWorker } from './worker.ts';

/** The keys of one document, as the issuing use case holds them (cached objects). */
export interface KeyMaterial {
  cert: SignatureKey;
  caf: Pick<Caf, 'cafXml' | 'modulus' | 'exponent'>;
  cafPrivateKey: KeyObject;
}

interface SignerStats {
  /** Worker threads running now. */
  workers: number;
  /** Documents signed (or failed) so far. */
  tasks: number;
  /** Keys sent to workers so far (each at most once per worker while it keeps it). */
  keyTransfers: number;
}

export interface Signer {
  /**
   * Starts the worker threads now instead of on the first document, and resolves once each has
   * booted and compiled the DTE schema (about 0.3–0.4 s of a worker's start that the first
   * document after a start would otherwise wait for); rejects when one stopped while starting.
   * With `workers: 0` there is nothing to start.
   */
  start(): Promise<void>;
  /** Runs the signing stage; rejects only when the stage could not run (worker died, bug). */
  sign(input: StageInput, keys: KeyMaterial): Promise<StageResult>;
  stats(): SignerStats;
  /** Stops the workers; queued and running documents are rejected. */
  close(): Promise<void>;
}

export interface SignerOptions {
  /** Worker threads; 0 signs on the calling thread. */
  workers: number;
  /** Keys each thread keeps (default MAX_KEYS). */
  maxKeys?: number;
  /** Called when a document is handed to a worker (tests use it to kill that worker). */
  onDispatch?: (worker: Worker) => void;
}

/** Keys a worker (or the in-process store) keeps: far more than the certificates and CAFs in use at once. */
const MAX_KEYS = 256;

const ids = new WeakMap<object, string>();

/** The content id of a certificate or CAF object, computed once per object. */
function keyId(kind: 'cert' | 'caf', object: object, content: () => string): string {
  let id = ids.get(object);
  if (!id) {
    id = `${kind}:${createHash('sha256').update(content()).digest('base64url')}`;
    ids.set(object, id);
  }
  return id;
}

function payloads(keys: KeyMaterial): { certId: string; cafId: string; make: Map<string, () => KeyPayload> } {
  const certId = keyId('cert', keys.cert, () => keys.cert.certDerBase64);
  const cafId = keyId('caf', keys.caf, () => keys.caf.cafXml);
  const { cafXml, modulus, exponent } = keys.caf;
  return {
    certId,
    cafId,
    make: new Map<string, () => KeyPayload>([
      [certId, () => ({ kind: 'cert', id: certId, cert: signatureKeyOf(keys.cert) })],
      [cafId, () => ({ kind: 'caf', id: cafId, caf: { cafXml, modulus, exponent }, privateKey: keys.cafPrivateKey })],
    ]),
  };
}

/**
 * Which keys one thread holds, most recently used last. `use` returns the payloads to send
 * first and the ids to forget (the least recently used beyond MAX_KEYS).
 */
class KeyTracker {
  private readonly held = new Map<string, true>();

  constructor(private readonly max: number) {}

  use(needed: Map<string, () => KeyPayload>): { send: KeyPayload[]; forget: string[] } {
    const send: KeyPayload[] = [];
    for (const [id, make] of needed) {
      if (this.held.delete(id)) this.held.set(id, true);
      else {
        this.held.set(id, true);
        send.push(make());
      }
    }
    const forget: string[] = [];
    for (const id of this.held.keys()) {
      if (this.held.size <= this.max) break;
      if (needed.has(id)) continue;
      this.held.delete(id);
      forget.push(id);
    }
    return { send, forget };
  }
}

interface Pending {
  task: Extract<ToWorker, { type: 'sign' }>;
  make: Map<string, () => KeyPayload>;
  resolve(result: StageResult): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** True when the worker has booted (its `ready` message), false when it stopped before. */
  ready: Promise<boolean>;
  /** Documents handed to the worker, in the order it signs them (the first is being signed). */
  inFlight: Pending[];
  keys: KeyTracker;
}

/**
 * Documents handed to one worker at a time: the one it signs and the next, so that when it
 * finishes one it starts the next at once instead of waiting for the event loop to read its
 * answer and send another (on two busy cores the worker sat idle there while documents waited).
 */
const WORKER_DEPTH = 2;

/** Old-generation heap of a compiled signing worker, MB. */
const WORKER_HEAP_MB = 64;

/** A worker running worker.ts (src/dte/worker-thread.ts). */
function startWorker(): Worker {
  // A worker holds keys and libxml2 (whose memory is outside the JS heap), not documents: its
  // heap is capped well below the main thread's, so the instance keeps to its memory budget
  // (a worker past the cap dies, and only its document fails: see the crash handling below).
  return startModuleWorker(import.meta.url, './worker', {
    maxOldGenerationSizeMb: WORKER_HEAP_MB,
    maxYoungGenerationSizeMb: 8,
  });
}

function fromWorker(reply: Exclude<FromWorker, { type: 'ready' }>): StageResult | Error {
  if ('error' in reply) return new Error(`the signing stage failed in a worker: ${reply.error}`);
  const r = reply.result;
  if (!r.ok) return r;
  // Structured clone turns the Buffer into a plain Uint8Array.
  const bytes = r.bytes as Uint8Array;
  return { ok: true, ted: r.ted, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

export function createSigner(opts: SignerOptions): Signer {
  return opts.workers > 0 ? workerSigner(opts) : inProcessSigner(opts.maxKeys ?? MAX_KEYS);
}

function inProcessSigner(maxKeys: number): Signer {
  const store = new KeyStore();
  const tracker = new KeyTracker(maxKeys);
  let tasks = 0;
  let keyTransfers = 0;
  let closed = false;
  return {
    async start() {},
    async sign(input, keys) {
      if (closed) throw new Error('the signer is closed');
      const { certId, cafId, make } = payloads(keys);
      const { send, forget } = tracker.use(make);
      for (const id of forget) store.forget(id);
      for (const p of send) store.add(p);
      keyTransfers += send.length;
      tasks += 1;
      return signStage(input, store.keys(certId, cafId));
    },
    stats: () => ({ workers: 0, tasks, keyTransfers }),
    async close() {
      closed = true;
    },
  };
}

function workerSigner(opts: SignerOptions): Signer {
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let tasks = 0;
  let keyTransfers = 0;
  let closed = false;

  function spawn(): Slot {
    const worker = startWorker();
    let booted: (ok: boolean) => void = () => {};
    const ready = new Promise<boolean>((resolve) => {
      booted = resolve;
    });
    worker.once('exit', () => booted(false));
    const slot: Slot = { worker, ready, inFlight: [], keys: new KeyTracker(opts.maxKeys ?? MAX_KEYS) };
    slot.worker.unref();
    slot.worker.on('message', (reply: FromWorker) => {
      if ('type' in reply) return booted(true);
      // Answers come in the order the documents were sent.
      const pending = slot.inFlight[0]?.task.id === reply.id ? slot.inFlight.shift() : undefined;
      if (slot.inFlight.length === 0) slot.worker.unref();
      if (pending) {
        const result = fromWorker(reply);
        if (result instanceof Error) pending.reject(result);
        else pending.resolve(result);
      }
      pump();
    });
    // A dead worker fails the document it was signing only; the one waiting behind it goes back
    // to the front of the queue (signing is a pure function: running it again is harmless), and
    // the next document starts a new worker.
    const fail = (err: Error) => {
      if (!slots.includes(slot)) return;
      slots.splice(slots.indexOf(slot), 1);
      const [signing, ...waiting] = slot.inFlight.splice(0);
      signing?.reject(err);
      queue.unshift(...waiting);
      void slot.worker.terminate();
      pump();
    };
    slot.worker.on('error', (err) => fail(new Error(`the signing worker failed: ${err.message}`)));
    slot.worker.on('exit', (code) => fail(new Error(`the signing worker stopped (exit code ${code})`)));
    slots.push(slot);
    return slot;
  }

  function dispatch(slot: Slot, pending: Pending): void {
    slot.inFlight.push(pending);
    // A worker with a document keeps the process alive until it answers; an idle one does not.
    slot.worker.ref();
    const { send, forget } = slot.keys.use(pending.make);
    for (const id of forget) slot.worker.postMessage({ type: 'forget', id } satisfies ToWorker);
    for (const key of send) slot.worker.postMessage({ type: 'key', key } satisfies ToWorker);
    keyTransfers += send.length;
    tasks += 1;
    slot.worker.postMessage(pending.task);
    opts.onDispatch?.(slot.worker);
  }

  function pump(): void {
    while (!closed && queue.length > 0) {
      // An idle worker first, a new one next, then one that is signing but has none waiting.
      const slot =
        slots.find((s) => s.inFlight.length === 0) ??
        (slots.length < opts.workers ? spawn() : null) ??
        slots.find((s) => s.inFlight.length < WORKER_DEPTH);
      if (!slot) return;
      dispatch(slot, queue.shift()!);
    }
  }

  return {
    async start() {
      while (!closed && slots.length < opts.workers) spawn();
      const booted = await Promise.all(slots.map((s) => s.ready));
      // A worker that died booting is replaced by the next document (as after any crash).
      if (!booted.every(Boolean)) throw new Error('a signing worker stopped while starting');
    },
    sign(input, keys) {
      if (closed) return Promise.reject(new Error('the signer is closed'));
      const { certId, cafId, make } = payloads(keys);
      return new Promise<StageResult>((resolve, reject) => {
        queue.push({ task: { type: 'sign', id: nextId++, input, certId, cafId }, make, resolve, reject });
        pump();
      });
    },
    stats: () => ({ workers: slots.length, tasks, keyTransfers }),
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new Error('the signer is closed'));
      const running = slots.splice(0);
      for (const s of running) for (const p of s.inFlight) p.reject(new Error('the signer is closed'));
      await Promise.all(running.map((s) => s.worker.terminate()));
    },
  };
}
