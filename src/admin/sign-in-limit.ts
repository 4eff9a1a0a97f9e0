/**
 * The sign-in limit (docs/sign-in.md): every attempt is counted, in one statement, BEFORE its
 * password is checked, so that concurrent attempts cannot all read "under the limit" and then
 * all be checked (counting after the check let 19 of 20 concurrent guesses through a limit of 10).
 *
 * Three counters per attempt, each a row of `sign_in_attempts` in a fixed 15-minute window,
 * shared by every instance:
 *
 * - `pair:<e-mail> <address>`: 10. The guesser at one address is stopped after 10 tries on an
 *   e-mail, and stopping them does not stop the owner at their own address.
 * - `ip:<address>`: 30, whatever the e-mail (one address trying many accounts).
 * - `email:<e-mail>`: 100, a much higher ceiling for guesses spread over many addresses. Only an
 *   attacker with more than ten addresses reaches it, and while it holds the owner still gets
 *   in by a one-time link ("¿Olvidaste tu contraseña?"), which this limit never blocks; setting a
 *   new password through one clears the e-mail's counters.
 *
 * A successful sign-in gives its attempt back (each counter minus one), so that people who sign in
 * every day never approach a limit.
 */
import type { AppContext } from '../context.ts';

const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_LIMITS = { pair: 10, ip: 30, email: 100 } as const;

export interface AttemptVerdict {
  allowed: boolean;
  /** Seconds until the window that refused the attempt ends (0 when allowed). */
  retryAfterSeconds: number;
  /** The counters of this attempt, to give back on success. */
  keys: string[];
}

function keysOf(email: string, address: string): { key: string; limit: number }[] {
  return [
    { key: `pair:${email} ${address}`, limit: SIGN_IN_LIMITS.pair },
    { key: `ip:${address}`, limit: SIGN_IN_LIMITS.ip },
    { key: `email:${email}`, limit: SIGN_IN_LIMITS.email },
  ];
}

/**
 * Counts one attempt on every counter and says whether it may be checked. One INSERT … ON
 * CONFLICT DO UPDATE … RETURNING: the increment and the count it returns are one atomic step
 * per row (the row lock serialises concurrent attempts), so of N concurrent attempts exactly
 * the first `limit` see a count within the limit. Rows are taken in key order (no deadlock).
 */
export async function countAttempt(ctx: AppContext, email: string, address: string): Promise<AttemptVerdict> {
  const counters = keysOf(email, address);
  const now = ctx.clock();
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
  const keys = counters.map((c) => c.key).sort();
  const rows = await ctx.db.prisma.$queryRaw<{ key: string; count: number; window_start: Date }[]>`
    INSERT INTO sign_in_attempts (key, count, window_start)
    SELECT k, 1, ${now} FROM unnest(${keys}::text[]) AS k ORDER BY k
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN sign_in_attempts.window_start <= ${since} THEN 1 ELSE sign_in_attempts.count + 1 END,
      window_start = CASE WHEN sign_in_attempts.window_start <= ${since} THEN ${now}
                          ELSE sign_in_attempts.window_start END
    RETURNING key, count, window_start`;
  let retryAfterMs = 0;
  for (const row of rows) {
    const limit = counters.find((c) => c.key === row.key)?.limit ?? 0;
    if (row.count > limit) {
      retryAfterMs = Math.max(retryAfterMs, row.window_start.getTime() + SIGN_IN_WINDOW_MS - now.getTime());
    }
  }
  return {
    allowed: retryAfterMs === 0,
    retryAfterSeconds: retryAfterMs === 0 ? 0 : Math.max(1, Math.ceil(retryAfterMs / 1000)),
    keys,
  };
}

/** A successful sign-in: its attempt does not count. */
export async function giveBackAttempt(ctx: AppContext, keys: string[]): Promise<void> {
  await ctx.db.prisma.$executeRaw`
    UPDATE sign_in_attempts SET count = GREATEST(count - 1, 0) WHERE key = ANY(${keys}::text[])`;
}

/** Old windows are of no use; dropping them after a failure keeps the table small without a job. */
export async function forgetOldAttempts(ctx: AppContext): Promise<void> {
  const since = new Date(ctx.clock().getTime() - SIGN_IN_WINDOW_MS);
  await ctx.db.prisma.signInAttempt.deleteMany({ where: { windowStart: { lt: since } } });
}

/** A new password was set through a one-time link: the e-mail's lock (if any) ends. */
export async function clearAttemptsOf(ctx: AppContext, email: string): Promise<void> {
  await ctx.db.prisma.signInAttempt.deleteMany({
    where: { OR: [{ key: `email:${email}` }, { key: { startsWith: `pair:${email} ` } }] },
  });
}

/** The key the pre-session CSRF tokens of the public forms are signed with (src/web/plugin.ts). */
export function preSessionCsrfKey(ctx: AppContext): Buffer {
  return ctx.db.secrets.derive('pre-session-csrf');
}
