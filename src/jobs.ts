/**
 * The events side of the background work (DESIGN §9): webhook deliveries and e-mails are rows
 * in PostgreSQL; each worker instance looks for due ones every WEBHOOK_POLL_MS and at once
 * after a local change (`nudge`, a moment after the writer's commit), and scans for
 * time-based events every EVENTS_SCAN_SECONDS. Nothing lives only in memory: a restart picks up
 * every due row, and leases keep instances from doing the same row twice.
 */
import type { AppContext } from './context.ts';
import { attemptDelivery, claimDeliveries } from './events/deliveries.ts';
import { emailEnabled, sendDueEmails } from './issuing/document-email.ts';
import { scanTimeEvents } from './issuing/time-events.ts';

export interface EventWorker {
  nudge(): void;
  stop(): Promise<void>;
}

/** Delay after a nudge, so the writer's transaction has committed when the worker looks. */
const NUDGE_DELAY_MS = 25;

/** Webhook attempts one process runs at once (each endpoint also has its own bound). */
const MAX_ACTIVE_ATTEMPTS = 32;

export function startEventWorker(ctx: AppContext): EventWorker {
  if (!emailEnabled(ctx)) ctx.log.info('SMTP_URL is not set: documents are not e-mailed to their receivers');
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  // Each attempt runs on its own: a slow receiver occupies only its own slots, never the loop.
  const active = new Set<Promise<unknown>>();
  let claiming = false;
  let emailing: Promise<void> | null = null;

  const pumpDeliveries = async () => {
    if (claiming || stopped) return;
    claiming = true;
    try {
      for (;;) {
        const room = MAX_ACTIVE_ATTEMPTS - active.size;
        if (room <= 0 || stopped) return;
        const claimed = await claimDeliveries(ctx, room);
        for (const d of claimed) {
          const attempt = attemptDelivery(ctx, d)
            .catch((err: unknown) => ctx.log.error({ err, delivery: d.id }, 'webhook attempt failed'))
            .finally(() => {
              active.delete(attempt);
              schedule(0); // a slot is free: look for more
            });
          active.add(attempt);
        }
        if (claimed.length < room) return;
      }
    } finally {
      claiming = false;
    }
  };
  const pumpEmails = () => {
    if (emailing || stopped) return;
    emailing = (async () => {
      while (!stopped && (await sendDueEmails(ctx)) > 0) {}
    })()
      .catch((err: unknown) => ctx.log.error({ err }, 'e-mail worker failed'))
      .finally(() => {
        emailing = null;
      });
  };
  const tick = () => {
    pumpDeliveries().catch((err: unknown) => ctx.log.error({ err }, 'webhook worker failed'));
    pumpEmails();
  };
  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      tick();
      schedule(ctx.config.WEBHOOK_POLL_MS);
    }, ms);
    timer.unref();
  }
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
      await Promise.all([...active, emailing]);
    },
  };
}
