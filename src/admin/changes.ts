/**
 * Operator changes take effect at once, on every instance: a use case that changes what a
 * running service may hold in memory announces it in the same transaction (NOTIFY, delivered
 * at commit, src/db/change-feed.ts), and applies it to its own process's caches right after the
 * commit, so the next request here does not wait for the notice to come back.
 */
import type { OperatorChange } from '../caches.ts';
import type { AppContext } from '../context.ts';
import type { Prisma } from '../db/database.ts';
import { notifyChange } from '../db/change-feed.ts';

export async function changing<T>(
  ctx: AppContext,
  change: OperatorChange,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const result = await ctx.db.prisma.$transaction(async (tx) => {
    const value = await work(tx);
    await notifyChange(tx, change);
    return value;
  });
  ctx.caches.apply(change);
  return result;
}
