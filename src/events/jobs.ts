/**
 * The events side of the background work (DESIGN §9): webhook deliveries and e-mails are rows
 * in PostgreSQL; each worker instance looks for due ones every WEBHOOK_POLL_MS and at once
 * after a local change (`nudge`, a moment after the writer's commit), and scans for
 * time-based events every EVENTS_SCAN_SECONDS. Nothing lives only in memory: a restart picks up
 * every due row, and leases keep instances from doing the same row twice.
 */
import type { AppContext } from '../context.ts';
import { deliverDue } from './deliveries.ts';
import { emailEnabled, sendDueEmails } from './email.ts';
import { scanTimeEvents } from './scheduled.ts';

export interface EventWorker {
  nudge(): void;
  stop(): Promise<void>;
}

/** Delay after a nudge, so the writer's transaction has committed when the worker looks. */
const NUDGE_DELAY_MS = 25;

export function startEventWorker(ctx: AppContext): EventWorker {
  if (!emailEnabled(ctx)) ctx.log.info('SMTP_URL is not set: documents are not e-mailed to their receivers');
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;

  const runOnce = async () => {
    for (;;) {
      const [deliveries, emails] = await Promise.all([deliverDue(ctx), sendDueEmails(ctx)]);
      if (deliveries === 0 && emails === 0) return;
    }
  };
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = runOnce()
      .catch((err: unknown) => ctx.log.error({ err }, 'event worker failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      run();
      schedule(ctx.config.WEBHOOK_POLL_MS);
    }, ms);
    timer.unref();
  };
  schedule(0);

  const scan = () => {
    scanTimeEvents(ctx).catch((err: unknown) => ctx.log.error({ err }, 'time-based event scan failed'));
  };
  scan();
  const scanTimer = setInterval(scan, ctx.config.EVENTS_SCAN_SECONDS * 1000);
  scanTimer.unref();

  return {
    nudge() {
      schedule(NUDGE_DELAY_MS);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      clearInterval(scanTimer);
      await running;
    },
  };
}
