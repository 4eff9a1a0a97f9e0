import { authenticateApiKey } from '../admin/api-keys.js';
import { normalizeRut } from '../dte/rut.js';
import { AppError } from '../errors.js';
const BEARER = /^Bearer\s+(\S+)\s*$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="timbre"' };
async function authorize(ctx, authorization, pathRut, write) {
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
    if (!key)
        throw new AppError('INVALID_API_KEY', undefined, { headers: CHALLENGE });
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
export function registerAuth(app, ctx) {
    app.decorateRequest('auth', null);
    app.addHook('onRequest', async (request) => {
        const mode = request.routeOptions.config?.auth ?? 'none';
        if (mode === 'none')
            return;
        const authorization = request.headers.authorization;
        if (mode === 'file' && !authorization)
            return; // public token: checked by the use case
        const params = request.params;
        request.auth = await authorize(ctx, authorization, params.rut, mode === 'write');
    });
}
/** The authenticated key of a route declared with `auth: 'read' | 'write'`. */
export function requireAuth(request) {
    if (!request.auth)
        throw new AppError('UNAUTHENTICATED');
    return request.auth;
}
/** The authenticated key of an owner-only route (webhook management, docs/design.md §9). */
export function requireOwner(request) {
    const key = requireAuth(request);
    if (key.role !== 'owner')
        throw new AppError('FORBIDDEN_ROLE', 'Only an owner key may manage webhooks.');
    return key;
}
