/**
 * The background work, one mechanism for all of it: every piece of work is a row in PostgreSQL
 * with a due time and a lease (submissions to the SII, webhook deliveries, e-mails), and each
 * instance that runs jobs polls for due rows, takes a row's lease before working on it and
 * works it to its next due time. Nothing lives only in memory: a restart, or another instance,
 * picks up every due row, including one whose worker died (its lease expires), and leases keep
 * instances from doing the same row twice. Time runs on the injected clock.
 *
 * - Submissions (src/issuing/submissions.ts): looked for every JOBS_POLL_SECONDS (and when a
 *   slot frees while more were due than fit), SUBMISSION_CONCURRENCY at a time; a step writes
 *   when the next one is due into the row. The issue and resubmit calls run the first step themselves, at once
 *   (a row nobody has tried yet is left to them for FIRST_STEP_GRACE_MS). The poll
 *   interval is also the shortest gap between two steps of one submission, as it was with the
 *   pg-boss wake-ups before: waking exactly at a due time 150 ms away turned a short outage
 *   into dozens of attempts and a 30-minute backoff.
 * - Decisions on received documents (src/receiving/decisions.ts) that an SII outage left pending:
 *   looked for every JOBS_POLL_SECONDS, a batch at a time.
 * - Webhook deliveries and e-mails: every WEBHOOK_POLL_MS, and a moment after a local change
 *   (`nudge`, so the writer's transaction has committed when the worker looks).
 * - Every JOBS_SWEEP_SECONDS the list's counter deltas are folded; every EVENTS_SCAN_SECONDS
 *   the time-based events are looked for (src/issuing/time-events.ts).
 * - Intercambio mailboxes (src/receiving/mailbox-reader.ts): each is a row due every
 *   MAILBOX_POLL_SECONDS, read under its lease by one instance; due ones are looked for every
 *   JOBS_POLL_SECONDS (or MAILBOX_POLL_SECONDS when shorter).
 *   the time-based events are looked for (src/issuing/time-events.ts, and the 8-day clock's in
 *   src/receiving/deadline-events.ts).
 * - The claims registry (docs/claims-registry.md §3): every JOBS_POLL_SECONDS, received
 *   facturas whose SII reception is due to be asked (src/receiving/reception-clock.ts), each
 *   row under its own lease; and issued facturas whose customer's actions are due to be listed
 *   (src/issuing/receiver-actions.ts).
 * - Cesiones (src/cession/cession-jobs.ts): every JOBS_POLL_SECONDS, due ones (an upload to retry,
 *   an envío to ask about), one batch at a time, each under its own lease.
 *
 * An instance with JOBS_ENABLED=false runs none of it: what it stores is due in the database,
 * where the instances that run jobs find it.
 */
import type { AppContext, JobQueue } from './context.ts';
import { attemptDelivery, claimDeliveries } from './events/deliveries.ts';
import { emailEnabled, sendDueEmails } from './issuing/document-email.ts';
import { foldCounts } from './issuing/list-documents.ts';
import { dueSubmissions, runSubmission } from './issuing/submissions.ts';
import { checkReceiverActions } from './issuing/receiver-actions.ts';
import { scanTimeEvents } from './issuing/time-events.ts';
import { answerEmail } from './receiving/answer-email.ts';
import { decisionEmail } from './receiving/decision-email.ts';
import { dueDecisions, registerDecision } from './receiving/decisions.ts';
import { scanDeadlineEvents } from './receiving/deadline-events.ts';
import { checkReceptions } from './receiving/reception-clock.ts';
import { dueCessions, runCession } from './cession/cession-jobs.ts';
import { readDueMailboxes } from './receiving/mailbox-reader.ts';

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
const idle: JobQueue = {
  nudge: () => {},
  stop: async () => {},
};

