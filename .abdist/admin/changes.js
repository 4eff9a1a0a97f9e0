import { notifyChange } from '../db/change-feed.js';
export async function changing(ctx, change, work) {
    const result = await ctx.db.prisma.$transaction(async (tx) => {
        const value = await work(tx);
        await notifyChange(tx, change);
        return value;
    });
    ctx.caches.apply(change);
    return result;
}
