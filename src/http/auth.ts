/**
 * Authentication and authorisation, as one onRequest hook driven by each route's
 * `config.auth`. Order of checks (chosen so that a key learns nothing about issuers it has no
 * access to):
 *
 *   1. no / malformed `Authorization: Bearer …`          → 401 UNAUTHENTICATED
 *   2. unknown or revoked key                            → 401 INVALID_API_KEY
 *   3. the path's issuer is not the key's issuer         → 403 FORBIDDEN_ISSUER
 *      (whether that other issuer exists, is inactive or the RUT is malformed is never said)
 *   4. the key's own issuer is inactive                  → 404 ISSUER_NOT_FOUND
 *   5. a viewer key on a write endpoint                  → 403 FORBIDDEN_ROLE
 *
 * So 404 for an issuer is only ever answered about the key's own issuer. File downloads
 * (`auth: 'file'`) accept either a key (same checks, read access) or the document's public
 * `tk` token, which the use case checks against the document itself.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuthenticatedKey, authenticateApiKey } from '../admin/api-keys.ts';
import type { AppContext } from '../context.ts';
import { normalizeRut } from '../dte/rut.ts';
import { AppError } from '../errors.ts';

export type AuthMode = 'none' | 'read' | 'write' | 'file';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    auth: AuthenticatedKey | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="timbre"' };

async function authorize(
  ctx: AppContext,
  authorization: string | undefined,
  pathRut: string | undefined,
  write: boolean,
): Promise<AuthenticatedKey> {
  if (!authorization) {
    throw new AppError('UNAUTHENTICATED', undefined, { headers: CHALLENGE });
  }
  const m = BEARER.exec(authorization);
  if (!m?.[1]) {
    throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer timbre_…".', {
      headers: CHALLENGE,
    });
  }
  const key = await authenticateApiKey(ctx, m[1]);
  if (!key) throw new AppError('INVALID_API_KEY', undefined, { headers: CHALLENGE });
  if (pathRut !== undefined && normalizeRut(pathRut) !== key.issuer.rut) {
    throw new AppError('FORBIDDEN_ISSUER');
  }
  if (!key.issuer.active) {
    throw new AppError('ISSUER_NOT_FOUND', `The issuer ${key.issuer.rut} is inactive.`);
  }
  if (write && key.role === 'viewer') {
    throw new AppError('FORBIDDEN_ROLE', 'A viewer key can read but not issue; use an owner or editor key.');
  }
  return key;
}

export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const mode = request.routeOptions.config?.auth ?? 'none';
    if (mode === 'none') return;
    const authorization = request.headers.authorization;
    if (mode === 'file' && !authorization) return; // public token: checked by the use case
    const params = request.params as Record<string, string | undefined>;
    request.auth = await authorize(ctx, authorization, params.rut, mode === 'write');
  });
}

/** The authenticated key of a route declared with `auth: 'read' | 'write'`. */
export function requireAuth(request: FastifyRequest): AuthenticatedKey {
  if (!request.auth) throw new AppError('UNAUTHENTICATED');
  return request.auth;
}

/** The authenticated key of an owner-only route (webhook management, docs/design.md §9). */
export function requireOwner(request: FastifyRequest): AuthenticatedKey {
  const key = requireAuth(request);
  if (key.role !== 'owner') throw new AppError('FORBIDDEN_ROLE', 'Only an owner key may manage webhooks.');
  return key;
}