export function startJobs(ctx: AppContext, opts: { work: boolean }): JobQueue {
  if (!opts.work) return idle;
  if (!emailEnabled(ctx)) ctx.log.info('SMTP_URL is not set: documents are not e-mailed to their receivers');
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  /** Runs `fn` after `ms` unless the jobs stop first; unref'd, so it never keeps a process alive. */
  const after = (ms: number, fn: () => void): NodeJS.Timeout => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) fn();
    }, ms);
    timer.unref();
    timers.add(timer);
    return timer;
  };
  const every = (ms: number, fn: () => void) => {
    const timer = setInterval(() => {
      if (!stopped) fn();
    }, ms);
    timer.unref();
    timers.add(timer);
  };

  // Submissions. Each step runs on its own, so a slow SII answer occupies one slot, not the loop.
  const steps = new Set<Promise<unknown>>();
  const running = new Set<string>();
  let claimingSteps = false;
  let moreSteps = false;
  /** The last look filled every free slot: more may be due than fit, so a freed slot looks again. */
  let backlog = false;
  const pumpSubmissions = async (): Promise<void> => {
    if (stopped) return;
    if (claimingSteps) {
      moreSteps = true;
      return;
    }
    claimingSteps = true;
    try {
      do {
        moreSteps = false;
        const room = SUBMISSION_CONCURRENCY - steps.size;
        if (room <= 0 || stopped) return;
        // Due rows nobody holds; another instance may take one first, then runSubmission answers null.
        const due = (await dueSubmissions(ctx, room)).filter((s) => !running.has(s.id));
        for (const s of due) runStep(s.id);
        backlog = due.length === room;
        if (backlog) moreSteps = true;
      } while (moreSteps && SUBMISSION_CONCURRENCY - steps.size > 0);
    } finally {
      claimingSteps = false;
    }
  };
  const runStep = (id: string) => {
    running.add(id);
    const step = runSubmission(ctx, id)
      .catch((err: unknown) => ctx.log.error({ err, submission: id }, 'submission step failed'))
      .finally(() => {
        running.delete(id);
        steps.delete(step);
        if (backlog) after(0, lookForSubmissions); // a slot is free and more may be due
      });
    steps.add(step);
  };
  const lookForSubmissions = () => {
    pumpSubmissions().catch((err: unknown) => ctx.log.error({ err }, 'submission worker failed'));
  };

  // Webhook deliveries and e-mails.
  const attempts = new Set<Promise<unknown>>();
  let claimingDeliveries = false;
  let emailing: Promise<void> | null = null;
  const pumpDeliveries = async () => {
    if (claimingDeliveries || stopped) return;
    claimingDeliveries = true;
    try {
      for (;;) {
        const room = MAX_ACTIVE_ATTEMPTS - attempts.size;
        if (room <= 0 || stopped) return;
        const claimed = await claimDeliveries(ctx, room);
        for (const d of claimed) {
          const attempt = attemptDelivery(ctx, d)
            .catch((err: unknown) => ctx.log.error({ err, delivery: d.id }, 'webhook attempt failed'))
            .finally(() => {
              attempts.delete(attempt);
              scheduleEvents(0); // a slot is free: look for more
            });
          attempts.add(attempt);
        }
        if (claimed.length < room) return;
      }
    } finally {
      claimingDeliveries = false;
    }
  };
  const pumpEmails = () => {
    if (emailing || stopped) return;
    emailing = (async () => {
      while (!stopped && (await sendDueEmails(ctx, EMAIL_READERS)) > 0) {}
    })()
      .catch((err: unknown) => ctx.log.error({ err }, 'e-mail worker failed'))
      .finally(() => {
        emailing = null;
      });
  };
  let eventsTimer: NodeJS.Timeout | null = null;
  function scheduleEvents(ms: number) {
    if (stopped) return;
    if (eventsTimer) {
      clearTimeout(eventsTimer);
      timers.delete(eventsTimer);
    }
    eventsTimer = after(ms, () => {
      eventsTimer = null;
      pumpDeliveries().catch((err: unknown) => ctx.log.error({ err }, 'webhook worker failed'));
      pumpEmails();
      scheduleEvents(ctx.config.WEBHOOK_POLL_MS);
    });
  }

  // Decisions on received documents left pending by an SII outage (src/receiving/decisions.ts):
  // one batch at a time, each under its own lease.
  let registering: Promise<void> | null = null;
  const lookForDecisions = () => {
    if (registering || stopped) return;
    registering = (async () => {
      for (const id of await dueDecisions(ctx, DECISION_BATCH)) {
        if (stopped) return;
        await registerDecision(ctx, id).catch((err: unknown) =>
          ctx.log.error({ err, decision: id }, 'decision registration failed'),
        );
      }
    })()
      .catch((err: unknown) => ctx.log.error({ err }, 'decision worker failed'))
      .finally(() => {
        registering = null;
      });
  };

  // Cesiones (src/cession/cession-jobs.ts): one batch at a time, each under its own lease.
  let ceding: Promise<void> | null = null;
  const lookForCessions = () => {
    if (ceding || stopped) return;
    ceding = (async () => {
      for (const id of await dueCessions(ctx, CESSION_BATCH)) {
        if (stopped) return;
        await runCession(ctx, id).catch((err: unknown) => ctx.log.error({ err, cession: id }, 'cesión step failed'));
      }
    })()
      .catch((err: unknown) => ctx.log.error({ err }, 'cesión worker failed'))
      .finally(() => {
        ceding = null;
      });
  };

  const scan = () => {
    scanTimeEvents(ctx).catch((err: unknown) => ctx.log.error({ err }, 'time-based event scan failed'));
    scanDeadlineEvents(ctx).catch((err: unknown) => ctx.log.error({ err }, '8-day clock event scan failed'));
  };
  // The claims registry: one pass at a time per process (each row is also under its lease).
  let registryPass: Promise<unknown> | null = null;
  const registry = () => {
    if (registryPass || stopped) return;
    registryPass = Promise.all([checkReceptions(ctx), checkReceiverActions(ctx)])
      .catch((err: unknown) => ctx.log.error({ err }, 'claims registry worker failed'))
      .finally(() => {
        registryPass = null;
      });
  };
  const fold = () => {
    // The list's counter deltas, so they stay few even when nobody lists (list-documents.ts).
    foldCounts(ctx).catch((err: unknown) => ctx.log.error({ err }, 'counter fold failed'));
  };

  // Mailboxes: one look at a time; a read that takes long delays the next look, not a second read.
  let reading: Promise<void> | null = null;
  const lookForMailboxes = () => {
    if (reading || stopped) return;
    reading = readDueMailboxes(ctx)
      .then(() => {})
      .catch((err: unknown) => ctx.log.error({ err }, 'mailbox reader failed'))
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
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Work under way finishes; a submission step or a claims registry pass gets STOP_WAIT_MS
      // (an SII call may take SII_TIMEOUT_MS), after which its lease lets another worker take it over.
      let waited: NodeJS.Timeout | undefined;
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
