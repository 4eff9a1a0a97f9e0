/**
 * The dashboard (docs/design.md §10) under /dashboard: server-rendered pages for people, calling the
 * same use cases as the API. This plugin wires what every page shares:
 *
 * - bodies: urlencoded forms and multipart uploads (≤ 1 MiB file), JSON for the issue form's
 *   live totals; all turned into a `Form` (src/web/form.ts);
 * - cookies read and written by @fastify/cookie (a malformed cookie is ignored, never a 500);
 *   the session (cookie `timbre_session`, HttpOnly, SameSite=Lax, Path=/dashboard, Secure when
 *   PUBLIC_BASE_URL is https) resolved before every handler; pages other than sign-in redirect
 *   to it without one;
 * - CSRF: every POST carries the session's token (`_csrf` field or `X-CSRF-Token` header);
 *   the public forms (sign-in, links, forgotten password) carry a pre-session token (see
 *   `preSessionCsrf`) and must not come from another origin (`Origin`, `Sec-Fetch-Site`);
 * - headers: src/http/security-headers.ts with the dashboard's policy (only same-origin
 *   scripts and styles, no inline script or style anywhere), no caching of pages, no referrer
 *   leaving the origin;
 * - errors rendered as Spanish HTML pages, and one 404 page for anything not found or not the
 *   user's (another account's issuer answers exactly like a RUT that does not exist).
 */
import { preSessionCsrfKey } from '../admin/sign-in-limit.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import { resolveSession } from '../admin/users.js';
import { normalizeRut } from '../dte/rut.js';
import { AppError } from '../errors.js';
import { DASHBOARD_CONTENT_SECURITY_POLICY, registerSecurityHeaders } from '../http/security-headers.js';
import { Form } from './form.js';
import { html } from './html.js';
import { barePage, page } from './layout.js';
import { errorMessage } from './messages.js';
export const SESSION_COOKIE = 'timbre_session';
const PRE_CSRF_COOKIE = 'timbre_csrf';
/** How long a public form may wait between being shown and being sent. */
const PRE_CSRF_LIFETIME_MS = 2 * 3600 * 1000;
const MAX_UPLOAD = 1024 * 1024;
/**
 * The request's cookies, as parsed by @fastify/cookie: a value that is not valid percent-encoding
 * (`a=%E0%A4%A`, `promo=100%` set by another application on the same host) is kept as given,
 * never an error, so a stray cookie cannot make the dashboard answer 500.
 */
function cookies(request) {
    const out = new Map();
    for (const [name, value] of Object.entries(request.cookies ?? {}))
        if (value !== undefined)
            out.set(name, value);
    return out;
}
export function setCookie(ctx, reply, name, value, opts = {}) {
    reply.setCookie(name, value, {
        path: '/dashboard',
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.config.publicBaseUrl.startsWith('https:'),
        ...(opts.maxAgeSeconds === undefined ? {} : { maxAge: opts.maxAgeSeconds }),
    });
}
function sameSecret(a, b) {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length > 0 && x.length === y.length && timingSafeEqual(x, y);
}
/**
 * The pre-session cookie's name: `__Host-timbre_csrf` over https, a name the browser accepts
 * only from a secure page of this very host with Path=/ and no Domain (a sibling subdomain or a
 * plain-http page cannot plant it); `timbre_csrf` over plain http (development, tests).
 */
function preCsrfCookieName(ctx) {
    return isHttps(ctx) ? `__Host-${PRE_CSRF_COOKIE}` : PRE_CSRF_COOKIE;
}
function isHttps(ctx) {
    return ctx.config.publicBaseUrl.startsWith('https:');
}
function preCsrfSignature(ctx, nonce, expires) {
    return createHmac('sha256', preSessionCsrfKey(ctx)).update(`${nonce}.${expires}`).digest('base64url');
}
/**
 * The pre-session CSRF token of the public forms (sign-in, one-time links, forgotten password):
 * `<expiry>.<HMAC-SHA256(server key, cookie nonce . expiry)>`, the key derived from the master
 * key. It is checked statelessly (any instance, no table): it must be unexpired (2 h), signed by
 * this server, and bound to the nonce in this browser's pre-session cookie. A page on another
 * origin cannot forge the signature; it could still copy a valid (nonce, token) pair fetched from
 * this server and plant the nonce cookie from another port of the same host (cookies do not
 * separate ports), which is why public POSTs must also come from this origin (`Origin`, which a
 * page cannot set; `Sec-Fetch-Site`), and the cookie is `__Host-` over https.
 */
