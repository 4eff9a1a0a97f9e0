import { redeemSignInToken, SESSION_ABSOLUTE_MS, signIn, signOut } from '../../admin/users.js';
import { normalizeRut } from '../../dte/rut.js';
import { AppError } from '../../errors.js';
import { html } from '../html.js';
import { barePage, notice } from '../layout.js';
import { errorMessage } from '../messages.js';
import { preSessionCsrf, SESSION_COOKIE, sendHtml, setCookie, signedIn } from '../plugin.js';
const PAGES = new Set([
    'documentos',
    'emitir',
    'recibidos',
    'cesiones',
    'folios',
    'certificado',
    'claves',
    'webhooks',
    'usuarios',
    'configuracion',
]);
/** Only a path inside the dashboard may follow sign-in (no open redirect). */
function safeNext(next) {
    return /^\/dashboard\/[A-Za-z0-9/_.?=&%-]*$/.test(next) && !next.startsWith('//') ? next : '/dashboard';
}
function signInForm(csrf, next, email, error) {
    return barePage('Entrar', html `${error ? notice('error', error) : ''}
<form method="post" action="/dashboard/entrar" class="stack">
  <input type="hidden" name="_csrf" value="${csrf}">
  <input type="hidden" name="next" value="${next}">
  <label for="email">Correo</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${email}">
  <label for="password">Contraseña</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit" class="button primary">Entrar</button>
</form>
<p><a href="/dashboard/olvide">¿Olvidaste tu contraseña?</a></p>`);
}
export function sessionRoutes(ctx) {
    const openCookie = (reply, token) => setCookie(ctx, reply, SESSION_COOKIE, token, { maxAgeSeconds: SESSION_ABSOLUTE_MS / 1000 });
    return async (app) => {
        app.get('/', { config: { web: 'public' } }, async (request, reply) => {
            const first = request.web?.issuers[0];
            if (!request.web)
                return reply.redirect('/dashboard/entrar', 303);
            if (!first)
                return sendHtml(reply, barePage('Sin emisores', html `<p>Tu cuenta aún no tiene emisores activos.</p>`));
            return reply.redirect(`/dashboard/${first.rut}/documentos`, 303);
        });
        app.get('/entrar', { config: { web: 'public' } }, async (request, reply) => {
            const q = request.query;
            if (request.web)
                return reply.redirect(safeNext(q.next ?? ''), 303);
            return sendHtml(reply, signInForm(preSessionCsrf(ctx, request, reply), safeNext(q.next ?? ''), ''));
        });
        app.post('/entrar', { config: { web: 'public' } }, async (request, reply) => {
            const f = request.form;
            try {
                const opened = await signIn(ctx, { email: f.get('email'), password: f.raw('password'), address: request.ip });
                openCookie(reply, opened.token);
                return reply.redirect(safeNext(f.get('next')), 303);
            }
            catch (err) {
                if (!(err instanceof AppError) ||
                    !['SIGN_IN_FAILED', 'SIGN_IN_RATE_LIMITED', 'VALIDATION_FAILED'].includes(err.code))
                    throw err;
                const status = err.code === 'SIGN_IN_RATE_LIMITED' ? 429 : 401;
                const retryAfter = err.headers?.['Retry-After'];
                if (retryAfter)
                    reply.header('Retry-After', retryAfter);
                const message = err.code === 'VALIDATION_FAILED' ? errorMessage(new AppError('SIGN_IN_FAILED')) : errorMessage(err);
                return sendHtml(reply, signInForm(preSessionCsrf(ctx, request, reply), safeNext(f.get('next')), f.get('email'), message), status);
            }
        });
        // The link only shows a button: a mail scanner fetching it does not spend the token.
        app.get('/enlace/:token', { config: { web: 'public' } }, async (request, reply) => {
            const { token } = request.params;
            const csrf = preSessionCsrf(ctx, request, reply);
            return sendHtml(reply, barePage('Entrar con enlace', html `<p>Este enlace sirve una sola vez y abre una sesión en este navegador.</p>
<form method="post" action="/dashboard/enlace">
  <input type="hidden" name="_csrf" value="${csrf}">
  <input type="hidden" name="token" value="${token}">
  <button type="submit" class="button primary">Entrar al panel</button>
</form>`));
        });
        app.post('/enlace', { config: { web: 'public' } }, async (request, reply) => {
            const opened = await redeemSignInToken(ctx, request.form.get('token'));
            if (!opened) {
                return sendHtml(reply, barePage('Enlace no válido', html `<p>El enlace ya se usó o expiró. Entra con tu correo y contraseña, o pide un enlace nuevo.</p>
<p><a class="button" href="/dashboard/entrar">Entrar</a> <a class="button" href="/dashboard/olvide">Enviar un enlace nuevo</a></p>`), 410);
            }
            openCookie(reply, opened.token);
            return reply.redirect('/dashboard', 303);
        });
        app.post('/salir', async (request, reply) => {
            await signOut(ctx, signedIn(request).session.id);
            setCookie(ctx, reply, SESSION_COOKIE, '', { maxAgeSeconds: 0 });
            return reply.redirect('/dashboard/entrar', 303);
        });
        app.get('/ir', async (request, reply) => {
            const q = request.query;
            const rut = normalizeRut(q.rut ?? '');
            const issuer = signedIn(request).issuers.find((i) => i.rut === rut);
            if (!issuer)
                throw new AppError('ISSUER_NOT_FOUND');
            const target = PAGES.has(q.page ?? '') ? q.page : 'documentos';
            return reply.redirect(`/dashboard/${issuer.rut}/${target}`, 303);
        });
    };
}
