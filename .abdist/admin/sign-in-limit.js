const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_LIMITS = { pair: 10, ip: 30, email: 100 };
function keysOf(email, address) {
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
export async function countAttempt(ctx, email, address) {
    const counters = keysOf(email, address);
    const now = ctx.clock();
    const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
    const keys = counters.map((c) => c.key).sort();
    const rows = await ctx.db.prisma.$queryRaw `
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
export async function giveBackAttempt(ctx, keys) {
    await ctx.db.prisma.$executeRaw `
    UPDATE sign_in_attempts SET count = GREATEST(count - 1, 0) WHERE key = ANY(${keys}::text[])`;
}
/** Old windows are of no use; dropping them after a failure keeps the table small without a job. */
export async function forgetOldAttempts(ctx) {
    const since = new Date(ctx.clock().getTime() - SIGN_IN_WINDOW_MS);
    await ctx.db.prisma.signInAttempt.deleteMany({ where: { windowStart: { lt: since } } });
}
/** A new password was set through a one-time link: the e-mail's lock (if any) ends. */
export async function clearAttemptsOf(ctx, email) {
    await ctx.db.prisma.signInAttempt.deleteMany({
        where: { OR: [{ key: `email:${email}` }, { key: { startsWith: `pair:${email} ` } }] },
    });
}
/** The key the pre-session CSRF tokens of the public forms are signed with (src/web/plugin.ts). */
export function preSessionCsrfKey(ctx) {
    return ctx.db.secrets.derive('pre-session-csrf');
}
