import { ROLES } from '../../admin/api-keys.js';
import { accountEmailEnabled, sendInvitation } from '../../admin/account-email.js';
import { createUser, deactivateUser, listUsers, may, reactivateUser, setUserRole, } from '../../admin/users.js';
import { AppError } from '../../errors.js';
import { dateTime, ROLE_LABELS } from '../format.js';
import { html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage, fieldMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
async function render(ctx, reply, v, status = 200) {
    const { web, issuer } = v;
    const errors = v.errors ?? new Map();
    const users = await listUsers(ctx, web.user.accountId);
    const base = `/dashboard/${issuer.rut}/usuarios`;
    const body = html `
${v.top ?? ''}
<p class="muted">Los usuarios ven todos los emisores de la cuenta. Dueño: todo; editor: emite y carga folios; lector: solo consulta.</p>
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Correo</th><th scope="col">Rol</th><th scope="col">Último ingreso</th><th scope="col">Estado</th><th scope="col"><span class="visually-hidden">Acciones</span></th></tr></thead>
<tbody>${users.map((u) => html `<tr><td>${u.email}</td><td>${ROLE_LABELS[u.role]}</td><td>${u.lastSignInAt ? dateTime(u.lastSignInAt) : 'Nunca'}</td>
<td>${u.active ? (u.passwordHash === null ? html `<span class="badge badge-amber">Invitado</span>` : html `<span class="badge badge-green">Activo</span>`) : html `<span class="badge badge-gray">Desactivado</span>`}</td>
<td>${u.id === web.user.id ? html `<span class="muted">Tú</span>` : actions(web, base, u)}</td></tr>`)}</tbody></table></div>
<section aria-labelledby="h-new-user"><h2 id="h-new-user">Agregar usuario</h2>
<form method="post" action="${base}" class="stack narrow-form">
${csrfField(web)}
<label for="u-email">Correo</label>
<input id="u-email" name="email" type="email" value="${v.email ?? ''}" required${describedBy('u-email', errors.get('email'))}>
${fieldError('u-email', errors.get('email'))}
<label for="u-role">Rol</label>
${roleSelect('u-role', v.role ?? DEFAULT_ROLE)}
<p class="hint">${accountEmailEnabled(ctx)
        ? 'Le enviaremos un correo con un enlace para que elija su contraseña (vence en 7 días).'
        : 'Este servidor no tiene correo configurado: verás un enlace de invitación para entregárselo a la persona.'}</p>
<button type="submit" class="button primary">Invitar usuario</button>
</form></section>`;
    return sendHtml(reply, page({ title: 'Usuarios', nav: 'usuarios', web, issuer, body }), status);
}
/** Least privilege: a new user can issue but not manage keys, users or the certificate. */
const DEFAULT_ROLE = 'editor';
function roleSelect(id, selected, label = 'Rol') {
    return html `<label for="${id}">${label}</label>
<select id="${id}" name="role">${ROLES.map((r) => html `<option value="${r}"${r === selected ? html ` selected` : ''}>${ROLE_LABELS[r]}</option>`)}</select>`;
}
/** A user's row actions: role, and deactivate or reactivate. */
function actions(web, base, u) {
    if (!u.active) {
        return html `<form method="post" action="${base}/reactivar" class="inline">${csrfField(web)}<input type="hidden" name="email" value="${u.email}"><button type="submit" class="button small">Reactivar</button></form>`;
    }
    return html `<form method="post" action="${base}/rol" class="inline">${csrfField(web)}<input type="hidden" name="email" value="${u.email}">
${roleSelect(`role-${u.id}`, u.role, `Rol de ${u.email}`)}<button type="submit" class="button small">Cambiar rol</button></form>
<form method="post" action="${base}/desactivar" class="inline">${csrfField(web)}<input type="hidden" name="email" value="${u.email}"><button type="submit" class="button small danger">Desactivar</button></form>`;
}
export function userRoutes(ctx) {
    return async (app) => {
        const owner = (request) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'users'))
                throw new AppError('FORBIDDEN_ROLE');
            return { web, issuer };
        };
        app.get('/:rut/usuarios', async (request, reply) => {
            const { web, issuer } = owner(request);
            const ok = request.query.ok;
            const top = ok === 'creado'
                ? notice('ok', 'Usuario invitado: le enviamos un correo con un enlace para elegir su contraseña.')
                : ok === 'desactivado'
                    ? notice('ok', 'Usuario desactivado; sus sesiones se cerraron.')
                    : ok === 'reactivado'
                        ? notice('ok', 'Usuario reactivado: puede volver a entrar.')
                        : ok === 'rol'
                            ? notice('ok', 'Rol cambiado.')
                            : undefined;
            return render(ctx, reply, { web, issuer, ...(top && { top }) });
        });
        app.post('/:rut/usuarios', async (request, reply) => {
            const { web, issuer } = owner(request);
            const f = request.form;
            let user;
            try {
                user = await createUser(ctx, { accountId: web.user.accountId, email: f.get('email'), role: f.get('role') });
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                const errors = new Map();
                for (const d of err.details ?? [])
                    if (!errors.has(d.path))
                        errors.set(d.path, fieldMessage(d));
                if (!errors.size)
                    errors.set('email', errorMessage(err));
                return render(ctx, reply, { web, issuer, errors, email: f.get('email'), role: f.get('role') }, err.status);
            }
            const invitation = await sendInvitation(ctx, user, web.user.email);
            if (!invitation.sent) {
                // No e-mail on this server, or the SMTP server refused it: the owner passes the link on. The answer to the POST is
                // the only place it is shown; reloading it answers "ya existe" (USER_EXISTS), never a
                // second user or link.
                const top = notice('warn', html `<p>Usuario ${user.email} agregado, pero no pudimos enviarle el correo${accountEmailEnabled(ctx) ? '' : ' (este servidor no tiene correo configurado)'}. Entrégale este enlace de invitación (sirve una vez y vence en 7 días):</p>
<p><code>${invitation.url}</code></p>`);
                return render(ctx, reply, { web, issuer, top });
            }
            return reply.redirect(`/dashboard/${issuer.rut}/usuarios?ok=creado`, 303);
        });
        app.post('/:rut/usuarios/rol', async (request, reply) => {
            const { web, issuer } = owner(request);
            const email = request.form.get('email');
            // An owner cannot demote themselves (the account could be left without an owner).
            if (email.toLowerCase() === web.user.email)
                throw new AppError('FORBIDDEN_ROLE');
            await setUserRole(ctx, { email, role: request.form.get('role') }, { accountId: web.user.accountId });
            return reply.redirect(`/dashboard/${issuer.rut}/usuarios?ok=rol`, 303);
        });
        app.post('/:rut/usuarios/reactivar', async (request, reply) => {
            const { web, issuer } = owner(request);
            await reactivateUser(ctx, request.form.get('email'), { accountId: web.user.accountId });
            return reply.redirect(`/dashboard/${issuer.rut}/usuarios?ok=reactivado`, 303);
        });
        app.post('/:rut/usuarios/desactivar', async (request, reply) => {
            const { web, issuer } = owner(request);
            const email = request.form.get('email');
            // An owner cannot lock themselves out (and the account out of its last owner this way).
            if (email.toLowerCase() === web.user.email)
                throw new AppError('FORBIDDEN_ROLE', 'You cannot deactivate yourself.');
            if (request.form.get('confirm') !== '1') {
                const body = html `<div class="confirm" role="alert"><h2>¿Desactivar a ${email}?</h2>
<p>Sus sesiones se cierran y no podrá volver a entrar. Las claves API no cambian.</p>
<form method="post" action="/dashboard/${issuer.rut}/usuarios/desactivar" class="inline">${csrfField(web)}
<input type="hidden" name="email" value="${email}"><input type="hidden" name="confirm" value="1">
<button type="submit" class="button danger">Sí, desactivar</button></form>
<a class="button" href="/dashboard/${issuer.rut}/usuarios">Cancelar</a></div>`;
                return sendHtml(reply, page({ title: 'Usuarios', nav: 'usuarios', web, issuer, body }));
            }
            await deactivateUser(ctx, email, { accountId: web.user.accountId });
            return reply.redirect(`/dashboard/${issuer.rut}/usuarios?ok=desactivado`, 303);
        });
    };
}
