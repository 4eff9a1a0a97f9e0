/**
 * The references of a note (56/61) or of any document that names another one (FMT "Referencias"):
 * checked against the issuer's own documents before a folio is reserved, and the effect an
 * issued note has on the document it voids.
 *
 * Rule 3 of issue 9, the part that needs the referenced document ([FMT] Referencias: TpoDocRef,
 * FolioRef, FchRef, CodRef; [MUE] notes): same receiver RUT, FchRef equal to its date, a voiding
 * note repeats its totals, a note correcting amounts never credits more than what remains after
 * earlier notes, and a 56 that voids a 61 restores the document the 61 had voided.
 */
import type { AppContext } from '../context.ts';
import { DTE_TYPES, type DteDocument, type DteType, type ReceiverInfo } from '../dte/model.ts';
import { AppError, validationError } from '../errors.ts';
import type { Document, Environment, Issuer, Prisma } from '../generated/prisma/client.ts';

const isOwnDteType = (t: string): t is `${DteType}` => (DTE_TYPES as readonly number[]).map(String).includes(t);

export interface ReferenceCheck {
  /** The document a 61 (or a 56 voiding a 61) voids. */
  voided: Document | null;
  /** The referenced own document of a note, whose receiver fills a 61's missing fields. */
  target: Document | null;
}

/** Checks references to documents of this issuer (throws a 400 naming the reference). */
export async function checkReferences(
  ctx: AppContext,
  issuer: Issuer,
  env: Environment,
  doc: DteDocument,
): Promise<ReferenceCheck> {
  const note = doc.type === 56 || doc.type === 61;
  const out: ReferenceCheck = { voided: null, target: null };
  for (const [i, ref] of doc.refs.entries()) {
    // References to the electronic types Timbre issues must point at a document this issuer
    // really issued (in the same environment). Other reference types (paper documents 30…,
    // 801 orden de compra, 802 nota de pedido, SET, …) cannot be checked and are accepted.
    if (!isOwnDteType(ref.type) || !/^\d+$/.test(ref.folio)) continue;
    const target = await ctx.db.prisma.document.findUnique({
      where: {
        issuerId_type_folio_environment: {
          issuerId: issuer.id,
          type: Number(ref.type),
          folio: Number(ref.folio),
          environment: env,
        },
      },
    });
    if (!target) {
      throw new AppError(
        'REFERENCE_NOT_FOUND',
        `refs[${i}]: this issuer has no ${env} document of type ${ref.type} with folio ${ref.folio}.`,
        {
          details: [
            { path: `refs[${i}].folio`, message: `no ${env} document of type ${ref.type} with folio ${ref.folio}` },
          ],
        },
      );
    }
    if (!note || ref.code === undefined) continue;
    out.target = target;
    const name = `${ref.type}/${ref.folio}`;
    // A note modifies a document of the same receiver ([FMT] Referencias; the SII cross-checks
    // the RUTRecep of both).
    if (target.receiverRut !== doc.receiver.rut) {
      throw validationError(
        'receiver.rut',
        `must be the receiver of the referenced document ${name} (${target.receiverRut})`,
      );
    }
    // FchRef is the referenced document's FchEmis ([FMT] Referencias FchRef).
    const targetDate = target.date.toISOString().slice(0, 10);
    if (ref.date !== targetDate) {
      throw validationError(`refs[${i}].date`, `must be the date of ${name} (${targetDate})`);
    }
    if (target.estadoSii === 'anulado') {
      throw validationError(`refs[${i}].folio`, `the referenced document ${name} is already voided`);
    }
    const t = doc.totals;
    if (ref.code === 1) {
      // A voiding note repeats the original totals ([FMT] CodRef 1 "Anula Documento de Referencia").
      const same =
        Number(target.total) === t.total &&
        Number(target.net) === t.net &&
        Number(target.exempt) === t.exempt &&
        Number(target.vat) === t.vat;
      if (!same) {
        throw new AppError(
          'TOTALS_MISMATCH',
          `A note that voids (CodRef 1) must repeat the original totals: document ${name} has total ${target.total} (net ${target.net}, exempt ${target.exempt}, VAT ${target.vat}); this note has total ${t.total} (net ${t.net}, exempt ${t.exempt}, VAT ${t.vat}).`,
          { details: [{ path: 'items', message: `totals must equal those of ${name}` }] },
        );
      }
      out.voided = target;
    }
    if (doc.type === 61 && ref.code === 3) {
      // A credit note never credits more than what remains of the document after earlier ones.
      const credited = await creditedSoFar(ctx, target);
      const remaining = Number(target.total) - credited;
      if (t.total > remaining) {
        throw new AppError(
          'TOTALS_MISMATCH',
          `A credit note may credit at most what remains of ${name}: total ${target.total}, already credited ${credited}, remaining ${remaining}; this note credits ${t.total}.`,
          {
            details: [{ path: 'items', message: `the note credits more than the ${remaining} that remain of ${name}` }],
          },
        );
      }
    }
  }
  return out;
}

