/**
 * Aceptar o reclamar un documento recibido, en el panel (README "Accepting and claiming received
 * documents"): the section of a received document's page (its decisions, the forms Aceptar with
 * an optional Recinto for the receipt of goods, and Reclamar with motivo and glosa) and the
 * POSTs behind them, which call the same use case as the API (src/receiving/decisions.ts).
 * Owners and editors decide; viewers see the decisions. The matrix's refusals are shown with the
 * SII's code and its Spanish reason.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { may } from '../../admin/users.ts';
import type { AppContext } from '../../context.ts';
import { normalizeRut } from '../../dte/rut.ts';
import { AppError, ERROR_CATALOG, type ErrorCode } from '../../errors.ts';
import {
  DECIDABLE_TYPES,
  type DecisionRequest,
  DecisionRefused,
  type DecisionView,
  decide,
  decisionXml,
  refusalReason,
} from '../../receiving/decisions.ts';
import { dateTime } from '../format.ts';
import { type Html, html } from '../html.ts';
import { csrfField, notice } from '../layout.ts';
import type { SignedIn } from '../../admin/users.ts';
import { errorMessage } from '../messages.ts';
import { issuerOf, signedIn } from '../plugin.ts';

const ACTION_LABELS: Record<string, string> = {
  ACD: 'Acepta el contenido (ACD)',
  ERM: 'Recibo de mercaderías o servicios (ERM)',
  RCD: 'Reclamo al contenido (RCD)',
  RFP: 'Reclamo por falta parcial (RFP)',
  RFT: 'Reclamo por falta total (RFT)',
};

const MOTIVOS: [string, string][] = [
  ['contenido', 'Contenido del documento (RCD)'],
  ['falta_parcial', 'Falta parcial de mercaderías (RFP)'],
  ['falta_total', 'Falta total de mercaderías (RFT)'],
];

function stateText(d: DecisionView): Html {
  switch (d.state) {
    case 'done':
      return html`<span class="badge badge-green">Registrada en el SII</span>`;
    case 'local':
      return html`<span class="badge badge-gray">Decidida en sandbox (no se envía al SII)</span>`;
    case 'pending':
      return html`<span class="badge badge-amber">Pendiente: el SII no respondió, Timbre reintenta</span>`;
    default:
      return html`<span class="badge badge-red">Rechazada por el SII</span> ${d.sii ? html`<span class="muted">código ${d.sii.cod_resp}: ${d.sii.desc_resp}</span>` : ''}`;
  }
}

interface Flash {
  decision?: string;
  error?: string;
  sii?: string;
}

function flashNotice(flash: Flash): Html | string {
  if (flash.decision === 'done')
    return notice('ok', 'Decisión registrada en el SII. La respuesta se envía al proveedor.');
  if (flash.decision === 'local') return notice('ok', 'Decisión guardada (sandbox: no se envía al SII).');
  if (flash.decision === 'pending') {
    return notice('warn', 'El SII no respondió: la decisión quedó guardada y Timbre la registrará en cuanto responda.');
  }
  if (flash.decision === 'refused') return notice('error', 'El SII rechazó la decisión: ver el código abajo.');
  const sii = Number(flash.sii);
  if (flash.error && flash.error in ERROR_CATALOG) {
    const refused = sii ? refusalReason(sii) : null;
    return notice('error', refused ? `${refused} (código ${sii} del SII)` : errorMessageOf(flash.error as ErrorCode));
  }
  return '';
}

function errorMessageOf(code: ErrorCode): string {
  return code === 'VALIDATION_FAILED'
    ? 'Revisa el formulario: la glosa es obligatoria (hasta 200 caracteres) y el recinto tiene hasta 80.'
    : errorMessage(new AppError(code));
}

/** The received document's section: its decisions and, for owners and editors, the forms. */
export function decisionSection(
  web: SignedIn,
  base: string,
  doc: { emisor: { rut: string }; type: number; folio: number; decisions: DecisionView[] },
  flash: Flash,
): Html {
  const url = `${base}/recibidos/${doc.emisor.rut}/${doc.type}/${doc.folio}`;
  const decidable = DECIDABLE_TYPES.includes(doc.type);
  const canDecide = may(web.user, 'issue') && decidable;
  return html`<section aria-labelledby="h-decision"><h2 id="h-decision">Aceptación o reclamo en el SII</h2>
${flashNotice(flash)}
${
  doc.decisions.length
    ? html`<div class="table-wrap"><table class="list"><caption class="visually-hidden">Decisiones</caption>
<thead><tr><th scope="col">Nº</th><th scope="col">Decisión</th><th scope="col">Estado</th><th scope="col">Fecha</th><th scope="col">Respuesta al proveedor</th></tr></thead>
<tbody>${doc.decisions.map(
        (d) => html`<tr><td>${d.number}</td>
<td>${d.actions.map((a) => ACTION_LABELS[a] ?? a).join(' + ')}${d.glosa ? html`<br><span class="muted">${d.glosa}</span>` : ''}${d.recinto ? html`<br><span class="muted">Recinto: ${d.recinto}</span>` : ''}</td>
<td>${stateText(d)}</td>
<td>${dateTime(new Date(d.decided_at ?? d.created_at))}</td>
<td>${d.resultado_url ? html`<a href="${base}/recibidos_decisiones/${d.number}/resultado">ResultadoDTE</a>` : '—'}${d.recibos_url ? html` · <a href="${base}/recibidos_decisiones/${d.number}/recibos">EnvioRecibos</a>` : ''}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">Sin decisiones. Si no lo reclamas dentro de 8 días desde su recepción en el SII, queda aceptado por ley (Ley 19.983).</p>`
}
${
  !decidable
    ? html`<p class="hint">Solo las facturas (33, 34) y liquidaciones-factura (43) se aceptan o reclaman en el SII; las notas y guías no.</p>`
    : canDecide
      ? html`<div class="columns">
<form method="post" action="${url}/aceptar" aria-labelledby="h-aceptar">
${csrfField(web)}
<h3 id="h-aceptar">Aceptar</h3>
<label for="d-recinto">Recinto donde recibiste las mercaderías o servicios (opcional)</label>
<input id="d-recinto" name="recinto" type="text" maxlength="80" placeholder="Bodega central">
<p class="hint">Con recinto se otorga además el recibo de mercaderías (ERM) y se envía un EnvioRecibos al proveedor.</p>
<button type="submit" class="button primary">Aceptar</button>
</form>
<form method="post" action="${url}/reclamar" aria-labelledby="h-reclamar">
${csrfField(web)}
<h3 id="h-reclamar">Reclamar</h3>
<label for="d-motivo">Motivo</label>
<select id="d-motivo" name="motivo" required>${MOTIVOS.map(([v, label]) => html`<option value="${v}">${label}</option>`)}</select>
<label for="d-glosa">Glosa</label>
<textarea id="d-glosa" name="glosa" required maxlength="200" rows="2"></textarea>
<button type="submit" class="button danger">Reclamar</button>
</form></div>`
      : ''
}
</section>`;
}

function keyOf(request: FastifyRequest) {
  const p = request.params as { emisor: string; type: string; folio: string };
  if (!/^\d{1,3}$/.test(p.type) || !/^\d{1,10}$/.test(p.folio)) throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND');
  return { emisor: normalizeRut(p.emisor) ?? p.emisor, type: Number(p.type), folio: Number(p.folio) };
}

export function receivedDecisionRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    const post = (which: 'aceptar' | 'reclamar') =>
      app.post(`/:rut/recibidos/:emisor/:type/:folio/${which}`, async (request, reply) => {
        const web = signedIn(request);
        const issuer = issuerOf(request, (request.params as { rut: string }).rut);
        if (!may(web.user, 'issue')) throw new AppError('FORBIDDEN_ROLE');
        const key = keyOf(request);
        const back = `/dashboard/${issuer.rut}/recibidos/${key.emisor}/${key.type}/${key.folio}`;
        let req: DecisionRequest;
        if (which === 'aceptar') {
          const recinto = (request.form.get('recinto') ?? '').trim();
          if (recinto.length > 80) return reply.redirect(`${back}?error=VALIDATION_FAILED#h-decision`, 303);
          req = { kind: 'accept', ...(recinto && { recibo: { recinto } }) };
        } else {
          const motivo = request.form.get('motivo') ?? '';
          const glosa = (request.form.get('glosa') ?? '').trim();
          if (!['contenido', 'falta_parcial', 'falta_total'].includes(motivo) || !glosa || glosa.length > 200) {
            return reply.redirect(`${back}?error=VALIDATION_FAILED#h-decision`, 303);
          }
          req = { kind: 'claim', motivo: motivo as 'contenido', glosa };
        }
        try {
          const d = await decide(ctx, issuer, key, req);
          return reply.redirect(`${back}?decision=${d.state}#h-decision`, 303);
        } catch (err) {
          if (err instanceof DecisionRefused) {
            return reply.redirect(`${back}?error=${err.code}&sii=${err.siiCode}#h-decision`, 303);
          }
          if (err instanceof AppError && err.status < 500 && err.code !== 'FORBIDDEN_ROLE') {
            return reply.redirect(`${back}?error=${err.code}#h-decision`, 303);
          }
          throw err;
        }
      });
    post('aceptar');
    post('reclamar');

    app.get('/:rut/recibidos_decisiones/:number/:which', async (request, reply) => {
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      const p = request.params as { number: string; which: string };
      if (!/^\d{1,10}$/.test(p.number) || (p.which !== 'resultado' && p.which !== 'recibos')) {
        throw new AppError('DECISION_NOT_FOUND');
      }
      const file = await decisionXml(ctx, issuer, Number(p.number), p.which);
      reply.header('Content-Disposition', `attachment; filename="${file.filename}"`);
      return reply.type('application/xml').send(file.bytes);
    });
  };
}
