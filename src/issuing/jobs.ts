/**
 * Background work on PostgreSQL with pg-boss (docs/design.md §2, §6): submitting live documents to the
 * SII and polling them to a final state. Everything that must survive is in Timbre's own
 * `submissions` table (src/issuing/submissions.ts); pg-boss jobs are the wake-ups that run a
 * submission's next step at its due time, delivered to one worker among all instances.
 *
 * Nothing is lost if a wake-up is: each worker sweeps at start and every JOBS_SWEEP_SECONDS,
 * re-sending a wake-up for every due submission nobody holds. Duplicate wake-ups are harmless: a step first takes the submission's lease and checks
 * that it is due. Webhook deliveries, e-mails and time-based events run beside it
 * (src/events/jobs.ts).
 */
import PgBoss from 'pg-boss';
import type { AppContext, JobQueue } from '../context.ts';
import { foldCounts } from './list-documents.ts';
import { dueSubmissions, runSubmission } from './submissions.ts';

const STEP_QUEUE = 'sii-submission-step';

export type { JobQueue };

/** A queue that only sends wake-ups (JOBS_ENABLED=false: another instance does the work). */
/** Other background work started and stopped with the queue (the events worker, src/events/jobs.ts). */
export interface Worker {
  nudge(): void;
  stop(): Promise<void>;
}

export async function startJobs(
  ctx: AppContext,
  opts: { work: boolean; startWorker?: (ctx: AppContext) => Worker },
): Promise<JobQueue> {
  const boss = new PgBoss({
    connectionString: ctx.db.url,
    schema: 'pgboss',
    max: 4,
    application_name: 'timbre-jobs',
    // A step that was active when its process died is retried after this long.
    expireInSeconds: 5 * 60,
    retryLimit: 1000,
    retryDelay: 5,
    retryBackoff: true,
    schedule: false,
    supervise: opts.work,
  });
  boss.on('error', (err) => ctx.log.error({ err }, 'job queue error'));
  await boss.start();
  await boss.createQueue(STEP_QUEUE);

  const wake = async (submissionId: string, at?: Date | null) => {
    const startAfter = at && at.getTime() > Date.now() ? at : undefined;
    await boss.send(STEP_QUEUE, { submissionId }, startAfter ? { startAfter } : {});
  };

  const sweep = async () => {
    const due = await dueSubmissions(ctx);
    for (const s of due) await wake(s.id);
    return due.length;
  };

  let timer: NodeJS.Timeout | null = null;
  const events = opts.work && opts.startWorker ? opts.startWorker(ctx) : null;
  if (opts.work) {
    const pollingIntervalSeconds = ctx.config.JOBS_POLL_SECONDS;
    await boss.work<{ submissionId: string }>(STEP_QUEUE, { pollingIntervalSeconds, batchSize: 4 }, async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const result = await runSubmission(ctx, job.data.submissionId);
          if (result?.nextRunAt) await wake(job.data.submissionId, result.nextRunAt);
        }),
      );
    });
    await sweep();
    timer = setInterval(() => {
      sweep().catch((err: unknown) => ctx.log.error({ err }, 'submission sweep failed'));
      // The list's counter deltas, so they stay few even when nobody lists (list-documents.ts).
      foldCounts(ctx).catch((err: unknown) => ctx.log.error({ err }, 'counter fold failed'));
    }, ctx.config.JOBS_SWEEP_SECONDS * 1000);
    timer.unref();
  }

  return {
    wake,
    sweep,
    nudge: () => events?.nudge(),
    async stop() {
      if (timer) clearInterval(timer);
      await events?.stop();
      await boss.stop({ graceful: true, timeout: 10_000, wait: true });
    },
  };
}
