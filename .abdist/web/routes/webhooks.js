import { may } from '../../admin/users.js';
import { AppError } from '../../errors.js';
import { EVENT_TYPES, isEventType } from '../../events/types.js';
import { createEndpoint, deleteEndpoint, listEndpoints, MAX_ENDPOINTS, recentAttempts, redeliverEvent, testEndpoint, } from '../../events/webhooks.js';
import { dateTime, eventLabel } from '../format.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { deliveryErrorText, errorMessage } from '../messages.js';
import { holdSecret, takeSecret } from '../../admin/one-time-secrets.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
/** A ping goes only to the endpoint being tested: it is not a subscription. */
const SUBSCRIBABLE = EVENT_TYPES.filter((t) => t !== 'ping');
function eventName(type) {
    return html `${eventLabel(type)}<br><code class="muted">${type}</code>`;
}
async function render(ctx, reply, v, status = 200) {
    const { web, issuer } = v;
    const errors = v.errors ?? new Map();
    const draft = v.draft ?? { url: '', events: [], description: '' };
    const [endpoints, attempts] = await Promise.all([listEndpoints(ctx, issuer), recentAttempts(ctx, issuer, 50)]);
    const owner = may(web.user, 'webhooks');
    const full = endpoints.length >= MAX_ENDPOINTS;
    const base = `/dashboard/${issuer.rut}/webhooks`;
    // "Reenviar" once per event: on its newest attempt (the log is newest first).
    const seen = new Set();
    const body = html `
${v.top ?? ''}
<p class="muted">Timbre avisa a tus sistemas con un POST firmado (<a href="https://www.standardwebhooks.com/">Standard Webhooks</a>) cuando un documento se emite, es aceptado o rechazado por el SII, o cuando quedan pocos folios. Verifica la firma con el secreto del endpoint.</p>
<section aria-labelledby="h-endpoints"><h2 id="h-endpoints">Endpoints</h2>
${endpoints.length
        ? html `<div class="table-wrap"><table class="list"><thead><tr><th scope="col">URL</th><th scope="col">Eventos</th><th scope="col">Estado</th>${owner ? html `<th scope="col"><span class="visually-hidden">Acciones</span></th>` : ''}</tr></thead>
<tbody>${endpoints.map((e) => html `<tr><td class="wrap"><code>${e.url}</code>${e.description ? html `<br><span class="muted">${e.description}</span>` : ''}</td>
<td>${e.events.length ? html `<ul class="plain">${e.events.map((t) => html `<li>${eventName(t)}</li>`)}</ul>` : 'Todos'}</td>
<td>${e.enabled ? html `<span class="badge badge-green">Activo</span>` : html `<span class="badge badge-gray">Desactivado</span>${e.disabled_at ? html `<br><span class="muted">desde ${dateTime(new Date(e.disabled_at))}</span>` : ''}`}${e.enabled && e.failing_since ? html `<br><span class="muted">Falla desde ${dateTime(new Date(e.failing_since))}</span>` : ''}</td>
${owner
            ? html `<td class="actions"><form method="post" action="${base}/${e.id}/prueba" class="inline">${csrfField(web)}<button type="submit" class="button small">Enviar prueba</button></form>
<form method="post" action="${base}/${e.id}/eliminar" class="inline">${csrfField(web)}<button type="submit" class="button small danger">Eliminar</button></form></td>`
            : ''}</tr>`)}</tbody></table></div>`
        : html `<p class="empty">Aún no hay endpoints.${owner ? ' Agrega la URL de tu sistema para recibir los eventos.' : ''}</p>`}
</section>
${owner
        ? html `<section aria-labelledby="h-new"><h2 id="h-new">Agregar endpoint</h2>
${full ? notice('warn', `Ya hay ${MAX_ENDPOINTS} endpoints en este emisor: elimina uno para agregar otro.`) : ''}
${errors.get('general') ? notice('error', errors.get('general')) : ''}
<form method="post" action="${base}" class="stack narrow-form">
${csrfField(web)}
<label for="wh-url">URL</label>
<input id="wh-url" name="url" type="url" inputmode="url" required placeholder="https://example.cl/timbre" value="${draft.url}"${describedBy('wh-url', errors.get('wh-url'))}>
${fieldError('wh-url', errors.get('wh-url'))}
<label for="wh-description">Descripción (opcional)</label>
<input id="wh-description" name="description" placeholder="ERP contabilidad" value="${draft.description}"${describedBy('wh-description', errors.get('wh-description'))}>
${fieldError('wh-description', errors.get('wh-description'))}
<details class="event-picker"${attr('open', draft.events.length > 0 || errors.has('wh-events'))}><summary>Eventos: todos, o elige cuáles</summary>
<fieldset${errors.has('wh-events') ? html ` aria-describedby="wh-events-error"` : ''}><legend>Eventos que recibe</legend>
<p class="hint">Sin marcar ninguno, recibe todos (también los que se agreguen en el futuro).</p>
<div class="checks">${SUBSCRIBABLE.map((t, i) => html `<div class="check"><input type="checkbox" id="wh-ev-${i}" name="events" value="${t}"${attr('checked', draft.events.includes(t))}><label for="wh-ev-${i}">${eventName(t)}</label></div>`)}</div>
</fieldset>
${fieldError('wh-events', errors.get('wh-events'))}
</details>
<button type="submit" class="button primary"${attr('disabled', full)}>Agregar endpoint</button>
</form></section>`
        : notice('info', 'Solo el dueño de la cuenta puede agregar, probar o eliminar endpoints y reenviar eventos.')}
<section aria-labelledby="h-deliveries"><h2 id="h-deliveries">Entregas recientes</h2>
${attempts.length
        ? html `<div class="table-wrap"><table class="list deliveries"><thead><tr><th scope="col">Fecha</th><th scope="col">Evento</th><th scope="col">Endpoint</th><th scope="col" class="num">Intento</th><th scope="col" class="num">HTTP</th><th scope="col" class="num">Latencia</th><th scope="col">Error</th>${owner ? html `<th scope="col"><span class="visually-hidden">Acciones</span></th>` : ''}</tr></thead>
<tbody>${attempts.map((a) => {
            const first = !seen.has(a.event_id);
            seen.add(a.event_id);
            return html `<tr><td class="nowrap">${dateTime(new Date(a.at))}</td><td>${eventName(a.event_type)}</td><td class="wrap"><code>${a.url}</code></td>
<td class="num">${a.attempt}</td><td class="num">${a.status === null ? '—' : html `<span class="badge ${a.status >= 200 && a.status < 300 ? 'badge-green' : 'badge-red'}">${a.status}</span>`}</td>
<td class="num">${a.latency_ms} ms</td><td class="wrap">${a.error === null ? '—' : deliveryErrorText(a.error)}</td>
${owner ? html `<td>${first ? html `<form method="post" action="${base}/eventos/${a.event_id}/reenviar" class="inline">${csrfField(web)}<button type="submit" class="button small">Reenviar</button></form>` : ''}</td>` : ''}</tr>`;
        })}</tbody></table></div>
<p class="hint">Cada entrega sin respuesta 2xx en 10 s se reintenta durante al menos 3 días; después el endpoint se desactiva.</p>`
        : html `<p class="empty">Aún no hay entregas.${owner && endpoints.length ? ' Usa «Enviar prueba» para probar un endpoint.' : ''}</p>`}
</section>`;
    return sendHtml(reply, page({ title: 'Webhooks', nav: 'webhooks', web, issuer, body }), status);
}
/** Which field an error of createEndpoint is about. */
function fieldOf(err) {
    const path = err.details?.[0]?.path;
    if (path === 'description')
        return 'wh-description';
    if (path === 'events')
        return 'wh-events';
    if (err.code === 'WEBHOOK_LIMIT_REACHED')
        return 'general';
    return 'wh-url';
}
const OK = {
    eliminado: 'Endpoint eliminado: ya no recibe eventos.',
};
export function webhookRoutes(ctx) {
    return async (app) => {
        const owned = (request) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'webhooks'))
                throw new AppError('FORBIDDEN_ROLE');
            return { web, issuer };
        };
        app.get('/:rut/webhooks', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const q = request.query;
            let top = '';
            if (q.prueba === 'ok' && /^\d{3}$/.test(q.status ?? '') && /^\d{1,6}$/.test(q.ms ?? ''))
                top = notice('ok', `Prueba entregada: el endpoint respondió HTTP ${q.status} en ${q.ms} ms.`);
            // The reason is worded by deliveryErrorText: fixed sentences and digits, whatever the URL says.
            if (q.prueba === 'error')
                top = notice('error', `La prueba no se entregó. ${deliveryErrorText(q.error ?? '')} Se reintentará como cualquier evento; revisa que la URL responda 2xx en menos de 10 s.`);
            if (q.ok && q.ok in OK)
                top = notice('ok', OK[q.ok]);
            if (q.ok === 'reenviado') {
                top =
                    q.n === '0'
                        ? notice('warn', 'Ningún endpoint activo recibe ese evento: no se reenvió.')
                        : notice('ok', `Evento en cola para reenviarse a ${q.n === '1' ? '1 endpoint' : `${q.n} endpoints`}.`);
            }
            return render(ctx, reply, { web, issuer, top });
        });
        app.post('/:rut/webhooks', async (request, reply) => {
            const { web, issuer } = owned(request);
            const draft = {
                url: request.form.get('url'),
                events: request.form.getAll('events'),
                description: request.form.get('description'),
            };
            const errors = new Map();
            if (!draft.url)
                errors.set('wh-url', 'Escribe la URL que recibirá los eventos.');
            else if (draft.url.length > 2000)
                errors.set('wh-url', 'Máximo 2000 caracteres.');
            if (draft.description.length > 200)
                errors.set('wh-description', 'Máximo 200 caracteres.');
            const unknown = draft.events.filter((t) => !isEventType(t) || t === 'ping');
            if (unknown.length)
                errors.set('wh-events', `Eventos desconocidos: ${unknown.join(', ')}.`);
            if (errors.size)
                return render(ctx, reply, { web, issuer, draft, errors }, 400);
            try {
                const created = await createEndpoint(ctx, issuer, {
                    url: draft.url,
                    events: draft.events,
                    ...(draft.description && { description: draft.description }),
                });
                // Post/redirect/get: the secret waits for one read by the page the redirect opens, so a
                // reload of that page shows nothing new and creates no second endpoint.
                const id = await holdSecret(ctx, {
                    sessionId: web.session.id,
                    kind: 'webhook',
                    label: { url: created.url },
                    secret: created.secret,
                });
                return reply.redirect(`/dashboard/${issuer.rut}/webhooks/nuevo/${id}`, 303);
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                return render(ctx, reply, { web, issuer, draft, errors: new Map([[fieldOf(err), errorMessage(err)]]) }, err.status);
            }
        });
        app.get('/:rut/webhooks/nuevo/:id', async (request, reply) => {
            const web = signedIn(request);
            const { rut, id } = request.params;
            const issuer = issuerOf(request, rut);
            const taken = await takeSecret(ctx, { id, sessionId: web.session.id, kind: 'webhook' });
            const top = taken
                ? html `<div class="new-key notice notice-ok" role="status">
<p><strong>Endpoint creado: <code>${taken.label.url}</code>.</strong> Guarda su secreto ahora: no se volverá a mostrar. Con él verificas la firma (<code>webhook-signature</code>) de cada entrega.</p>
<div class="copy"><code id="new-secret">${taken.secret}</code><button type="button" class="button small" data-copy="new-secret">Copiar</button></div>
</div>`
                : notice('info', 'El secreto de este endpoint ya se mostró y no se vuelve a mostrar. Si no lo guardaste, elimina el endpoint y agrégalo de nuevo.');
            return render(ctx, reply, { web, issuer, top });
        });
        // The test ping, then a redirect carrying its outcome: a reload of the result sends nothing.
        app.post('/:rut/webhooks/:id/prueba', async (request, reply) => {
            const { issuer } = owned(request);
            const { id } = request.params;
            const r = await testEndpoint(ctx, issuer, id);
            const outcome = r.delivered
                ? { prueba: 'ok', status: String(r.status), ms: String(r.latency_ms) }
                : { prueba: 'error', error: r.error ?? '' };
            return reply.redirect(`/dashboard/${issuer.rut}/webhooks?${new URLSearchParams(outcome)}`, 303);
        });
        app.post('/:rut/webhooks/:id/eliminar', async (request, reply) => {
            const { web, issuer } = owned(request);
            const { id } = request.params;
            const endpoint = (await listEndpoints(ctx, issuer)).find((e) => e.id === id);
            if (!endpoint)
                throw new AppError('WEBHOOK_NOT_FOUND');
            if (request.form.get('confirm') !== '1') {
                const body = html `<div class="confirm" role="alert"><h2>¿Eliminar el endpoint <code class="wrap">${endpoint.url}</code>?</h2>
<p>Dejará de recibir eventos desde ahora, y sus entregas pendientes y su historial se borran. No se puede deshacer: para volver a recibirlos tendrás que agregarlo de nuevo, con un secreto nuevo.</p>
<form method="post" action="/dashboard/${issuer.rut}/webhooks/${endpoint.id}/eliminar" class="inline">${csrfField(web)}
<input type="hidden" name="confirm" value="1"><button type="submit" class="button danger">Sí, eliminar</button></form>
<a class="button" href="/dashboard/${issuer.rut}/webhooks">Cancelar</a></div>`;
                return sendHtml(reply, page({ title: 'Webhooks', nav: 'webhooks', web, issuer, body }));
            }
            await deleteEndpoint(ctx, issuer, endpoint.id);
            return reply.redirect(`/dashboard/${issuer.rut}/webhooks?ok=eliminado`, 303);
        });
        app.post('/:rut/webhooks/eventos/:id/reenviar', async (request, reply) => {
            const { issuer } = owned(request);
            const { id } = request.params;
            const r = await redeliverEvent(ctx, issuer, id);
            return reply.redirect(`/dashboard/${issuer.rut}/webhooks?ok=reenviado&n=${r.queued}`, 303);
        });
    };
}
