/**
 * A document and its notes, both ways: the notes (56, 61) of the issuer that reference it, and
 * the note that voided it. The dashboard's document page links them to each other; the
 * voiding note is also the API's `voided_by`.
 */
import type { AppContext } from '../context.ts';
import type { Document } from '../generated/prisma/client.ts';
import type { EstadoSii } from './document-state.ts';
import { documentContent } from './document-content.ts';

export interface NoteOfDocument {
  type: number;
  folio: number;
  estadoSii: EstadoSii;
  /** CodRef of the note's reference to the document: 1 voids, 2 corrects text, 3 corrects amounts. */
  code: 1 | 2 | 3 | null;
}

/**
 * The notes that reference `document`, oldest first. A note is addressed to the receiver of the
 * document it modifies (references.ts checks it), so the partial index of notes by receiver
 * finds the few candidates; their references are then read from the model.
 */
export async function notesOfDocument(
  ctx: AppContext,
  document: Pick<Document, 'issuerId' | 'environment' | 'receiverRut' | 'type' | 'folio'>,
): Promise<NoteOfDocument[]> {
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
  const out: NoteOfDocument[] = [];
  for (const n of notes) {
    const refs = (await documentContent(ctx, n)).model.refs ?? [];
    const ref = refs.find((r) => r.type === String(document.type) && r.folio === String(document.folio));
    if (ref) out.push({ type: n.type, folio: n.folio, estadoSii: n.estadoSii, code: ref.code ?? null });
  }
  return out;
}

/** The note that voided the document (`voided_by_id`), if any. */
export async function voidingNote(
  ctx: AppContext,
  document: Pick<Document, 'voidedById'>,
): Promise<{ type: number; folio: number } | null> {
  if (!document.voidedById) return null;
  return ctx.db.prisma.document.findUnique({
    where: { id: document.voidedById },
    select: { type: true, folio: true },
  });
}
