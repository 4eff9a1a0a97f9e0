/**
 * Which of Timbre's two worlds an issuer lives in: `sandbox` (`sii_ambiente` 0: Timbre's own
 * test CAFs and certificates, nothing is sent to the SII) or `live` (any other value: every
 * document is sent to the SII). Documents and CAF ranges are kept apart per environment.
 */
import type { Environment, Issuer } from '../generated/prisma/client.ts';

export type { Environment };

export function environmentOf(issuer: Pick<Issuer, 'siiAmbiente'>): Environment {
  return issuer.siiAmbiente === 0 ? 'sandbox' : 'live';
}
