import { startModuleWorker } from '../worker-thread.js';
/** A worker running pdf-worker (src/dte/worker-thread.ts). */
function startWorker() {
    return startModuleWorker(import.meta.url, './worker');
}
export function createPdfRenderer(opts) {
    const queue = [];
    const slots = [];
    const inflight = new Map();
    let nextId = 1;
    let closed = false;
    function spawn() {
        const slot = { worker: startWorker(), busy: null };
        slot.worker.unref();
        slot.worker.on('message', (result) => {
            const pending = slot.busy;
            slot.busy = null;
            if (pending && pending.task.id === result.id) {
                if (result.ok)
                    pending.resolve(Buffer.from(result.pdf.buffer, result.pdf.byteOffset, result.pdf.byteLength));
                else
                    pending.reject(new Error(`PDF rendering failed: ${result.error}`));
            }
            pump();
        });
        const fail = (err) => {
            const pending = slot.busy;
            slot.busy = null;
            slots.splice(slots.indexOf(slot), 1);
            pending?.reject(err);
            pump();
        };
        slot.worker.on('error', fail);
        slot.worker.on('exit', (code) => {
            if (slots.includes(slot))
                fail(new Error(`PDF worker exited with code ${code}`));
        });
        slots.push(slot);
        return slot;
    }
    function pump() {
        while (!closed && queue.length > 0) {
            const slot = slots.find((s) => !s.busy) ?? (slots.length < opts.concurrency ? spawn() : null);
            if (!slot)
                return;
            const pending = queue.shift();
            slot.busy = pending;
            slot.worker.postMessage(pending.task);
        }
    }
    return {
        render(input, key) {
            if (closed)
                return Promise.reject(new Error('the PDF renderer is closed'));
            const running = key === undefined ? undefined : inflight.get(key);
            if (running)
                return running;
            const promise = new Promise((resolve, reject) => {
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
            for (const p of queue.splice(0))
                p.reject(new Error('the PDF renderer is closed'));
            const running = slots.splice(0);
            for (const s of running)
                s.busy?.reject(new Error('the PDF renderer is closed'));
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
export function createLimiter(limit) {
    let active = 0;
    const waiting = [];
    return async (run) => {
        if (active >= limit)
            await new Promise((resolve) => waiting.push(resolve));
        active += 1;
        try {
            return await run();
        }
        finally {
            active -= 1;
            waiting.shift()?.();
        }
    };
}
