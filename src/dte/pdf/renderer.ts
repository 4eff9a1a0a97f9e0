/**
 * PDF rendering off the event loop (README "Hostile input and abuse"): a small pool of worker threads, started on first
 * use, at most `concurrency` renders at once, further renders queued in order. A 1000-line
 * boleta takes pdfkit well over a second of CPU; on the main thread that second would stall
 * every other request, so downloads could be used to slow every tenant down.
 *
 * In development and tests the worker is the TypeScript file, loaded through tsx (a runtime
 * dependency); the built service runs the compiled `.js` next to this module.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../worker-thread.ts';
import type { PdfFormat, PrintedDocument } from './index.ts';
import type { RenderResult, RenderTask } from './worker.ts';

interface PdfRenderInput {
  doc: PrintedDocument;
  ted: string;
  format: PdfFormat;
  sandbox: boolean;
  received?: boolean;
}

export interface PdfRenderer {
  /** Renders in a worker; calls with the same `key` while one is running share its result. */
  render(input: PdfRenderInput, key?: string): Promise<Buffer>;
  /** Stops the workers; queued and running renders are rejected. */
  close(): Promise<void>;
}

interface Pending {
  task: RenderTask;
  resolve(pdf: Buffer): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
}

/** A worker running pdf-worker (src/dte/worker-thread.ts). */
function startWorker(): Worker {
  return startModuleWorker(import.meta.url, './worker');
}

export function createPdfRenderer(opts: { concurrency: number }): PdfRenderer {
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  const inflight = new Map<string, Promise<Buffer>>();
  let nextId = 1;
  let closed = false;

  function spawn(): Slot {
    const slot: Slot = { worker: startWorker(), busy: null };
    slot.worker.unref();
    slot.worker.on('message', (result: RenderResult) => {
      const pending = slot.busy;
      slot.busy = null;
      if (pending && pending.task.id === result.id) {
        if (result.ok) pending.resolve(Buffer.from(result.pdf.buffer, result.pdf.byteOffset, result.pdf.byteLength));
        else pending.reject(new Error(`PDF rendering failed: ${result.error}`));
      }
      pump();
    });
    const fail = (err: Error) => {
      const pending = slot.busy;
      slot.busy = null;
      slots.splice(slots.indexOf(slot), 1);
      pending?.reject(err);
      pump();
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (slots.includes(slot)) fail(new Error(`PDF worker exited with code ${code}`));
    });
    slots.push(slot);
    return slot;
  }

  function pump(): void {
    while (!closed && queue.length > 0) {
      const slot = slots.find((s) => !s.busy) ?? (slots.length < opts.concurrency ? spawn() : null);
      if (!slot) return;
      const pending = queue.shift()!;
      slot.busy = pending;
      slot.worker.postMessage(pending.task);
    }
  }

  return {
    render(input, key) {
      if (closed) return Promise.reject(new Error('the PDF renderer is closed'));
      const running = key === undefined ? undefined : inflight.get(key);
      if (running) return running;
      const promise = new Promise<Buffer>((resolve, reject) => {
        queue.push({ task: { id: nextId++, ...input }, resolve, reject });
        pump();
      });
      if (key !== undefined) {
        inflight.set(key, promise);
        const forget = () => inflight.delete(key);
        promise.then(forget, forget);
      }
      return promise;
    },
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new Error('the PDF renderer is closed'));
      const running = slots.splice(0);
      for (const s of running) s.busy?.reject(new Error('the PDF renderer is closed'));
      await Promise.all(running.map((s) => s.worker.terminate()));
    },
  };
}

/**
 * At most `limit` calls of `run` at once; the rest wait in order. PDF downloads go through one
 * (PDF_DOWNLOAD_CONCURRENCY): ten clients looping over a public link then occupy a few slots
 * of the event loop and the database pool, not all of them, and other tenants' requests are
 * answered in between.
 */
export function createLimiter(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await run();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}
