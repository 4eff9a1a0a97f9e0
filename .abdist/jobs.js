import { attemptDelivery, claimDeliveries } from './events/deliveries.js';
import { emailEnabled, sendDueEmails } from './issuing/document-email.js';
import { foldCounts } from './issuing/list-documents.js';
import { dueSubmissions, runSubmission } from './issuing/submissions.js';
import { checkReceiverActions } from './issuing/receiver-actions.js';
import { scanTimeEvents } from './issuing/time-events.js';
import { answerEmail } from './receiving/answer-email.js';
import { decisionEmail } from './receiving/decision-email.js';
import { dueDecisions, registerDecision } from './receiving/decisions.js';
import { scanDeadlineEvents } from './receiving/deadline-events.js';
import { checkReceptions } from './receiving/reception-clock.js';
import { dueCessions, runCession } from './cession/cession-jobs.js';
import { readDueMailboxes } from './receiving/mailbox-reader.js';
/** The outbox rows that are not an issued document's, read by the part that owns them. */
export const EMAIL_READERS = [decisionEmail, answerEmail];
/** Delay after a nudge, so the writer's transaction has committed when the worker looks. */
const NUDGE_DELAY_MS = 25;
/** Webhook attempts one process runs at once (each endpoint also has its own bound). */
const MAX_ACTIVE_ATTEMPTS = 32;
/** Submission steps one process runs at once (each is one SII call, under its own lease). */
const SUBMISSION_CONCURRENCY = 4;
/** Pending decisions one look registers, one after the other (each a call or two to the SII). */
const DECISION_BATCH = 10;
/** Cesión steps one look runs, one after the other (each a call or two to the SII). */
const CESSION_BATCH = 10;
/** How long stopping waits for the submission steps under way before leaving them to their leases. */
const STOP_WAIT_MS = 10_000;
/** A queue whose work other instances do (JOBS_ENABLED=false): due rows wait in the database. */
const idle = {
    nudge: () => { },
    stop: async () => { },
};
export function startJobs(ctx, opts) {
    if (!opts.work)
        return idle;
    if (!emailEnabled(ctx))
        ctx.log.info('SMTP_URL is not set: documents are not e-mailed to their receivers');
    let stopped = false;
    const timers = new Set();
    /** Runs `fn` after `ms` unless the jobs stop first; unref'd, so it never keeps a process alive. */
    const after = (ms, fn) => {
        const timer = setTimeout(() => {
            timers.delete(timer);
            if (!stopped)
                fn();
        }, ms);
        timer.unref();
        timers.add(timer);
        return timer;
    };
    const every = (ms, fn) => {
        const timer = setInterval(() => {
            if (!stopped)
                fn();
        }, ms);
        timer.unref();
        timers.add(timer);
    };
    // Submissions. Each step runs on its own, so a slow SII answer occupies one slot, not the loop.
    const steps = new Set();
    const running = new Set();
    let claimingSteps = false;
    let moreSteps = false;
    /** The last look filled every free slot: more may be due than fit, so a freed slot looks again. */
    let backlog = false;
    const pumpSubmissions = async () => {
        if (stopped)
            return;
        if (claimingSteps) {
            moreSteps = true;
            return;
        }
        claimingSteps = true;
        try {
            do {
                moreSteps = false;
                const room = SUBMISSION_CONCURRENCY - steps.size;
                if (room <= 0 || stopped)
                    return;
                // Due rows nobody holds; another instance may take one first, then runSubmission answers null.
                const due = (await dueSubmissions(ctx, room)).filter((s) => !running.has(s.id));
                for (const s of due)
                    runStep(s.id);
                backlog = due.length === room;
                if (backlog)
                    moreSteps = true;
            } while (moreSteps && SUBMISSION_CONCURRENCY - steps.size > 0);
        }
        finally {
            claimingSteps = false;
        }
    };
    const runStep = (id) => {
        running.add(id);
        const step = runSubmission(ctx, id)
            .catch((err) => ctx.log.error({ err, submission: id }, 'submission step failed'))
            .finally(() => {
            running.delete(id);
            steps.delete(step);
            if (backlog)
                after(0, lookForSubmissions); // a slot is free and more may be due
        });
        steps.add(step);
    };
    const lookForSubmissions = () => {
        pumpSubmissions().catch((err) => ctx.log.error({ err }, 'submission worker failed'));
    };
    // Webhook deliveries and e-mails.
    const attempts = new Set();
    let claimingDeliveries = false;
    let emailing = null;
    const pumpDeliveries = async () => {
        if (claimingDeliveries || stopped)
            return;
        claimingDeliveries = true;
        try {
            for (;;) {
                const room = MAX_ACTIVE_ATTEMPTS - attempts.size;
                if (room <= 0 || stopped)
                    return;
                const claimed = await claimDeliveries(ctx, room);
                for (const d of claimed) {
                    const attempt = attemptDelivery(ctx, d)
                        .catch((err) => ctx.log.error({ err, delivery: d.id }, 'webhook attempt failed'))
                        .finally(() => {
                        attempts.delete(attempt);
                        scheduleEvents(0); // a slot is free: look for more
                    });
                    attempts.add(attempt);
                }
                if (claimed.length < room)
                    return;
            }
        }
        finally {
            claimingDeliveries = false;
        }
    };
    const pumpEmails = () => {
        if (emailing || stopped)
            return;
        emailing = (async () => {
            while (!stopped && (await sendDueEmails(ctx, EMAIL_READERS)) > 0) { }
        })()
            .catch((err) => ctx.log.error({ err }, 'e-mail worker failed'))
            .finally(() => {
            emailing = null;
        });
    };
    let eventsTimer = null;
    function scheduleEvents(ms) {
        if (stopped)
            return;
        if (eventsTimer) {
            clearTimeout(eventsTimer);
            timers.delete(eventsTimer);
        }
        eventsTimer = after(ms, () => {
            eventsTimer = null;
            pumpDeliveries().catch((err) => ctx.log.error({ err }, 'webhook worker failed'));
            pumpEmails();
            scheduleEvents(ctx.config.WEBHOOK_POLL_MS);
        });
    }
    // Decisions on received documents left pending by an SII outage (src/receiving/decisions.ts):
    // one batch at a time, each under its own lease.
    let registering = null;
    const lookForDecisions = () => {
        if (registering || stopped)
            return;
        registering = (async () => {
            for (const id of await dueDecisions(ctx, DECISION_BATCH)) {
                if (stopped)
                    return;
                await registerDecision(ctx, id).catch((err) => ctx.log.error({ err, decision: id }, 'decision registration failed'));
            }
        })()
            .catch((err) => ctx.log.error({ err }, 'decision worker failed'))
            .finally(() => {
            registering = null;
        });
    };
    // Cesiones (src/cession/cession-jobs.ts): one batch at a time, each under its own lease.
    let ceding = null;
    const lookForCessions = () => {
        if (ceding || stopped)
            return;
        ceding = (async () => {
            for (const id of await dueCessions(ctx, CESSION_BATCH)) {
                if (stopped)
                    return;
                await runCession(ctx, id).catch((err) => ctx.log.error({ err, cession: id }, 'cesión step failed'));
            }
        })()
            .catch((err) => ctx.log.error({ err }, 'cesión worker failed'))
            .finally(() => {
            ceding = null;
        });
    };
    const scan = () => {
        scanTimeEvents(ctx).catch((err) => ctx.log.error({ err }, 'time-based event scan failed'));
        scanDeadlineEvents(ctx).catch((err) => ctx.log.error({ err }, '8-day clock event scan failed'));
    };
    // The claims registry: one pass at a time per process (each row is also under its lease).
    let registryPass = null;
    const registry = () => {
        if (registryPass || stopped)
            return;
        registryPass = Promise.all([checkReceptions(ctx), checkReceiverActions(ctx)])
            .catch((err) => ctx.log.error({ err }, 'claims registry worker failed'))
            .finally(() => {
            registryPass = null;
        });
    };
    const fold = () => {
        // The list's counter deltas, so they stay few even when nobody lists (list-documents.ts).
        foldCounts(ctx).catch((err) => ctx.log.error({ err }, 'counter fold failed'));
    };
    // Mailboxes: one look at a time; a read that takes long delays the next look, not a second read.
    let reading = null;
    const lookForMailboxes = () => {
        if (reading || stopped)
            return;
        reading = readDueMailboxes(ctx)
            .then(() => { })
            .catch((err) => ctx.log.error({ err }, 'mailbox reader failed'))
            .finally(() => {
            reading = null;
        });
    };
    lookForSubmissions();
    every(ctx.config.JOBS_POLL_SECONDS * 1000, lookForSubmissions);
    lookForDecisions();
    every(ctx.config.JOBS_POLL_SECONDS * 1000, lookForDecisions);
    lookForCessions();
    every(ctx.config.JOBS_POLL_SECONDS * 1000, lookForCessions);
    scheduleEvents(0);
    scan();
    every(ctx.config.EVENTS_SCAN_SECONDS * 1000, scan);
    every(ctx.config.JOBS_SWEEP_SECONDS * 1000, fold);
    lookForMailboxes();
    every(Math.min(ctx.config.JOBS_POLL_SECONDS, ctx.config.MAILBOX_POLL_SECONDS) * 1000, lookForMailboxes);
    registry();
    every(ctx.config.JOBS_POLL_SECONDS * 1000, registry);
    return {
        nudge() {
            scheduleEvents(NUDGE_DELAY_MS);
        },
        async stop() {
            stopped = true;
            for (const timer of timers)
                clearTimeout(timer);
            timers.clear();
            // Work under way finishes; a submission step or a claims registry pass gets STOP_WAIT_MS
            // (an SII call may take SII_TIMEOUT_MS), after which its lease lets another worker take it over.
            let waited;
            const stepsDone = Promise.race([
                Promise.all([...steps, registryPass]),
                new Promise((resolve) => {
                    waited = setTimeout(resolve, STOP_WAIT_MS);
                }),
            ]);
            await Promise.all([stepsDone, ...attempts, emailing, reading, registering, ceding]);
            clearTimeout(waited);
        },
    };
}
