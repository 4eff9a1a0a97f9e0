import { AppError } from '../errors.js';
import { cessionView, documentCessionView, LIVE_CESSION_STATES, } from '../events/cession-view.js';
/** The issuer's cesiones, newest first, filtered and paged. */
export async function listCessions(ctx, issuer, f) {
    const where = {
        issuerId: issuer.id,
        ...(f.estado && { estado: f.estado }),
        ...((f.type !== undefined || f.folio !== undefined) && {
            document: { ...(f.type !== undefined && { type: f.type }), ...(f.folio !== undefined && { folio: f.folio }) },
        }),
    };
    const [rows, total] = await Promise.all([
        ctx.db.prisma.cession.findMany({
            where,
            include: { document: { select: { type: true, folio: true } } },
            orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
            skip: (f.page - 1) * f.limit,
            take: f.limit,
        }),
        ctx.db.prisma.cession.count({ where }),
    ]);
    return {
        data: rows.map((r) => cessionView(ctx.config, issuer.rut, r, r.document)),
        total,
        page: f.page,
        limit: f.limit,
    };
}
/** The signed AEC of one of the issuer's cesiones, byte-exact, with a file name. */
export async function cessionAec(ctx, issuer, id) {
    const row = /^[0-9a-f-]{36}$/i.test(id)
        ? await ctx.db.prisma.cession.findFirst({
            where: { id, issuerId: issuer.id },
            include: { document: { select: { type: true, folio: true } } },
        })
        : null;
    if (!row)
        throw new AppError('CESSION_NOT_FOUND', `No cesión ${id} exists for ${issuer.rut}.`);
    return {
        body: Buffer.from(row.aec),
        filename: `AEC_${issuer.rut}_T${row.document.type}_F${row.document.folio}_S${row.seq}.xml`,
    };
}
/** The live cesión (in flight or accepted) of each of these documents, by document id. */
export async function liveCessionsOf(ctx, issuerId, documentIds) {
    if (documentIds.length === 0)
        return new Map();
    const rows = await ctx.db.prisma.cession.findMany({
        where: { issuerId, documentId: { in: documentIds }, estado: { in: [...LIVE_CESSION_STATES] } },
    });
    return new Map(rows.map((r) => [r.documentId, documentCessionView(r)]));
}
/** Every cesión of one of the issuer's documents, newest first (the document's page). */
export async function cessionsOfDocument(ctx, issuer, doc) {
    const rows = await ctx.db.prisma.cession.findMany({
        where: { issuerId: issuer.id, documentId: doc.id },
        orderBy: { createdAt: 'desc' },
    });
    return rows.map((r) => cessionView(ctx.config, issuer.rut, r, doc));
}
