/**
 * The references of a note (56/61) or of any document that names another one (FMT "Referencias"):
 * checked against the issuer's own documents before a folio is reserved.
 */
import type { AppContext } from '../context.ts';
import { DTE_TYPES, type DteDocument, type DteType } from '../dte/model.ts';
import { AppError } from '../errors.ts';
import type { Document, Environment, Issuer } from '../generated/prisma/client.ts';

const isOwnDteType = (t: string): t is `${DteType}` => (DTE_TYPES as readonly number[]).map(String).includes(t);

/** Checks references to documents of this issuer; returns the one a 61/CodRef 1 voids. */
export async function checkReferences(
  ctx: AppContext,
  issuer: Issuer,
  env: Environment,
  doc: DteDocument,
): Promise<Document | null> {
  let voided: Document | null = null;
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
    if (doc.type === 61 && ref.code === 1) {
      if (target.estadoSii === 'anulado') {
        throw new AppError(
          'VALIDATION_FAILED',
          `refs[${i}]: the document ${ref.type}/${ref.folio} is already voided.`,
          {
            details: [{ path: `refs[${i}].folio`, message: 'the referenced document is already voided' }],
          },
        );
      }
      const t = doc.totals;
      const same =
        Number(target.total) === t.total &&
        Number(target.net) === t.net &&
        Number(target.exempt) === t.exempt &&
        Number(target.vat) === t.vat;
      if (!same) {
        throw new AppError(
          'TOTALS_MISMATCH',
          `A credit note that voids (CodRef 1) must repeat the original totals: document ${ref.type}/${ref.folio} has total ${target.total} (net ${target.net}, exempt ${target.exempt}, VAT ${target.vat}); this note has total ${t.total} (net ${t.net}, exempt ${t.exempt}, VAT ${t.vat}).`,
          { details: [{ path: 'items', message: `totals must equal those of ${ref.type}/${ref.folio}` }] },
        );
      }
      voided = target;
    }
  }
  return voided;
}
