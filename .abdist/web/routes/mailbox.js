import { may } from '../../admin/users.js';
import { AppError } from '../../errors.js';
import { findMailbox, MAILBOX_TLS, mailboxView, removeMailbox, setMailbox, testMailbox, } from '../../receiving/mailbox-settings.js';
import { dateTime } from '../format.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
const TLS_LABELS = {
    implicit: 'TLS (IMAPS, puerto 993)',
    starttls: 'STARTTLS (puerto 143)',
    none: 'Sin cifrar (solo servidores de prueba locales)',
};
async function render(ctx, reply, v, status = 200) {
    const { web, issuer } = v;
    const errors = v.errors ?? new Map();
    if (!may(web.user, 'settings')) {
        const body = notice('info', 'Solo el dueño de la cuenta puede ver y cambiar el buzón de intercambio.');
        return sendHtml(reply, page({ title: 'Buzón de intercambio', nav: 'buzon', web, issuer, body }), status);
    }
    const stored = await findMailbox(ctx, issuer);
    const view = stored ? await mailboxView(ctx, stored) : null;
    const values = v.values ?? {
        host: view?.host ?? '',
        port: view ? String(view.port) : '',
        tls: view?.tls ?? 'implicit',
        user: view?.user ?? '',
        folder: view?.folder ?? 'INBOX',
        answer: view?.answer_by_email ?? true,
    };
    const field = (id, label, input) => html `<label for="${id}">${label}</label>${input}${fieldError(id, errors.get(id))}`;
    const body = html `
${v.notice ? notice(v.notice.kind, v.notice.text) : ''}
<p class="hint">Tus proveedores envían sus DTE por correo a la casilla de intercambio registrada en el SII. Timbre la lee por IMAP cada cierto tiempo, revisa cada XML adjunto como lo haría el receptor y responde al proveedor con un acuse firmado (RespuestaDTE).</p>
${view
        ? html `<dl class="details">
<dt>Última lectura correcta</dt><dd>${view.last_ok_at ? dateTime(new Date(view.last_ok_at)) : 'Aún no se ha leído'}</dd>
<dt>Último error</dt><dd>${view.last_error ? html `<span class="badge badge-red">${dateTime(new Date(view.last_error_at ?? 0))}</span> ${view.last_error}` : 'Ninguno'}</dd>
<dt>Mensajes leídos</dt><dd>${view.messages_read}</dd>
</dl>
<form method="post" action="/dashboard/${issuer.rut}/buzon/probar" class="inline">
${csrfField(web)}
<button type="submit" class="button">Probar conexión</button>
</form>`
        : html `<p class="empty">Sin buzón configurado: los documentos recibidos solo llegan si se suben a mano.</p>`}
<section aria-labelledby="h-mb"><h2 id="h-mb">${view ? 'Cambiar el buzón' : 'Configurar el buzón'}</h2>
${errors.get('general') ? notice('error', errors.get('general')) : ''}
<form method="post" action="/dashboard/${issuer.rut}/buzon" class="stack narrow-form">
${csrfField(web)}
${field('mb-host', 'Servidor IMAP', html `<input id="mb-host" name="host" required value="${values.host}"${describedBy('mb-host', errors.get('mb-host'))}>`)}
${field('mb-tls', 'Conexión', html `<select id="mb-tls" name="tls">${MAILBOX_TLS.map((t) => html `<option value="${t}"${attr('selected', t === values.tls)}>${TLS_LABELS[t]}</option>`)}</select>`)}
${field('mb-port', 'Puerto (vacío: el habitual)', html `<input id="mb-port" name="port" inputmode="numeric" value="${values.port}"${describedBy('mb-port', errors.get('mb-port'))}>`)}
${field('mb-user', 'Usuario', html `<input id="mb-user" name="user" required autocomplete="off" value="${values.user}"${describedBy('mb-user', errors.get('mb-user'))}>`)}
${field('mb-password', view ? 'Contraseña (vacía: se mantiene la guardada)' : 'Contraseña', html `<input id="mb-password" name="password" type="password" autocomplete="new-password"${attr('required', !view)}${describedBy('mb-password', errors.get('mb-password'))}>`)}
${field('mb-folder', 'Carpeta', html `<input id="mb-folder" name="folder" value="${values.folder}">`)}
<label><input type="checkbox" name="answer" value="1"${attr('checked', values.answer)}> Responder al proveedor por correo con el acuse de recibo firmado</label>
<button type="submit" class="button primary">Guardar</button>
<p class="hint">La contraseña se guarda cifrada y nunca se vuelve a mostrar.</p>
</form></section>
${view
        ? html `<form method="post" action="/dashboard/${issuer.rut}/buzon/eliminar" class="inline">
${csrfField(web)}
<button type="submit" class="button danger">Dejar de leer este buzón</button>
</form>`
        : ''}`;
    return sendHtml(reply, page({ title: 'Buzón de intercambio', nav: 'buzon', web, issuer, body }), status);
}
function valuesOf(f) {
    return {
        host: f.get('host'),
        port: f.get('port'),
        tls: f.get('tls'),
        user: f.get('user'),
        folder: f.get('folder'),
        answer: f.get('answer') === '1',
    };
}
function validate(v) {
    const errors = new Map();
    if (!/^[A-Za-z0-9.:\-[\]]{1,253}$/.test(v.host))
        errors.set('mb-host', 'Escribe el nombre o la dirección del servidor IMAP.');
    if (v.port && !(/^\d{1,5}$/.test(v.port) && Number(v.port) >= 1 && Number(v.port) <= 65535)) {
        errors.set('mb-port', 'El puerto es un número entre 1 y 65535.');
    }
    if (!v.user || v.user.length > 320)
        errors.set('mb-user', 'Escribe el usuario de la casilla.');
    return errors;
}
const resultNotice = (r) => ({ kind: r.ok ? 'ok' : 'error', text: r.message });
export function mailboxRoutes(ctx) {
    const owner = (request) => {
        const web = signedIn(request);
        const issuer = issuerOf(request, request.params.rut);
        if (!may(web.user, 'settings'))
            throw new AppError('FORBIDDEN_ROLE');
        return { web, issuer };
    };
    return async (app) => {
        app.get('/:rut/buzon', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const q = request.query;
            return render(ctx, reply, {
                web: signedIn(request),
                issuer,
                ...(q.ok === '1' && { notice: { kind: 'ok', text: 'Buzón guardado.' } }),
                ...(q.ok === 'removed' && { notice: { kind: 'ok', text: 'Se dejó de leer el buzón.' } }),
            });
        });
        app.post('/:rut/buzon', async (request, reply) => {
            const { web, issuer } = owner(request);
            const values = valuesOf(request.form);
            const errors = validate(values);
            if (errors.size > 0)
                return render(ctx, reply, { web, issuer, values, errors }, 400);
            const password = request.form.raw('password');
            try {
                await setMailbox(ctx, issuer, {
                    host: values.host,
                    user: values.user,
                    ...(values.port && { port: Number(values.port) }),
                    ...(MAILBOX_TLS.includes(values.tls) && { tls: values.tls }),
                    ...(values.folder && { folder: values.folder.slice(0, 200) }),
                    ...(password && { password }),
                    answerByEmail: values.answer,
                });
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                const id = err.code === 'MAILBOX_PASSWORD_REQUIRED' ? 'mb-password' : 'general';
                return render(ctx, reply, { web, issuer, values, errors: new Map([[id, errorMessage(err)]]) }, err.status);
            }
            return reply.redirect(`/dashboard/${issuer.rut}/buzon?ok=1`, 303);
        });
        app.post('/:rut/buzon/probar', async (request, reply) => {
            const { web, issuer } = owner(request);
            try {
                return render(ctx, reply, { web, issuer, notice: resultNotice(await testMailbox(ctx, issuer)) });
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                return render(ctx, reply, { web, issuer, notice: { kind: 'error', text: errorMessage(err) } }, err.status);
            }
        });
        app.post('/:rut/buzon/eliminar', async (request, reply) => {
            const { issuer } = owner(request);
            await removeMailbox(ctx, issuer).catch((err) => {
                if (!(err instanceof AppError && err.code === 'MAILBOX_NOT_FOUND'))
                    throw err;
            });
            return reply.redirect(`/dashboard/${issuer.rut}/buzon?ok=removed`, 303);
        });
    };
}
