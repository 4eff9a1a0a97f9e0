/**
 * The worker thread of the received-envelope checker (check-pool.ts): runs `checkReceived` on
 * the bytes it is sent, asking the main thread each duplicate lookup (the database is there),
 * and answers the outcome. Several checks may be in flight; each waits only for its own lookups.
 * It also writes and signs the receiver's answers (answers.ts), which need nothing but their
 * input and the certificate's key.
 */
import { parentPort } from 'node:worker_threads';
import { validateXml } from '../dte/xsd.ts';
import type { TrustedCafKey } from '../dte/caf.ts';
import type { SignatureKey } from '../dte/xmldsig.ts';
import { type CheckContext, checkReceived, type EnvelopeOutcome } from './checks.ts';
import { type AnswerTask, buildAnswer } from './answers.ts';

/** A duplicate lookup the worker asks the main thread. */
export type Lookup =
  | { kind: 'file'; sha256: string }
  | { kind: 'document'; issuerRut: string; type: number; folio: number };

export type ToCheckWorker =
  | { type: 'check'; id: number; bytes: Uint8Array; receiverRut: string; trustedCafKeys: readonly TrustedCafKey[] }
  | { type: 'answer'; id: number; task: AnswerTask; cert: SignatureKey }
  | { type: 'seen'; id: number; q: number; seen: boolean }
  | { type: 'lookup_failed'; id: number; q: number };

export type FromCheckWorker =
  | { type: 'ask'; id: number; q: number; lookup: Lookup }
  | { type: 'done'; id: number; outcome: EnvelopeOutcome }
  | { type: 'signed'; id: number; bytes: Uint8Array }
  /** An answer its builder refused to write (`AnswerNotWritten`), with the builder's message. */
  | { type: 'not_written'; id: number; error: string }
  /** A check that threw (a Timbre bug): its stack. */
  | { type: 'error'; id: number; error: string };

const port = parentPort;
/** The lookups asked and not answered yet, by their number (unique in the worker). */
const waiting = new Map<number, { resolve(seen: boolean): void; reject(err: Error): void }>();
let nextQ = 1;

function ask(id: number, lookup: Lookup): Promise<boolean> {
  const q = nextQ++;
  return new Promise<boolean>((resolve, reject) => {
    waiting.set(q, { resolve, reject });
    port?.postMessage({ type: 'ask', id, q, lookup } satisfies FromCheckWorker);
  });
}

async function run(m: Extract<ToCheckWorker, { type: 'check' }>): Promise<void> {
  const ctx: CheckContext = {
    receiverRut: m.receiverRut,
    trustedCafKeys: m.trustedCafKeys,
    seenFile: (sha256) => ask(m.id, { kind: 'file', sha256 }),
    seenDocument: (issuerRut, type, folio) => ask(m.id, { kind: 'document', issuerRut, type, folio }),
  };
  let reply: FromCheckWorker;
  try {
    const bytes = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
    reply = { type: 'done', id: m.id, outcome: await checkReceived(bytes, ctx) };
  } catch (err) {
    reply = { type: 'error', id: m.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  port?.postMessage(reply);
}

function answer(m: Extract<ToCheckWorker, { type: 'answer' }>): void {
  let reply: FromCheckWorker;
  try {
    reply = { type: 'signed', id: m.id, bytes: buildAnswer(m.task, m.cert) };
  } catch (err) {
    // `buildAnswer` throws nothing but AnswerNotWritten (it wraps what its builder throws).
    reply = { type: 'not_written', id: m.id, error: (err as Error).message };
  }
  port?.postMessage(reply);
}

port?.on('message', (m: ToCheckWorker) => {
  if (m.type === 'check') {
    void run(m);
    return;
  }
  if (m.type === 'answer') {
    answer(m);
    return;
  }
  const w = waiting.get(m.q);
  waiting.delete(m.q);
  if (m.type === 'seen') w?.resolve(m.seen);
  else w?.reject(new Error('the lookup failed on the main thread'));
});

// Compile the envelope schema now, not during the first check.
validateXml(Buffer.from('<EnvioDTE/>'), 'EnvioDTE_v10.xsd');