export function preSessionCsrf(ctx, request, reply) {
    const name = preCsrfCookieName(ctx);
    let nonce = cookies(request).get(name);
    if (!nonce || !/^[A-Za-z0-9_-]{32}$/.test(nonce)) {
        nonce = randomBytes(24).toString('base64url');
        if (isHttps(ctx)) {
            reply.setCookie(name, nonce, { path: '/', httpOnly: true, sameSite: 'lax', secure: true });
        }
        else {
            setCookie(ctx, reply, name, nonce);
        }
    }
    const expires = String(ctx.clock().getTime() + PRE_CSRF_LIFETIME_MS);
    return `${expires}.${preCsrfSignature(ctx, nonce, expires)}`;
}
function validPreSessionCsrf(ctx, request, given) {
    const nonce = cookies(request).get(preCsrfCookieName(ctx)) ?? '';
    const [expires = '', signature = ''] = given.split('.');
    if (!/^[A-Za-z0-9_-]{32}$/.test(nonce) || !/^\d{13,15}$/.test(expires))
        return false;
    if (Number(expires) <= ctx.clock().getTime())
        return false;
    return sameSecret(signature, preCsrfSignature(ctx, nonce, expires));
}
/**
 * Whether a public form was sent by a page of this dashboard: browsers send `Origin` with every
 * POST (a page cannot change it) and `Sec-Fetch-Site`; another port or subdomain of the same
 * host is another origin ("same-site", not "same-origin"). Requests without either (curl,
 * old browsers) rest on the token alone.
 */
