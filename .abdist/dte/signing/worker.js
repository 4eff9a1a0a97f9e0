/**
 * A worker thread of the signing pool (src/dte/signing/pool.ts): keeps the key material it is
 * sent (once per key, until told to forget it) and runs the signing stage for each task.
 */
import { parentPort } from 'node:worker_threads';
import { validateXml } from '../xsd.js';
import { KeyStore, signStage } from './stage.js';
const store = new KeyStore();
parentPort?.on('message', (m) => {
    if (m.type === 'key')
        store.add(m.key);
    else if (m.type === 'forget')
        store.forget(m.id);
    else {
        let reply;
        try {
            reply = { id: m.id, result: signStage(m.input, store.keys(m.certId, m.cafId)) };
        }
        catch (err) {
            reply = { id: m.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
        }
        parentPort?.postMessage(reply);
    }
});
// Compile the DTE schema now, while the worker waits for its first task, not during it.
validateXml(Buffer.from('<DTE/>'), 'DTE_v10.xsd');
parentPort?.postMessage({ type: 'ready' });
