import { countActiveApiKeys, createApiKey, findApiKey, listAccountApiKeys, MAX_ACTIVE_KEYS_PER_ACCOUNT, MAX_KEY_NAME_LENGTH, ROLES, revokeApiKey, } from '../../admin/api-keys.js';
import { holdSecret, takeSecret } from '../../admin/one-time-secrets.js';
import { may } from '../../admin/users.js';
import { AppError } from '../../errors.js';
import { dateTime, ROLE_LABELS, rut } from '../format.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
/** Least privilege: a new key reads unless the owner chooses more. */
const DEFAULT_ROLE = 'viewer';
async function render(ctx, reply, v, status = 200) {
    const { web, issuer } = v;
    const errors = v.errors ?? new Map();
    const [keys, activeInAccount] = await Promise.all([
        listAccountApiKeys(ctx, issuer.accountId),
        countActiveApiKeys(ctx, issuer.accountId),
    ]);
    // A suggested name, so that every key has one; the owner overwrites it with what it is for.
    const draft = v.draft ?? { name: `Clave ${keys.length + 1}`, role: DEFAULT_ROLE };
    const active = keys.filter((k) => !k.revokedAt);
    const revoked = keys.filter((k) => k.revokedAt);
    const owner = may(web.user, 'keys');
    const full = activeInAccount >= MAX_ACTIVE_KEYS_PER_ACCOUNT;
    const base = `/dashboard/${issuer.rut}/claves`;
    const several = web.issuers.length > 1;
    const revokeButton = (k) => html `<form method="post" action="${base}/${k.id}/revocar" class="inline">${csrfField(web)}<button type="submit" class="button small danger" aria-label="Revocar ${k.name || k.prefix}">Revocar</button></form>`;
    const body = html `
${v.top ?? ''}
<p class="muted">Las claves autentican la API (<code>Authorization: Bearer timbre_…</code>); cada una sirve solo para su emisor. El límite es de la cuenta: <strong>Hay ${activeInAccount} de ${MAX_ACTIVE_KEYS_PER_ACCOUNT} claves activas en la cuenta</strong>${several ? ' (entre todos sus emisores)' : ''}: son las de esta lista.</p>
${active.length === 0
        ? html `<p class="empty">Aún no hay claves activas en la cuenta.</p>`
        : html `<div class="table-wrap"><table class="list keys">
<caption class="visually-hidden">Claves activas de la cuenta</caption>
<thead><tr><th scope="col">Nombre</th><th scope="col" class="hide-sm">Emisor</th><th scope="col">Rol</th><th scope="col" class="hide-sm">Creada</th><th scope="col" class="hide-sm">Último uso</th>${owner ? html `<th scope="col"><span class="visually-hidden">Acciones</span></th>` : ''}</tr></thead>
<tbody>${active.map((k) => html `<tr><td><span class="key-name">${k.name || 'Sin nombre'}</span><br><code>${k.prefix}…</code><span class="show-sm muted">${rut(k.issuer.rut)}</span></td>
<td class="hide-sm">${rut(k.issuer.rut)}<br><span class="muted">${k.issuer.name}</span></td><td>${ROLE_LABELS[k.role]}</td>
<td class="hide-sm">${dateTime(k.createdAt)}</td><td class="hide-sm">${k.lastUsedAt ? dateTime(k.lastUsedAt) : 'Nunca'}</td>
${owner ? html `<td>${revokeButton(k)}</td>` : ''}</tr>`)}</tbody></table></div>`}
${revoked.length
        ? html `<details class="revoked-keys"><summary>Claves revocadas (${revoked.length})</summary>
<ul class="plain">${revoked.map((k) => html `<li>${k.name || 'Sin nombre'} · <code>${k.prefix}…</code> · ${rut(k.issuer.rut)} · revocada ${dateTime(k.revokedAt)}</li>`)}</ul></details>`
        : ''}
${owner
        ? html `<section aria-labelledby="h-new"><h2 id="h-new">Crear clave para ${rut(issuer.rut)}</h2>
${full ? notice('warn', `Ya hay ${MAX_ACTIVE_KEYS_PER_ACCOUNT} claves activas en la cuenta: revoca una para crear otra.`) : ''}
${errors.get('general') ? notice('error', errors.get('general')) : ''}
<form method="post" action="${base}" class="row-form">
${csrfField(web)}
<div class="field grow"><label for="key-name">Nombre</label>
<input id="key-name" name="name" value="${draft.name}" placeholder="ERP contabilidad" autocomplete="off"${describedBy('key-name', errors.get('key-name'))}>
${fieldError('key-name', errors.get('key-name'))}</div>
<div class="field"><label for="key-role">Rol</label>
<select id="key-role" name="role">${ROLES.map((r) => html `<option value="${r}"${attr('selected', r === draft.role)}>${ROLE_LABELS[r]}</option>`)}</select></div>
<button type="submit" class="button primary">Crear clave</button>
</form>
<p class="hint">Nombre: para qué sistema es (hasta ${MAX_KEY_NAME_LENGTH} caracteres). Lector solo consulta documentos, folios y archivos; editor y dueño además emiten.</p></section>`
        : notice('info', 'Solo el dueño de la cuenta puede crear o revocar claves.')}`;
    return sendHtml(reply, page({ title: 'Claves API', nav: 'claves', web, issuer, body }), status);
}
export function keyRoutes(ctx) {
    return async (app) => {
        app.get('/:rut/claves', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const ok = request.query.ok === 'revocada';
            return render(ctx, reply, {
                web: signedIn(request),
                issuer,
                ...(ok && { top: notice('ok', 'Clave revocada.') }),
            });
        });
        app.post('/:rut/claves', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'keys'))
                throw new AppError('FORBIDDEN_ROLE');
            const draft = { name: request.form.get('name'), role: request.form.get('role') || DEFAULT_ROLE };
            const errors = new Map();
            if (!draft.name)
                errors.set('key-name', 'Escribe un nombre para reconocer la clave (por ejemplo, el sistema que la usa).');
            else if ([...draft.name].length > MAX_KEY_NAME_LENGTH)
                errors.set('key-name', `Máximo ${MAX_KEY_NAME_LENGTH} caracteres (tiene ${[...draft.name].length}).`);
            if (errors.size)
                return render(ctx, reply, { web, issuer, draft, errors }, 400);
            try {
                const { key, record } = await createApiKey(ctx, { rut: issuer.rut, role: draft.role, name: draft.name });
                const id = await holdSecret(ctx, {
                    sessionId: web.session.id,
                    kind: 'api_key',
                    label: { name: record.name, role: record.role, rut: issuer.rut },
                    secret: key,
                });
                return reply.redirect(`${base(issuer)}/nueva/${id}`, 303);
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                const field = err.details?.[0]?.path === 'name' ? 'key-name' : 'general';
                return render(ctx, reply, { web, issuer, draft, errors: new Map([[field, errorMessage(err)]]) }, err.status);
            }
        });
        // The page a new key's redirect opens: the key once, then "ya se mostró".
        app.get('/:rut/claves/nueva/:id', async (request, reply) => {
            const web = signedIn(request);
            const { rut: rutText, id } = request.params;
            const issuer = issuerOf(request, rutText);
            const taken = await takeSecret(ctx, { id, sessionId: web.session.id, kind: 'api_key' });
            const top = taken
                ? html `<div class="new-key notice notice-ok" role="status">
<p><strong>Clave «${taken.label.name}» creada (${ROLE_LABELS[taken.label.role ?? ''] ?? taken.label.role}).</strong> Cópiala ahora: no se volverá a mostrar.</p>
<div class="copy"><code id="new-key">${taken.secret}</code><button type="button" class="button small" data-copy="new-key">Copiar</button></div>
</div>`
                : notice('info', 'Esta clave ya se mostró y no se vuelve a mostrar. Si no la copiaste, revócala y crea otra.');
            return render(ctx, reply, { web, issuer, top });
        });
        app.post('/:rut/claves/:id/revocar', async (request, reply) => {
            const web = signedIn(request);
            const { rut, id } = request.params;
            const issuer = issuerOf(request, rut);
            if (!may(web.user, 'keys'))
                throw new AppError('FORBIDDEN_ROLE');
            const key = await findApiKey(ctx, id, { accountId: issuer.accountId });
            if (request.form.get('confirm') !== '1') {
                const body = html `<div class="confirm" role="alert"><h2>¿Revocar la clave ${key.name ? html `«${key.name}» ` : ''}<code>${key.prefix}…</code>?</h2>
<p>Las integraciones que la usan recibirán 401 desde ahora. No se puede deshacer.</p>
<form method="post" action="/dashboard/${issuer.rut}/claves/${key.id}/revocar" class="inline">${csrfField(web)}
<input type="hidden" name="confirm" value="1"><button type="submit" class="button danger">Sí, revocar ${key.prefix}…</button></form>
<a class="button" href="/dashboard/${issuer.rut}/claves">Cancelar</a></div>`;
                return sendHtml(reply, page({ title: 'Claves API', nav: 'claves', web, issuer, body }));
            }
            await revokeApiKey(ctx, key.id, { accountId: issuer.accountId });
            return reply.redirect(`/dashboard/${issuer.rut}/claves?ok=revocada`, 303);
        });
    };
}
function base(issuer) {
    return `/dashboard/${issuer.rut}/claves`;
}
