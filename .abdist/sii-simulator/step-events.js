/**
 * The simulator's asynchronous processing (DTE envelopes, AECs) moves in timed steps; tests wait
 * for every upload to reach its final state. Shared by processing.ts and rpetc-store.ts.
 */
import { EventEmitter } from 'node:events';
export class StepEvents {
    events = new EventEmitter();
    /** Called after each processing step. */
    stepped() {
        this.events.emit('step');
    }
    /** Resolves once `done()` holds, checked now and after every step. */
    settled(done) {
        return new Promise((resolve) => {
            const check = () => {
                if (done()) {
                    this.events.off('step', check);
                    resolve();
                }
            };
            this.events.on('step', check);
            check();
        });
    }
}
