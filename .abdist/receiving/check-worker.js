/**
 * The worker thread of the received-envelope checker (check-pool.ts): runs `checkReceived` on
 * the bytes it is sent, asking the main thread each duplicate lookup (the database is there),
 * and answers the outcome. Several checks may be in flight; each waits only for its own lookups.
 */
import { parentPort } from 'node:worker_threads';
import { validateXml } from '../dte/xsd.js';
import { checkReceived } from './checks.js';
const port = parentPort;
/** The lookups asked and not answered yet, by their number (unique in the worker). */
const waiting = new Map();
let nextQ = 1;
function ask(id, lookup) {
    const q = nextQ++;
    return new Promise((resolve, reject) => {
        waiting.set(q, { resolve, reject });
        port?.postMessage({ type: 'ask', id, q, lookup });
    });
}
async function run(m) {
    const ctx = {
        receiverRut: m.receiverRut,
        trustedCafKeys: m.trustedCafKeys,
        seenFile: (sha256) => ask(m.id, { kind: 'file', sha256 }),
        seenDocument: (issuerRut, type, folio) => ask(m.id, { kind: 'document', issuerRut, type, folio }),
    };
    let reply;
    try {
        const bytes = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
        reply = { type: 'done', id: m.id, outcome: await checkReceived(bytes, ctx) };
    }
    catch (err) {
        reply = { type: 'error', id: m.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port?.postMessage(reply);
}
port?.on('message', (m) => {
    if (m.type === 'check') {
        void run(m);
        return;
    }
    const w = waiting.get(m.q);
    waiting.delete(m.q);
    if (m.type === 'seen')
        w?.resolve(m.seen);
    else
        w?.reject(new Error('the lookup failed on the main thread'));
});
// Compile the envelope schema now, not during the first check.
validateXml(Buffer.from('<EnvioDTE/>'), 'EnvioDTE_v10.xsd');
