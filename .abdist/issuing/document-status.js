import { envelopeKindOf } from '../dte/envelope.js';
import { AppError } from '../errors.js';
import { SiiAmbiguousError, SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.js';
import { isFinal, resolveState, transition } from './document-state.js';
import { environmentOf } from '../admin/environment.js';
import { signingCertificate } from './key-material.js';
import { documentStatusQuery, estadoOfDocument, verdictOfUpload } from './sii-states.js';
export async function findIssuedDocument(ctx, issuer, type, folio, env = environmentOf(issuer)) {
    const document = await ctx.db.prisma.document.findUnique({
        where: { issuerId_type_folio_environment: { issuerId: issuer.id, type, folio, environment: env } },
    });
    if (!document) {
        throw new AppError('DOCUMENT_NOT_FOUND', `No ${env} document of type ${type} with folio ${folio} for ${issuer.rut}.`);
    }
    return document;
}
function siiFailure(err) {
    if (err instanceof SiiUnavailableError || err instanceof SiiAmbiguousError || err instanceof SiiProtocolError) {
        return new AppError('SII_UNAVAILABLE', `The SII could not be asked right now: ${err.message}. Try again later.`);
    }
    if (err instanceof SiiAuthError) {
        return new AppError('SII_UNAVAILABLE', `The SII refused to authenticate the issuer's certificate: ${err.message}`);
    }
    return err;
}
export async function documentStatus(ctx, issuer, input) {
    const env = environmentOf(issuer);
    const document = await findIssuedDocument(ctx, issuer, input.type, input.folio, env);
    if (env === 'sandbox')
        return { document, env, checkedAt: null };
    const { cert } = await signingCertificate(ctx, issuer, true);
    const service = envelopeKindOf(document.type);
    let estado = document.estadoSii;
    let raw = document.siiCode;
    let glosa = document.siiGlosa;
    try {
        if (document.trackId) {
            const up = await ctx.sii.uploadStatus({ service, cert, issuerRut: issuer.rut, trackId: document.trackId });
            const verdict = verdictOfUpload(up, document);
            raw = up.estado;
            glosa = up.glosa;
            if (verdict.kind === 'final') {
                estado = verdict.estado;
                glosa = verdict.glosa;
            }
        }
        if (!document.trackId || isFinal(estado) || raw === 'EPR') {
            const st = await ctx.sii.documentStatus(documentStatusQuery(document, issuer.rut, cert));
            const known = estadoOfDocument(st);
            raw = st.estado;
            glosa = st.glosa;
            // Whether this answer may replace what is known (DOK after reparos must not) is the
            // state owner's rule (document-state.ts).
            if (known)
                estado = resolveState(estado, known);
        }
    }
    catch (err) {
        throw siiFailure(err);
    }
    const checkedAt = ctx.clock();
    const updated = await ctx.db.prisma.$transaction((tx) => transition(ctx, tx, document.id, issuer.rut, {
        to: estado,
        reason: 'status asked at the SII (emision_estado_dte)',
        siiCode: raw,
        siiGlosa: glosa,
        extra: { siiCheckedAt: checkedAt },
    }));
    return { document: updated, env, checkedAt };
}
