import { accountEmailEnabled, sendResetLink } from '../../admin/account-email.js';
import { changeOwnPassword, MIN_PASSWORD_LENGTH, peekPasswordLink, SESSION_ABSOLUTE_MS, setPasswordByLink, } from '../../admin/users.js';
import { AppError } from '../../errors.js';
import { html } from '../html.js';
import { barePage, csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage, fieldMessage } from '../messages.js';
import { issuerOf, preSessionCsrf, SESSION_COOKIE, sendHtml, setCookie, signedIn } from '../plugin.js';
const NO_EMAIL = html `<p class="muted">Este servidor de Timbre no tiene correo configurado, así que no puede enviar enlaces. Pide a quien lo administra una contraseña nueva (<code>user reset-password</code>).</p>`;
/** The form that asks for a link by e-mail (the forgotten-password page, a dead link's page). */
function askLinkForm(ctx, csrf, label) {
    if (!accountEmailEnabled(ctx))
        return NO_EMAIL;
    return html `<form method="post" action="/dashboard/olvide" class="stack">
  <input type="hidden" name="_csrf" value="${csrf}">
  <label for="forgot-email">Correo</label>
  <input id="forgot-email" name="email" type="email" autocomplete="username" required>
  <button type="submit" class="button primary">${label}</button>
</form>`;
}
/** The new-password fields (and the current one when changing). */
function passwordFields(errors, withCurrent) {
    return html `${withCurrent
        ? html `<label for="pw-current">Contraseña actual</label>
<input id="pw-current" name="current" type="password" autocomplete="current-password" required${describedBy('pw-current', errors.get('current'))}>
${fieldError('pw-current', errors.get('current'))}`
        : ''}
<label for="pw-new">Contraseña nueva</label>
<input id="pw-new" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="200" required${describedBy('pw-new', errors.get('password'))}>
${fieldError('pw-new', errors.get('password'))}
<p class="hint">Al menos ${MIN_PASSWORD_LENGTH} caracteres; una frase larga es más fácil de recordar y más segura.</p>
<label for="pw-confirm">Repite la contraseña nueva</label>
<input id="pw-confirm" name="confirm" type="password" autocomplete="new-password" required${describedBy('pw-confirm', errors.get('confirm'))}>
${fieldError('pw-confirm', errors.get('confirm'))}`;
}
/** Field errors of a password use case (or of the two fields not matching). */
function passwordErrors(err) {
    if (!(err instanceof AppError) || err.status >= 500)
        throw err;
    const errors = new Map();
    if (err.code === 'CURRENT_PASSWORD_WRONG' || err.code === 'SIGN_IN_RATE_LIMITED')
        errors.set('current', errorMessage(err));
    for (const d of err.details ?? [])
        if (!errors.has(d.path))
            errors.set(d.path, fieldMessage(d));
    if (!errors.size)
        errors.set('password', errorMessage(err));
    return errors;
}
const MISMATCH = new Map([['confirm', 'Las dos contraseñas no coinciden.']]);
export function passwordRoutes(ctx) {
    const deadLink = (request, reply) => sendHtml(reply, barePage('Enlace no válido', html `<p>El enlace ya se usó o expiró. Escribe tu correo y te enviaremos uno nuevo.</p>
${askLinkForm(ctx, preSessionCsrf(ctx, request, reply), 'Enviar un enlace nuevo')}
<p><a href="/dashboard/entrar">Entrar con contraseña</a></p>`), 410);
    const linkForm = (request, reply, v, status = 200) => sendHtml(reply, barePage(v.purpose === 'invitation' ? 'Crea tu contraseña' : 'Elige una contraseña nueva', html `<p>Para <strong>${v.email}</strong>. Al guardarla entras al panel; las otras sesiones abiertas se cierran.</p>
<form method="post" action="/dashboard/contrasena" class="stack">
  <input type="hidden" name="_csrf" value="${preSessionCsrf(ctx, request, reply)}">
  <input type="hidden" name="token" value="${v.token}">
  <input type="text" name="username" autocomplete="username" value="${v.email}" hidden>
  ${passwordFields(v.errors ?? new Map(), false)}
  <button type="submit" class="button primary">Guardar y entrar</button>
</form>`), status);
    return async (app) => {
        app.get('/olvide', { config: { web: 'public' } }, async (request, reply) => {
            const sent = request.query.enviado === '1';
            const csrf = preSessionCsrf(ctx, request, reply);
            return sendHtml(reply, barePage('¿Olvidaste tu contraseña?', html `${sent
                ? notice('ok', 'Si el correo corresponde a un usuario activo, le enviamos un enlace para elegir una contraseña nueva. Vence en 1 hora y sirve una vez. Revisa también la carpeta de spam.')
                : html `<p>Escribe el correo con que entras y te enviaremos un enlace para elegir una contraseña nueva. El enlace también sirve si tu cuenta está bloqueada por intentos fallidos.</p>`}
${askLinkForm(ctx, csrf, sent ? 'Enviar otro enlace' : 'Enviar enlace')}
<p><a href="/dashboard/entrar">Volver a entrar</a></p>`));
        });
        app.post('/olvide', { config: { web: 'public' } }, async (request, reply) => {
            // Not awaited: looking the address up, creating the link and talking to the SMTP server
            // would make an existing address answer later than an unknown one.
            const email = request.form.get('email');
            sendResetLink(ctx, email).catch((err) => request.log.warn({ err }, 'password reset e-mail failed'));
            return reply.redirect('/dashboard/olvide?enviado=1', 303);
        });
        // Only shows the form: a mail scanner fetching the link does not spend it.
        app.get('/contrasena/:token', { config: { web: 'public' } }, async (request, reply) => {
            const { token } = request.params;
            const link = await peekPasswordLink(ctx, token);
            if (!link)
                return deadLink(request, reply);
            return linkForm(request, reply, { token, purpose: link.purpose, email: link.user.email });
        });
        app.post('/contrasena', { config: { web: 'public' } }, async (request, reply) => {
            const f = request.form;
            const token = f.get('token');
            const link = await peekPasswordLink(ctx, token);
            if (!link)
                return deadLink(request, reply);
            const view = { token, purpose: link.purpose, email: link.user.email };
            if (f.raw('password') !== f.raw('confirm'))
                return linkForm(request, reply, { ...view, errors: MISMATCH }, 400);
            let opened;
            try {
                opened = await setPasswordByLink(ctx, { token, password: f.raw('password') });
            }
            catch (err) {
                return linkForm(request, reply, { ...view, errors: passwordErrors(err) }, 400);
            }
            if (!opened)
                return deadLink(request, reply);
            setCookie(ctx, reply, SESSION_COOKIE, opened.token, { maxAgeSeconds: SESSION_ABSOLUTE_MS / 1000 });
            return reply.redirect('/dashboard?contrasena=1', 303);
        });
        const ownPage = (request, reply, v, status = 200) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const has = web.user.passwordHash !== null;
            const body = html `${v.top ?? ''}
${has ? '' : html `<p>Entraste con un enlace y aún no tienes contraseña. Crea una para entrar con tu correo.</p>`}
<form method="post" action="/dashboard/${issuer.rut}/contrasena" class="stack narrow-form">
${csrfField(web)}
<input type="text" name="username" autocomplete="username" value="${web.user.email}" hidden>
${passwordFields(v.errors ?? new Map(), has)}
<button type="submit" class="button primary">${has ? 'Cambiar contraseña' : 'Crear contraseña'}</button>
</form>`;
            return sendHtml(reply, page({ title: has ? 'Cambiar contraseña' : 'Crear contraseña', web, issuer, body }), status);
        };
        app.get('/:rut/contrasena', async (request, reply) => {
            const ok = request.query.ok === '1';
            return ownPage(request, reply, ok ? { top: notice('ok', 'Contraseña guardada.') } : {});
        });
        app.post('/:rut/contrasena', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const f = request.form;
            if (f.raw('password') !== f.raw('confirm'))
                return ownPage(request, reply, { errors: MISMATCH }, 400);
            try {
                await changeOwnPassword(ctx, {
                    userId: web.user.id,
                    sessionId: web.session.id,
                    current: f.raw('current'),
                    password: f.raw('password'),
                    address: request.ip,
                });
            }
            catch (err) {
                return ownPage(request, reply, { errors: passwordErrors(err) }, 400);
            }
            return reply.redirect(`/dashboard/${issuer.rut}/contrasena?ok=1`, 303);
        });
    };
}
