import { normalizeRut } from '../dte/rut.js';
import { AppError } from '../errors.js';
import { signingCertificate } from '../issuing/key-material.js';
import { SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.js';
import { receivedCessionView } from '../events/cession-view.js';
/** The registry keeps cesiones of facturas (33, 34); a receiver asks about these. */
const RECEIVED_CEDIBLE_TYPES = [33, 34];
/** getEstCesionRelac's header when the document has no cesión ("Documento no Cedido"). */
const NOT_CEDED = 2;
async function holderAtSii(ctx, issuer, key) {
    const { cert } = await signingCertificate(ctx, issuer, true);
    let answer;
    try {
        answer = await ctx.sii.rpetc.getEstCesionRelac({
            cert,
            issuerRut: key.emisor,
            type: key.type,
            folio: key.folio,
            companyRut: issuer.rut,
        });
    }
    catch (err) {
        if (err instanceof SiiUnavailableError || err instanceof SiiAuthError || err instanceof SiiProtocolError) {
            throw new AppError('SII_UNAVAILABLE', `The SII's registry of cesiones could not be asked: ${err.message}`);
        }
        throw err;
    }
    if (answer.cedido && answer.holderRut)
        return { holder: normalizeRut(answer.holderRut) ?? answer.holderRut };
    if (answer.code === NOT_CEDED)
        return { holder: null };
    throw new AppError('SII_UNAVAILABLE', `The SII's registry of cesiones answered ${answer.code} (${answer.glosa}); nothing was recorded.`);
}
/** Asks the registry now who holds a received factura, stores the answer and returns it. */
export async function checkReceivedCession(ctx, issuer, key) {
    if (issuer.siiAmbiente === 0) {
        throw new AppError('SANDBOX_NOT_SUBMITTABLE', 'Cesiones are registered at the SII: a sandbox issuer has no registry of cesiones to ask.');
    }
    if (!RECEIVED_CEDIBLE_TYPES.includes(key.type)) {
        throw new AppError('DOCUMENT_NOT_CEDIBLE', `type: a ${key.type} is not ceded at the SII's registry; only facturas (33, 34) are.`);
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
    return receivedCessionView(updated);
}
