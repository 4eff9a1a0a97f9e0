/**
 * Time in tests: a clock the test moves by hand (passed to `buildTestApp({ clock })`, so leases,
 * expiries and "today" follow it instead of sleeps), and `waitFor` for things that happen in
 * the background (a job, a write after the answer): poll a condition until a deadline, with
 * the last failure in the error. No test sleeps for a fixed time and hopes.
 */

export interface ManualClock {
  (): Date;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
  /** Sets the clock to `at`. */
  set(at: Date | string): void;
}

/** A clock standing at `start` (default: now) until moved. */
export function manualClock(start: Date | string = new Date()): ManualClock {
  let now = new Date(start).getTime();
  const clock = (() => new Date(now)) as ManualClock;
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (at) => {
    now = new Date(at).getTime();
  };
  return clock;
}

/**
 * Polls `check` until it returns a truthy value (returned) or `timeoutMs` passes (throws,
 * naming `what` and the last error `check` threw).
 */
export async function waitFor<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const what = opts.what ?? 'condition';
      throw new Error(`${what} not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
