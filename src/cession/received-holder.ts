/**
 * Who holds a supplier's factura now (README "Cesión"): a factura the supplier ceded to a
 * factoring company is paid to the cesionario, not to the supplier. Asked on demand at the SII's
 * registry of cesiones with getEstCesionRelac, as the receiver (the company the registry links
 * to the document as its debtor), and stored on the received document with the time asked.
 */
import type { AppContext } from '../context.ts';
import { normalizeRut } from '../dte/rut.ts';
import { AppError } from '../errors.ts';
import type { Issuer } from '../generated/prisma/client.ts';
import { signingCertificate } from '../issuing/key-material.ts';
import { SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.ts';
import { type ReceivedCessionView, receivedCessionView } from '../events/cession-view.ts';

/** The registry keeps cesiones of facturas (33, 34); a receiver asks about these. */
const RECEIVED_CEDIBLE_TYPES: readonly number[] = [33, 34];

/** getEstCesionRelac's header when the document has no cesión ("Documento no Cedido"). */
const NOT_CEDED = 2;

export interface ReceivedKey {
  emisor: string;
  type: number;
  folio: number;
}

async function holderAtSii(ctx: AppContext, issuer: Issuer, key: ReceivedKey): Promise<{ holder: string | null }> {
  const { cert } = await signingCertificate(ctx, issuer, true);
  let answer: Awaited<ReturnType<AppContext['sii']['rpetc']['getEstCesionRelac']>>;
  try {
    answer = await ctx.sii.rpetc.getEstCesionRelac({
      cert,
      issuerRut: key.emisor,
      type: key.type,
      folio: key.folio,
      companyRut: issuer.rut,
    });
  } catch (err) {
    if (err instanceof SiiUnavailableError || err instanceof SiiAuthError || err instanceof SiiProtocolError) {
      throw new AppError('SII_UNAVAILABLE', `The SII's registry of cesiones could not be asked: ${err.message}`);
    }
    throw err;
  }
  if (answer.cedido && answer.holderRut) return { holder: normalizeRut(answer.holderRut) ?? answer.holderRut };
  if (answer.code === NOT_CEDED) return { holder: null };
  throw new AppError(
    'SII_UNAVAILABLE',
    `The SII's registry of cesiones answered ${answer.code} (${answer.glosa}); nothing was recorded.`,
  );
}

/** Asks the registry now who holds a received factura, stores the answer and returns it. */
export async function checkReceivedCession(
  ctx: AppContext,
  issuer: Issuer,
  key: ReceivedKey,
): Promise<ReceivedCessionView> {
  if (issuer.siiAmbiente === 0) {
    throw new AppError(
      'SANDBOX_NOT_SUBMITTABLE',
      'Cesiones are registered at the SII: a sandbox issuer has no registry of cesiones to ask.',
    );
  }
  if (!RECEIVED_CEDIBLE_TYPES.includes(key.type)) {
    throw new AppError(
      'DOCUMENT_NOT_CEDIBLE',
      `type: a ${key.type} is not ceded at the SII's registry; only facturas (33, 34) are.`,
    );
  }
  const doc = await ctx.db.prisma.receivedDocument.findFirst({
    where: { issuerId: issuer.id, emisorRut: key.emisor, type: key.type, folio: BigInt(key.folio) },
    select: { id: true },
  });
  if (!doc) {
    throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND', `No received ${key.type} N° ${key.folio} from ${key.emisor}.`);
  }
  const { holder } = await holderAtSii(ctx, issuer, key);
  const updated = await ctx.db.prisma.receivedDocument.update({
    where: { id: doc.id },
    data: { cessionHolderRut: holder, cessionCheckedAt: ctx.clock() },
    select: { cessionHolderRut: true, cessionCheckedAt: true },
  });
  return receivedCessionView(updated)!;
}
