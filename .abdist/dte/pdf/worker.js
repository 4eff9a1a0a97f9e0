/**
 * The worker thread behind `createPdfRenderer` (src/dte/pdf/renderer.ts): a thin wrapper
 * that calls the renderer's exported entry point, `renderPdf`, off the main event loop.
 */
import { parentPort } from 'node:worker_threads';
import { renderPdf } from './index.js';
parentPort?.on('message', (task) => {
    renderPdf(task.doc, task.ted, { format: task.format, sandbox: task.sandbox, received: task.received }).then((pdf) => {
        const bytes = new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
        parentPort?.postMessage({ id: task.id, ok: true, pdf: bytes });
    }, (err) => {
        const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        parentPort?.postMessage({ id: task.id, ok: false, error });
    });
});