function sameOriginPost(ctx, request) {
    const site = request.headers['sec-fetch-site'];
    if (typeof site === 'string' && site !== 'same-origin' && site !== 'none')
        return false;
    const origin = request.headers.origin;
    if (origin === undefined)
        return true;
    if (origin === new URL(ctx.config.publicBaseUrl).origin)
        return true;
    try {
        return new URL(origin).host === request.headers.host;
    }
    catch {
        return false;
    }
}
/** The signed-in user of a dashboard route (the hook has redirected when there is none). */
export function signedIn(request) {
    if (!request.web)
        throw new AppError('UNAUTHENTICATED');
    return request.web;
}
/** The issuer named in the path, if it belongs to the user's account; else the 404 page. */
export function issuerOf(request, rutText) {
    const web = signedIn(request);
    const rut = normalizeRut(rutText);
    const issuer = web.issuers.find((i) => i.rut === rut);
    if (!issuer)
        throw new AppError('ISSUER_NOT_FOUND', 'No such page.');
    return issuer;
}
function staticDir() {
    const here = dirname(fileURLToPath(import.meta.url));
    // tsx runs src/web/plugin.ts; the build runs dist/web/plugin.js next to an untouched src/.
    const candidates = [join(here, 'static'), join(here, '..', '..', 'src', 'web', 'static')];
    return candidates.find((d) => existsSync(join(d, 'style.css'))) ?? candidates[0];
}
const STATIC_TYPES = {
    'style.css': 'text/css; charset=utf-8',
    'app.js': 'text/javascript; charset=utf-8',
};
function toForm(body) {
    if (typeof body === 'string')
        return Form.fromUrlEncoded(body);
    if (!body || typeof body !== 'object')
        return new Form(new Map());
    const fields = new Map();
    const files = new Map();
    for (const [key, raw] of Object.entries(body)) {
        for (const part of Array.isArray(raw) ? raw : [raw]) {
            const p = part;
            if (p?.type === 'file') {
                if (p.filename && p._buf && p._buf.length > 0)
                    files.set(key, { filename: p.filename, data: p._buf });
            }
            else if (p?.type === 'field') {
                fields.set(key, [...(fields.get(key) ?? []), String(p.value ?? '')]);
            }
            else if (typeof part === 'string' || typeof part === 'number' || typeof part === 'boolean') {
                fields.set(key, [...(fields.get(key) ?? []), String(part)]);
            }
        }
    }
    return new Form(fields, files);
}
export async function registerDashboardBasics(app, ctx) {
    app.decorateRequest('web', null);
    app.decorateRequest('form', null);
    await app.register(cookie);
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    await app.register(multipart, {
        attachFieldsToBody: true,
        limits: { fileSize: MAX_UPLOAD, files: 2, fields: 3000, fieldSize: 100_000 },
        throwFileSizeLimit: true,
    });
    await registerSecurityHeaders(app, {
        contentSecurityPolicy: DASHBOARD_CONTENT_SECURITY_POLICY,
        // Files (the inline PDF) are not HTML: the browser's PDF viewer runs under its own rules.
        keepPolicyOf: (request) => /\/(pdf|xml|borrador)(\?|$)/.test(request.url),
        referrerPolicy: 'same-origin',
        noStore: true,
    });
    app.addHook('preHandler', async (request, reply) => {
        request.form = toForm(request.body);
        // Stylesheet and script: no session lookup (the browser asks for them on every page).
        if (request.routeOptions.url === '/dashboard/static/:name')
            return;
        const token = cookies(request).get(SESSION_COOKIE);
        request.web = token ? await resolveSession(ctx, token) : null;
        const mode = request.routeOptions.config?.web ?? 'session';
        if (mode === 'bare')
            return;
        const writes = request.method !== 'GET' && request.method !== 'HEAD';
        if (mode === 'public') {
            if (writes && !(sameOriginPost(ctx, request) && validPreSessionCsrf(ctx, request, request.form.get('_csrf')))) {
                throw new AppError('CSRF_FAILED');
            }
            return;
        }
        if (!request.web) {
            const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
            return reply.redirect(`/dashboard/entrar${next}`, 303);
        }
        if (writes) {
            const header = request.headers['x-csrf-token'];
            const given = typeof header === 'string' ? header : request.form.get('_csrf');
            if (!sameSecret(given, request.web.session.csrfToken))
                throw new AppError('CSRF_FAILED');
        }
    });
    app.setErrorHandler(async (error, request, reply) => {
        const known = error instanceof AppError
            ? error
            : error.code === 'FST_REQ_FILE_TOO_LARGE'
                ? new AppError('PAYLOAD_TOO_LARGE', 'El archivo supera 1 MB.')
                : null;
        if (!known)
            request.log.error({ err: error }, 'dashboard request failed');
        const err = known ?? new AppError('INTERNAL');
        const status = err.code === 'ISSUER_NOT_FOUND' || err.code === 'DOCUMENT_NOT_FOUND' ? 404 : err.status;
        const message = err.code === 'PAYLOAD_TOO_LARGE' ? 'El archivo supera 1 MB.' : errorMessage(err);
        if (request.headers.accept?.includes('application/json')) {
            return reply.status(status).send({ ok: false, error: message, code: err.code, request_id: String(request.id) });
        }
        return reply
            .status(status)
            .type('text/html; charset=utf-8')
            .send(errorPage(request, status, message).value);
    });
    app.setNotFoundHandler(async (request, reply) => {
        return reply
            .status(404)
            .type('text/html; charset=utf-8')
            .send(errorPage(request, 404, 'No encontramos esa página.').value);
    });
    const dir = staticDir();
    const assets = new Map(Object.keys(STATIC_TYPES).map((name) => [name, readFileSync(join(dir, name))]));
    app.get('/static/:name', { config: { web: 'public' }, schema: { hide: true } }, async (request, reply) => {
        const { name } = request.params;
        const body = assets.get(name);
        if (!body)
            return reply.callNotFound();
        reply.header('Cache-Control', 'public, max-age=300');
        return reply.type(STATIC_TYPES[name] ?? 'application/octet-stream').send(body);
    });
}
function errorPage(request, status, message) {
    const title = status === 404 ? 'Página no encontrada' : status === 403 ? 'Sin permiso' : 'No se pudo completar';
    const body = html `<p>${message}</p><p><a href="/dashboard">Volver al inicio</a></p>`;
    const web = request.web;
    const issuer = web?.issuers[0];
    return web && issuer ? page({ title, web, issuer, body }) : barePage(title, body);
}
export function sendHtml(reply, body, status = 200) {
    return reply.status(status).type('text/html; charset=utf-8').send(body.value);
}
