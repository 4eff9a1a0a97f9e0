/**
 * Claves API: the issuer's keys (prefix, role, created, last used, state), creation (the key
 * is shown once, with a copy button), revocation after a confirmation naming the prefix. The
 * same `createApiKey` / `revokeApiKey` as the CLI, so the 5-active-keys-per-account rule holds.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import {
  countActiveApiKeys,
  createApiKey,
  findApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  ROLES,
  revokeApiKey,
} from '../../admin/api-keys.ts';
import { may, type SignedIn } from '../../admin/users.ts';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { Issuer } from '../../admin/issuers.ts';
import { dateTime, ROLE_LABELS } from '../format.ts';
import { type Html, html } from '../html.ts';
import { csrfField, notice, page } from '../layout.ts';
import { errorMessage } from '../messages.ts';
import { issuerOf, sendHtml, signedIn } from '../plugin.ts';

async function render(
  ctx: AppContext,
  reply: FastifyReply,
  v: { web: SignedIn; issuer: Issuer; top?: Html },
  status = 200,
) {
  const { web, issuer } = v;
  const keys = await listApiKeys(ctx, issuer.rut);
  const activeInAccount = await countActiveApiKeys(ctx, issuer.accountId);
  const owner = may(web.user, 'keys');
  const full = activeInAccount >= MAX_ACTIVE_KEYS_PER_ACCOUNT;
  const base = `/dashboard/${issuer.rut}/claves`;
  const body = html`
${v.top ?? ''}
<p class="muted">Las claves autentican la API (<code>Authorization: Bearer timbre_…</code>) y sirven solo para este emisor. Hay ${activeInAccount} de ${MAX_ACTIVE_KEYS_PER_ACCOUNT} claves activas en la cuenta.</p>
${
  keys.length === 0
    ? html`<p class="empty">Aún no hay claves para este emisor.</p>`
    : html`<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Clave</th><th scope="col">Rol</th><th scope="col">Creada</th><th scope="col">Último uso</th><th scope="col">Estado</th>${owner ? html`<th scope="col"><span class="visually-hidden">Acciones</span></th>` : ''}</tr></thead>
<tbody>${keys.map(
        (
          k,
        ) => html`<tr><td><code>${k.prefix}…</code></td><td>${ROLE_LABELS[k.role]}</td><td>${dateTime(k.createdAt)}</td><td>${k.lastUsedAt ? dateTime(k.lastUsedAt) : 'Nunca'}</td>
<td>${k.revokedAt ? html`<span class="badge badge-gray">Revocada ${dateTime(k.revokedAt)}</span>` : html`<span class="badge badge-green">Activa</span>`}</td>
${owner ? html`<td>${k.revokedAt ? '' : html`<form method="post" action="${base}/${k.id}/revocar" class="inline">${csrfField(web)}<button type="submit" class="button small danger">Revocar</button></form>`}</td>` : ''}</tr>`,
      )}</tbody></table></div>`
}
${
  owner
    ? html`<section aria-labelledby="h-new"><h2 id="h-new">Crear clave</h2>
${full ? notice('warn', `Ya hay ${MAX_ACTIVE_KEYS_PER_ACCOUNT} claves activas en la cuenta: revoca una para crear otra.`) : ''}
<form method="post" action="${base}" class="row-form">
${csrfField(web)}
<div class="field"><label for="key-role">Rol</label>
<select id="key-role" name="role">${ROLES.map((r) => html`<option value="${r}">${ROLE_LABELS[r]} (${r})</option>`)}</select></div>
<button type="submit" class="button primary">Crear clave</button>
</form>
<p class="hint">Dueño y editor emiten; lector solo consulta documentos, folios y archivos.</p></section>`
    : notice('info', 'Solo el dueño de la cuenta puede crear o revocar claves.')
}`;
  return sendHtml(reply, page({ title: 'Claves API', nav: 'claves', web, issuer, body }), status);
}

export function keyRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/:rut/claves', async (request, reply) => {
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      const ok = (request.query as { ok?: string }).ok === 'revocada';
      return render(ctx, reply, {
        web: signedIn(request),
        issuer,
        ...(ok && { top: notice('ok', 'Clave revocada.') }),
      });
    });

    app.post('/:rut/claves', async (request, reply) => {
      const web = signedIn(request);
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      if (!may(web.user, 'keys')) throw new AppError('FORBIDDEN_ROLE');
      try {
        const { key, record } = await createApiKey(ctx, { rut: issuer.rut, role: request.form.get('role') });
        const top = html`<div class="new-key notice notice-ok" role="status">
<p><strong>Clave creada (${ROLE_LABELS[record.role]}).</strong> Cópiala ahora: no se volverá a mostrar.</p>
<div class="copy"><code id="new-key">${key}</code><button type="button" class="button small" data-copy="new-key">Copiar</button></div>
</div>`;
        return render(ctx, reply, { web, issuer, top });
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        return render(ctx, reply, { web, issuer, top: notice('error', errorMessage(err)) }, err.status);
      }
    });

    app.post('/:rut/claves/:id/revocar', async (request, reply) => {
      const web = signedIn(request);
      const { rut, id } = request.params as { rut: string; id: string };
      const issuer = issuerOf(request, rut);
      if (!may(web.user, 'keys')) throw new AppError('FORBIDDEN_ROLE');
      const key = await findApiKey(ctx, id, { accountId: issuer.accountId });
      if (request.form.get('confirm') !== '1') {
        const body = html`<div class="confirm" role="alert"><h2>¿Revocar la clave <code>${key.prefix}…</code>?</h2>
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
