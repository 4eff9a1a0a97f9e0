import { documentContent } from './document-content.js';
/**
 * The notes that reference `document`, oldest first. A note is addressed to the receiver of the
 * document it modifies (references.ts checks it), so the partial index of notes by receiver
 * finds the few candidates; their references are then read from the model.
 */
export async function notesOfDocument(ctx, document) {
    const notes = await ctx.db.prisma.document.findMany({
        where: {
            issuerId: document.issuerId,
            environment: document.environment,
            receiverRut: document.receiverRut,
            type: { in: [56, 61] },
        },
        select: {
            type: true,
            folio: true,
            estadoSii: true,
            issuerId: true,
            signedXml: true,
            ted: true,
            model: true,
            request: true,
        },
        orderBy: { createdAt: 'asc' },
    });
    const out = [];
    for (const n of notes) {
        const refs = (await documentContent(ctx, n)).model.refs ?? [];
        const ref = refs.find((r) => r.type === String(document.type) && r.folio === String(document.folio));
        if (ref)
            out.push({ type: n.type, folio: n.folio, estadoSii: n.estadoSii, code: ref.code ?? null });
    }
    return out;
}
/** The note that voided the document (`voided_by_id`), if any. */
export async function voidingNote(ctx, document) {
    if (!document.voidedById)
        return null;
    return ctx.db.prisma.document.findUnique({
        where: { id: document.voidedById },
        select: { type: true, folio: true },
    });
}
