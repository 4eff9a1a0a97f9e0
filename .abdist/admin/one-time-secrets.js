const TTL_MS = 10 * 60 * 1000;
/** Stores `secret` for one read by `sessionId`; returns the id the redirect names. */
export async function holdSecret(ctx, input) {
    const now = ctx.clock();
    // Secrets whose page was never opened: removed by the next one held (they are few).
    await ctx.db.prisma.oneTimeSecret.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - TTL_MS) } } });
    const row = await ctx.db.prisma.oneTimeSecret.create({
        data: {
            sessionId: input.sessionId,
            kind: input.kind,
            label: input.label,
            secretEncrypted: new Uint8Array(ctx.db.secrets.seal(input.secret)),
            createdAt: now,
        },
    });
    return row.id;
}
/**
 * The secret and its label, once: the read deletes it, and only the reader whose delete took
 * the row gets it (two tabs racing on one redirect cannot both see it). Null when already
 * read, expired, of another session or kind, or unknown.
 */
export async function takeSecret(ctx, input) {
    if (!/^[0-9a-f-]{36}$/i.test(input.id))
        return null;
    const where = { id: input.id, sessionId: input.sessionId, kind: input.kind };
    const row = await ctx.db.prisma.oneTimeSecret.findFirst({ where });
    if (!row)
        return null;
    const { count } = await ctx.db.prisma.oneTimeSecret.deleteMany({ where });
    if (count !== 1 || ctx.clock().getTime() - row.createdAt.getTime() > TTL_MS)
        return null;
    return {
        secret: ctx.db.secrets.open(row.secretEncrypted).toString('utf8'),
        label: row.label,
    };
}
