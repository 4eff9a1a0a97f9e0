import { may } from '../../admin/users.js';
import { normalizeRut } from '../../dte/rut.js';
import { AppError, ERROR_CATALOG } from '../../errors.js';
import { DECIDABLE_TYPES, DecisionRefused, decide, decideMany, decisionXml, refusalReason, undecided, } from '../../receiving/decisions.js';
import { typeBadge } from '../components.js';
import { date, dateTime, money, rut } from '../format.js';
import { html } from '../html.js';
import { csrfField, notice, page } from '../layout.js';
import { errorMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
const ACTION_LABELS = {
    ACD: 'Acepta el contenido (ACD)',
    ERM: 'Recibo de mercaderías o servicios (ERM)',
    RCD: 'Reclamo al contenido (RCD)',
    RFP: 'Reclamo por falta parcial (RFP)',
    RFT: 'Reclamo por falta total (RFT)',
};
const MOTIVOS = [
    ['contenido', 'Contenido del documento (RCD)'],
    ['falta_parcial', 'Falta parcial de mercaderías (RFP)'],
    ['falta_total', 'Falta total de mercaderías (RFT)'],
];
function stateText(d) {
    switch (d.state) {
        case 'done':
            return html `<span class="badge badge-green">Registrada en el SII</span>`;
        case 'local':
            return html `<span class="badge badge-gray">Decidida en sandbox (no se envía al SII)</span>`;
        case 'pending':
            return html `<span class="badge badge-amber">Pendiente: el SII no respondió, Timbre reintenta</span>`;
        default:
            return html `<span class="badge badge-red">Rechazada por el SII</span> ${d.sii ? html `<span class="muted">código ${d.sii.cod_resp}: ${d.sii.desc_resp}</span>` : ''}`;
    }
}
function flashNotice(flash) {
    if (flash.decision === 'done')
        return notice('ok', 'Decisión registrada en el SII. La respuesta se envía al proveedor.');
    if (flash.decision === 'local')
        return notice('ok', 'Decisión guardada (sandbox: no se envía al SII).');
    if (flash.decision === 'pending') {
        return notice('warn', 'El SII no respondió: la decisión quedó guardada y Timbre la registrará en cuanto responda.');
    }
    if (flash.decision === 'refused')
        return notice('error', 'El SII rechazó la decisión: ver el código abajo.');
    const sii = Number(flash.sii);
    if (flash.error && flash.error in ERROR_CATALOG) {
        const refused = sii ? refusalReason(sii) : null;
        return notice('error', refused ? `${refused} (código ${sii} del SII)` : errorMessageOf(flash.error));
    }
    return '';
}
function errorMessageOf(code) {
    return code === 'VALIDATION_FAILED'
        ? 'Revisa el formulario: la glosa es obligatoria (hasta 200 caracteres) y el recinto tiene hasta 80.'
        : errorMessage(new AppError(code));
}
/** The received document's section: its decisions and, for owners and editors, the forms. */
export function decisionSection(web, base, doc, flash) {
    const url = `${base}/recibidos/${doc.emisor.rut}/${doc.type}/${doc.folio}`;
    const decidable = DECIDABLE_TYPES.includes(doc.type);
    const canDecide = may(web.user, 'issue') && decidable;
    return html `<section aria-labelledby="h-decision"><h2 id="h-decision">Aceptación o reclamo en el SII</h2>
${flashNotice(flash)}
${doc.decisions.length
        ? html `<div class="table-wrap"><table class="list"><caption class="visually-hidden">Decisiones</caption>
<thead><tr><th scope="col">Nº</th><th scope="col">Decisión</th><th scope="col">Estado</th><th scope="col">Fecha</th><th scope="col">Respuesta al proveedor</th></tr></thead>
<tbody>${doc.decisions.map((d) => html `<tr><td>${d.number}</td>
<td>${d.actions.map((a) => ACTION_LABELS[a] ?? a).join(' + ')}${d.glosa ? html `<br><span class="muted">${d.glosa}</span>` : ''}${d.recinto ? html `<br><span class="muted">Recinto: ${d.recinto}</span>` : ''}</td>
<td>${stateText(d)}</td>
<td>${dateTime(new Date(d.decided_at ?? d.created_at))}</td>
<td>${d.resultado_url ? html `<a href="${base}/recibidos_decisiones/${d.number}/resultado">ResultadoDTE</a>` : '—'}${d.recibos_url ? html ` · <a href="${base}/recibidos_decisiones/${d.number}/recibos">EnvioRecibos</a>` : ''}</td></tr>`)}</tbody></table></div>`
        : html `<p class="muted">Sin decisiones. Si no lo reclamas dentro de 8 días desde su recepción en el SII, queda aceptado por ley (Ley 19.983).</p>`}
${!decidable
        ? html `<p class="hint">Solo las facturas (33, 34) y liquidaciones-factura (43) se aceptan o reclaman en el SII; las notas y guías no.</p>`
        : canDecide
            ? html `<div class="columns">
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
<select id="d-motivo" name="motivo" required>${MOTIVOS.map(([v, label]) => html `<option value="${v}">${label}</option>`)}</select>
<label for="d-glosa">Glosa</label>
<textarea id="d-glosa" name="glosa" required maxlength="200" rows="2"></textarea>
<button type="submit" class="button danger">Reclamar</button>
</form></div>`
            : ''}
</section>`;
}
function keyOf(request) {
    const p = request.params;
    if (!/^\d{1,3}$/.test(p.type) || !/^\d{1,10}$/.test(p.folio))
        throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND');
    return { emisor: normalizeRut(p.emisor) ?? p.emisor, type: Number(p.type), folio: Number(p.folio) };
}
/** Days left, in words. */
function daysLeft(plazo) {
    if (!plazo || plazo.days_left === null)
        return 'por confirmar con el SII';
    return plazo.days_left === 0 ? 'vence hoy' : `${plazo.days_left} día${plazo.days_left === 1 ? '' : 's'}`;
}
/** The link from the list of received documents to the page that decides many at once. */
export function bulkDecisionLink(base) {
    return html `<p><a href="${base}/recibidos/decidir">Aceptar o reclamar varios (por vencer primero)</a></p>`;
}
export function receivedDecisionRoutes(ctx) {
    return async (app) => {
        app.get('/:rut/recibidos/decidir', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const base = `/dashboard/${issuer.rut}`;
            const open = await undecided(ctx, issuer);
            const canDecide = may(web.user, 'issue');
            const body = html `
<p class="hint">Facturas recibidas sin aceptar ni reclamar, las que vencen primero arriba. Pasados 8 días desde su recepción en el SII quedan aceptadas por ley (Ley 19.983).</p>
${open.length === 0
                ? html `<p class="empty">No hay documentos pendientes de aceptar o reclamar.</p>`
                : html `<form method="post" action="${base}/recibidos/decidir">
${csrfField(web)}
<div class="table-wrap"><table class="list"><caption class="visually-hidden">Documentos por decidir</caption>
<thead><tr><th scope="col">Elegir</th><th scope="col">Tipo</th><th scope="col">Folio</th><th scope="col">Emisor</th><th scope="col" class="num">Total</th><th scope="col">Plazo</th></tr></thead>
<tbody>${open.map((d, i) => {
                    const value = `${d.emisor.rut}|${d.type}|${d.folio}`;
                    return html `<tr><td><input type="checkbox" id="doc-${i}" name="doc" value="${value}"${canDecide ? '' : ' disabled'}><label class="visually-hidden" for="doc-${i}">Elegir ${d.type} Nº ${d.folio}</label></td>
<td>${typeBadge(d.type)}</td>
<td><a href="${base}/recibidos/${d.emisor.rut}/${d.type}/${d.folio}">Nº ${d.folio}</a><br><span class="muted">${date(d.date)}</span></td>
<td>${d.emisor.name}<br><span class="muted">${rut(d.emisor.rut)}</span></td>
<td class="num">${money(d.totals.total)}</td>
<td>${daysLeft(d.plazo)}</td></tr>`;
                })}</tbody></table></div>
${canDecide
                    ? html `<div class="columns">
<fieldset><legend>Aceptar los elegidos</legend>
<label for="b-recinto">Recinto donde se recibieron (opcional: otorga el recibo de mercaderías)</label>
<input id="b-recinto" name="recinto" type="text" maxlength="80">
<button type="submit" name="decision" value="aceptar" class="button primary">Aceptar</button></fieldset>
<fieldset><legend>Reclamar los elegidos</legend>
<label for="b-motivo">Motivo</label>
<select id="b-motivo" name="motivo">${MOTIVOS.map(([v, label]) => html `<option value="${v}">${label}</option>`)}</select>
<label for="b-glosa">Glosa</label>
<input id="b-glosa" name="glosa" type="text" maxlength="200">
<button type="submit" name="decision" value="reclamar" class="button danger">Reclamar</button></fieldset>
</div>`
                    : ''}
</form>`}`;
            return sendHtml(reply, page({ title: 'Aceptar o reclamar', nav: 'recibidos', web, issuer, body }));
        });
        app.post('/:rut/recibidos/decidir', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'issue'))
                throw new AppError('FORBIDDEN_ROLE');
            const base = `/dashboard/${issuer.rut}`;
            const docs = request.form
                .getAll('doc')
                .slice(0, 100)
                .map((v) => v.split('|'))
                .filter((p) => p.length === 3 && /^\d{1,3}$/.test(p[1]) && /^\d{1,10}$/.test(p[2]))
                .map(([emisor, type, folio]) => ({
                emisor: normalizeRut(emisor) ?? emisor,
                type: Number(type),
                folio: Number(folio),
            }));
            const decision = request.form.get('decision');
            const recinto = (request.form.get('recinto') ?? '').trim().slice(0, 80);
            const motivo = request.form.get('motivo') ?? '';
            const glosa = (request.form.get('glosa') ?? '').trim();
            const problem = docs.length === 0
                ? 'Elige al menos un documento.'
                : decision === 'reclamar' && (!glosa || glosa.length > 200 || !MOTIVOS.some(([v]) => v === motivo))
                    ? 'Para reclamar, indica el motivo y una glosa (hasta 200 caracteres).'
                    : decision !== 'aceptar' && decision !== 'reclamar'
                        ? 'Elige Aceptar o Reclamar.'
                        : null;
            if (problem) {
                const body = html `${notice('error', problem)}<p><a href="${base}/recibidos/decidir">Volver</a></p>`;
                return sendHtml(reply, page({ title: 'Aceptar o reclamar', nav: 'recibidos', web, issuer, body }), 400);
            }
            const req = decision === 'aceptar'
                ? { kind: 'accept', ...(recinto && { recibo: { recinto } }) }
                : { kind: 'claim', motivo: motivo, glosa };
            const results = await decideMany(ctx, issuer, docs.map((key) => ({ key, req })));
            const body = html `<div class="table-wrap"><table class="list"><caption class="visually-hidden">Resultado</caption>
<thead><tr><th scope="col">Documento</th><th scope="col">Resultado</th></tr></thead>
<tbody>${results.map((r, i) => {
                const k = docs[i];
                return html `<tr><td><a href="${base}/recibidos/${k.emisor}/${k.type}/${k.folio}">${k.type} Nº ${k.folio}</a> · ${rut(k.emisor)}</td>
<td>${r.ok ? stateText(r.decision) : html `<span class="badge badge-red">No registrada</span> ${r.sii_code ? `${refusalReason(r.sii_code)} (código ${r.sii_code} del SII)` : errorMessage(new AppError(r.code))}`}</td></tr>`;
            })}</tbody></table></div>
<p><a href="${base}/recibidos/decidir">Volver a los documentos por decidir</a></p>`;
            return sendHtml(reply, page({ title: 'Resultado', nav: 'recibidos', web, issuer, body }));
        });
        const post = (which) => app.post(`/:rut/recibidos/:emisor/:type/:folio/${which}`, async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'issue'))
                throw new AppError('FORBIDDEN_ROLE');
            const key = keyOf(request);
            const back = `/dashboard/${issuer.rut}/recibidos/${key.emisor}/${key.type}/${key.folio}`;
            let req;
            if (which === 'aceptar') {
                const recinto = (request.form.get('recinto') ?? '').trim();
                if (recinto.length > 80)
                    return reply.redirect(`${back}?error=VALIDATION_FAILED#h-decision`, 303);
                req = { kind: 'accept', ...(recinto && { recibo: { recinto } }) };
            }
            else {
                const motivo = request.form.get('motivo') ?? '';
                const glosa = (request.form.get('glosa') ?? '').trim();
                if (!['contenido', 'falta_parcial', 'falta_total'].includes(motivo) || !glosa || glosa.length > 200) {
                    return reply.redirect(`${back}?error=VALIDATION_FAILED#h-decision`, 303);
                }
                req = { kind: 'claim', motivo: motivo, glosa };
            }
            try {
                const d = await decide(ctx, issuer, key, req);
                return reply.redirect(`${back}?decision=${d.state}#h-decision`, 303);
            }
            catch (err) {
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
            const issuer = issuerOf(request, request.params.rut);
            const p = request.params;
            if (!/^\d{1,10}$/.test(p.number) || (p.which !== 'resultado' && p.which !== 'recibos')) {
                throw new AppError('DECISION_NOT_FOUND');
            }
            const file = await decisionXml(ctx, issuer, Number(p.number), p.which);
            reply.header('Content-Disposition', `attachment; filename="${file.filename}"`);
            return reply.type('application/xml').send(file.bytes);
        });
    };
}