/** Σ MntTotal of the credit notes (61, not voided) already issued against `target`. */
async function creditedSoFar(ctx: AppContext, target: Document): Promise<number> {
  const notes = await ctx.db.prisma.document.findMany({
    where: {
      issuerId: target.issuerId,
      environment: target.environment,
      type: 61,
      receiverRut: target.receiverRut,
      NOT: { estadoSii: { in: ['anulado', 'rechazado'] } },
    },
    select: { total: true, model: true },
  });
  let sum = 0;
  for (const n of notes) {
    const refs = (n.model as unknown as DteDocument).refs ?? [];
    if (refs.some((r) => r.type === String(target.type) && r.folio === String(target.folio) && r.code !== 2)) {
      sum += Number(n.total);
    }
  }
  return sum;
}

/**
 * Rule 2: a 61 may carry only `rut` and `name` (contract §2); the giro, address, comuna and city
 * come from the referenced document of this issuer, and what the caller gave wins.
 */
export function receiverFromTarget(receiver: ReceiverInfo, target: Document | null): ReceiverInfo {
  if (!target) return receiver;
  const from = (target.model as unknown as DteDocument).receiver ?? { rut: target.receiverRut };
  const out: ReceiverInfo = { ...receiver };
  for (const k of ['activity', 'address', 'comuna', 'city'] as const) {
    if (out[k] === undefined && from[k] !== undefined) out[k] = from[k];
  }
  return out;
}

/**
 * What an issued note does to the documents it references (sandbox: when it is stored; live:
 * when the SII accepts it): a 61 voiding (CodRef 1) marks its document `anulado`; a 56 voiding a
 * 61 marks the 61 `anulado` and restores the document that 61 had voided.
 */
export async function applyVoids(tx: Prisma.TransactionClient, note: Document): Promise<void> {
  if (note.type !== 61 && note.type !== 56) return;
  const model = note.model as unknown as DteDocument;
  for (const ref of model.refs ?? []) {
    if (ref.code !== 1 || !/^\d+$/.test(ref.type) || !/^\d+$/.test(ref.folio)) continue;
    if (note.type === 56 && ref.type !== '61') continue;
    const where = {
      issuerId: note.issuerId,
      environment: note.environment,
      type: Number(ref.type),
      folio: Number(ref.folio),
    };
    if (note.type === 56) {
      const creditNote = await tx.document.findUnique({ where: { issuerId_type_folio_environment: where } });
      if (creditNote) {
        // The original is valid again: back to the state of an issued document of its environment.
        await tx.document.updateMany({
          where: { voidedById: creditNote.id, estadoSii: 'anulado' },
          data: { estadoSii: note.environment === 'sandbox' ? 'local' : 'aceptado', voidedById: null },
        });
      }
    }
    await tx.document.updateMany({ where, data: { estadoSii: 'anulado', voidedById: note.id } });
  }
}
