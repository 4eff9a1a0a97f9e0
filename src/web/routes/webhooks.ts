/**
 * Webhooks: endpoints (URL, events, state), the secret shown once at creation, the delivery log
 * with redeliver and test. The data comes from src/web/pending.ts, one function per block,
 * until the events use cases (src/events/) are wired in; the page's layout and navigation are
 * final.
 */
import type { FastifyPluginAsync } from 'fastify';
import { may } from '../../admin/users.ts';
import type { AppContext } from '../../context.ts';
import { dateTime } from '../format.ts';
import { html } from '../html.ts';
import { notice, page } from '../layout.ts';
import { issuerOf, sendHtml, signedIn } from '../plugin.ts';
import { webhookDeliveries, webhookEndpoints } from '../pending.ts';

const PENDING =
  'Los webhooks aún no están activados en esta instalación: cuando lo estén, aquí se registran los endpoints y su historial de entregas.';

export function webhookRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/:rut/webhooks', async (request, reply) => {
      const web = signedIn(request);
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      const [endpoints, deliveries] = await Promise.all([
        webhookEndpoints(ctx, issuer),
        webhookDeliveries(ctx, issuer),
      ]);
      const body = html`
<p class="muted">Timbre avisa a tus sistemas con un POST firmado (Standard Webhooks) cuando un documento se emite, es aceptado o rechazado por el SII, o cuando quedan pocos folios.</p>
${endpoints.available ? '' : notice('info', html`<span data-pending="webhooks">${PENDING}</span>`)}
<section aria-labelledby="h-endpoints"><h2 id="h-endpoints">Endpoints</h2>
${
  endpoints.rows.length
    ? html`<div class="table-wrap"><table class="list"><thead><tr><th scope="col">URL</th><th scope="col">Eventos</th><th scope="col">Estado</th></tr></thead>
<tbody>${endpoints.rows.map((e) => html`<tr><td><code>${e.url}</code>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</td><td>${e.events.length ? e.events.join(', ') : 'Todos'}</td><td>${e.enabled ? html`<span class="badge badge-green">Activo</span>` : html`<span class="badge badge-gray">Desactivado</span>`}</td></tr>`)}</tbody></table></div>`
    : html`<p class="empty">Sin endpoints.</p>`
}
${
  may(web.user, 'webhooks')
    ? html`<form class="row-form" aria-label="Agregar endpoint">
<div class="field grow"><label for="wh-url">URL</label><input id="wh-url" name="url" type="url" placeholder="https://example.cl/timbre" disabled></div>
<button type="button" class="button primary" disabled>Agregar endpoint</button>
</form>`
    : ''
}
</section>
<section aria-labelledby="h-deliveries"><h2 id="h-deliveries">Entregas recientes</h2>
${
  deliveries.rows.length
    ? html`<div class="table-wrap"><table class="list"><thead><tr><th scope="col">Fecha</th><th scope="col">Evento</th><th scope="col">Endpoint</th><th scope="col" class="num">Intento</th><th scope="col" class="num">Respuesta</th><th scope="col" class="num">Latencia</th></tr></thead>
<tbody>${deliveries.rows.map((d) => html`<tr><td>${dateTime(d.at)}</td><td><code>${d.eventType}</code></td><td>${d.endpointUrl}</td><td class="num">${d.attempt}</td><td class="num">${d.status ?? d.error ?? '—'}</td><td class="num">${d.latencyMs === null ? '—' : `${d.latencyMs} ms`}</td></tr>`)}</tbody></table></div>`
    : html`<p class="empty">Sin entregas.</p>`
}
</section>`;
      return sendHtml(reply, page({ title: 'Webhooks', nav: 'webhooks', web, issuer, body }));
    });
  };
}
