/**
 * `POST /api/{rut}/emision_estado_dte` (docs/api.md §4.3, docs/design.md §5): the document's state at the
 * SII, asked live. With a track id the envelope's state is read first (QueryEstUp / boleta
 * envío); once final, or without a track id, the document's own state (QueryEstDte / boleta
 * estado). The answer is stored on the document.
 */
import type { AppContext } from '../context.ts';
import { envelopeKindOf } from '../dte/envelope.ts';
import { AppError } from '../errors.ts';
import type { Document, Environment, Issuer } from '../generated/prisma/client.ts';
import { SiiAmbiguousError, SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.ts';
import { isFinal, resolveState, transition } from './document-state.ts';
import { environmentOf } from '../admin/environment.ts';
import { signingCertificate } from './key-material.ts';
import type { EstadoSii } from './document-state.ts';
import { documentStatusQuery, estadoOfDocument, verdictOfUpload } from './sii-states.ts';

export async function findIssuedDocument(
  ctx: AppContext,
  issuer: Issuer,
  type: number,
  folio: number,
  env: Environment = environmentOf(issuer),
): Promise<Document> {
  const document = await ctx.db.prisma.document.findUnique({
    where: { issuerId_type_folio_environment: { issuerId: issuer.id, type, folio, environment: env } },
  });
  if (!document) {
    throw new AppError(
      'DOCUMENT_NOT_FOUND',
      `No ${env} document of type ${type} with folio ${folio} for ${issuer.rut}.`,
    );
  }
  return document;
}

export interface StatusView {
  document: Document;
  env: Environment;
  checkedAt: Date | null;
}

function siiFailure(err: unknown): AppError {
  if (err instanceof SiiUnavailableError || err instanceof SiiAmbiguousError || err instanceof SiiProtocolError) {
    return new AppError('SII_UNAVAILABLE', `The SII could not be asked right now: ${err.message}. Try again later.`);
  }
  if (err instanceof SiiAuthError) {
    return new AppError('SII_UNAVAILABLE', `The SII refused to authenticate the issuer's certificate: ${err.message}`);
  }
  return err as AppError;
}

export async function documentStatus(
  ctx: AppContext,
  issuer: Issuer,
  input: { type: number; folio: number },
): Promise<StatusView> {
  const env = environmentOf(issuer);
  const document = await findIssuedDocument(ctx, issuer, input.type, input.folio, env);
  if (env === 'sandbox') return { document, env, checkedAt: null };

  const { cert } = await signingCertificate(ctx, issuer, true);
  const service = envelopeKindOf(document.type);
  let estado = document.estadoSii as EstadoSii;
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
      if (known) estado = resolveState(estado, known);
    }
  } catch (err) {
    throw siiFailure(err);
  }
  const checkedAt = ctx.clock();
  const updated = await ctx.db.prisma.$transaction((tx) =>
    transition(ctx, tx, document.id, issuer.rut, {
      to: estado,
      reason: 'status asked at the SII (emision_estado_dte)',
      siiCode: raw,
      siiGlosa: glosa,
      extra: { siiCheckedAt: checkedAt },
    }),
  );
  return { document: updated, env, checkedAt };
}
