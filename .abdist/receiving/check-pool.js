import { startModuleWorker } from '../dte/worker-thread.js';
import { checkReceived } from './checks.js';
let shared = null;
const onCallerThread = createReceiveChecker({ workers: 0 });
/** The process's checker: in a worker thread unless SIGN_WORKERS is 0 (then on the caller's thread). */
export function receiveChecker(config) {
    if (config.SIGN_WORKERS <= 0)
        return onCallerThread;
    shared ??= createReceiveChecker({ workers: 1 });
    return shared;
}
/** Old-generation heap of the worker, MB: an envelope of up to 10 MB is parsed into a DOM there. */
const WORKER_HEAP_MB = 256;
export function createReceiveChecker(opts) {
    if (opts.workers <= 0) {
        return {
            check: (bytes, ctx) => checkReceived(bytes, ctx),
            stats: () => ({ workerChecks: 0 }),
            close: async () => { },
        };
    }
    let worker = null;
    const tasks = new Map();
    let nextId = 1;
    let workerChecks = 0;
    let closed = false;
    function lookup(ctx, l) {
        return l.kind === 'file' ? ctx.seenFile(l.sha256) : ctx.seenDocument(l.issuerRut, l.type, l.folio);
    }
    function started() {
        if (worker)
            return worker;
        const w = startModuleWorker(import.meta.url, './check-worker', { maxOldGenerationSizeMb: WORKER_HEAP_MB });
        w.unref();
        w.on('message', (m) => {
            const task = tasks.get(m.id);
            if (!task)
                return;
            if (m.type === 'ask') {
                lookup(task.ctx, m.lookup).then((seen) => w.postMessage({ type: 'seen', id: m.id, q: m.q, seen }), (err) => {
                    task.lookupError = err;
                    w.postMessage({ type: 'lookup_failed', id: m.id, q: m.q });
                });
                return;
            }
            tasks.delete(m.id);
            if (tasks.size === 0)
                w.unref();
            if (m.type === 'done')
                task.resolve(withBuffers(m.outcome));
            else
                task.reject(toError(task.lookupError) ?? new Error(`the received-envelope check failed in a worker: ${m.error}`));
        });
        const fail = (err) => {
            if (worker !== w)
                return;
            worker = null;
            for (const t of tasks.values())
                t.reject(err);
            tasks.clear();
            void w.terminate();
        };
        w.on('error', (err) => fail(new Error(`the received-envelope checker failed: ${err.message}`)));
        w.on('exit', (code) => fail(new Error(`the received-envelope checker stopped (exit code ${code})`)));
        worker = w;
        return w;
    }
    return {
        check(bytes, ctx) {
            if (closed)
                return Promise.reject(new Error('the received-envelope checker is closed'));
            const w = started();
            const id = nextId++;
            workerChecks += 1;
            return new Promise((resolve, reject) => {
                tasks.set(id, { ctx, resolve, reject });
                // A check in flight keeps the process alive until it answers; an idle worker does not.
                w.ref();
                w.postMessage({
                    type: 'check',
                    id,
                    bytes,
                    receiverRut: ctx.receiverRut,
                    trustedCafKeys: ctx.trustedCafKeys,
                });
            });
        },
        stats: () => ({ workerChecks }),
        async close() {
            closed = true;
            const w = worker;
            worker = null;
            for (const t of tasks.values())
                t.reject(new Error('the received-envelope checker is closed'));
            tasks.clear();
            await w?.terminate();
        },
    };
}
function toError(err) {
    if (err === undefined)
        return undefined;
    return err instanceof Error ? err : new Error(String(err));
}
/** Structured clone turns each Buffer into a plain Uint8Array: the DTEs' bytes become Buffers again. */
function withBuffers(outcome) {
    return {
        ...outcome,
        documents: outcome.documents.map((d) => {
            const b = d.bytes;
            return { ...d, bytes: Buffer.from(b.buffer, b.byteOffset, b.byteLength) };
        }),
    };
}
