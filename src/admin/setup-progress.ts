/**
 * How far an issuer is in its setup, for the dashboard's checklist on the issuer's first page:
 * its own certificate, production folios (a CAF imported or requested from the SII), a first
 * document, an API key and a webhook endpoint. Each is one indexed existence check.
 */
import type { AppContext } from '../context.ts';
import type { Issuer } from '../generated/prisma/client.ts';

export interface SetupProgress {
  certificate: boolean;
  folios: boolean;
  document: boolean;
  key: boolean;
  webhook: boolean;
}

export async function setupProgress(ctx: AppContext, issuer: Issuer): Promise<SetupProgress> {
  const db = ctx.db.prisma;
  const issuerId = issuer.id;
  const [certificate, folios, document, key, webhook] = await Promise.all([
    db.certificate.findFirst({ where: { issuerId, kind: 'imported' }, select: { id: true } }),
    db.caf.findFirst({ where: { issuerId, environment: 'live' }, select: { id: true } }),
    db.document.findFirst({ where: { issuerId }, select: { id: true } }),
    db.apiKey.findFirst({ where: { issuerId, revokedAt: null }, select: { id: true } }),
    db.webhookEndpoint.findFirst({ where: { issuerId }, select: { id: true } }),
  ]);
  return {
    certificate: certificate !== null,
    folios: folios !== null,
    document: document !== null,
    key: key !== null,
    webhook: webhook !== null,
  };
}
