/**
 * Worker threads of Timbre's own modules (the signing pool, the PDF renderer, the checks of
 * received envelopes): the compiled `.js` beside the caller in `dist/`, or in development and
 * tests the `.ts` through tsx's loader. `resourceLimits` apply to the compiled worker only (the
 * tsx loader needs more heap than the cap a production worker gets).
 */
import { Worker } from 'node:worker_threads';
/** Starts `<stem>.js` (or `<stem>.ts`) next to the module whose `import.meta.url` is `caller`. */
export function startModuleWorker(caller, stem, resourceLimits) {
    if (!caller.endsWith('.ts'))
        return new Worker(new URL(`${stem}.js`, caller), resourceLimits && { resourceLimits });
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL(`${stem}.ts`, caller).href;
    const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true });
}
