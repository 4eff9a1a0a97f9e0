import { importCaf } from '../../admin/cafs.js';
import { may } from '../../admin/users.js';
import { parseCaf } from '../../dte/caf.js';
import { DTE_TYPES } from '../../dte/model.js';
import { AppError } from '../../errors.js';
import { listFolios, requestFolios } from '../../issuing/folios.js';
import { date, rut, TYPE_NAMES, typeName } from '../format.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
import { typeBadge } from '../components.js';
async function render(ctx, reply, v, status = 200) {
    const { web, issuer } = v;
    const folios = await listFolios(ctx, issuer);
    const errors = v.errors ?? new Map();
    const base = `/dashboard/${issuer.rut}/folios`;
    const canEdit = may(web.user, 'folios');
    const sandbox = issuer.siiAmbiente === 0;
    const body = html `
${v.ok ? notice('ok', v.ok) : ''}
${errors.get('general') ? notice('error', errors.get('general')) : ''}
<p class="muted">${sandbox ? 'Sandbox: Timbre genera rangos de prueba por sí mismo (1.000 folios al primer uso de cada tipo); no se piden al SII.' : 'Producción: folios autorizados por el SII (CAF).'}</p>
${folios.data.length === 0
        ? html `<p class="empty">Aún no hay folios para este ambiente. ${sandbox ? 'Se crean al emitir el primer documento de cada tipo, o solicítalos abajo.' : 'Sube un CAF descargado del SII o solicita folios abajo.'}</p>`
        : html `<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Tipo</th><th scope="col" class="num">Desde</th><th scope="col" class="num">Hasta</th><th scope="col" class="num">Usados</th><th scope="col" class="num">Disponibles</th><th scope="col">Autorizado</th><th scope="col">Vence</th></tr></thead>
<tbody>${folios.data.flatMap((t) => t.ranges.map((r) => html `<tr>
<td>${typeBadge(t.type)} ${typeName(t.type)}</td><td class="num">${r.from}</td><td class="num">${r.to}</td>
<td class="num">${Math.min(r.next, r.to + 1) - r.from}</td><td class="num">${r.available}</td>
<td>${date(r.authorised_at)}</td><td>${r.expires_at ? date(r.expires_at) : 'No vence'}${r.expired ? html ` <span class="badge badge-red">Vencido</span>` : ''}</td></tr>`))}</tbody></table></div>`}
${canEdit
        ? html `<div class="columns">
<section aria-labelledby="h-caf"><h2 id="h-caf">Subir CAF</h2>
<p class="hint">El archivo XML que entrega el SII al autorizar folios. Se verifica que sea de ${rut(issuer.rut)} y esté firmado por el SII.</p>
<form method="post" action="${base}/caf" enctype="multipart/form-data" class="stack">
${csrfField(web)}
<label for="caf-file">Archivo CAF (.xml)</label>
<input id="caf-file" name="file" type="file" accept=".xml,text/xml,application/xml" required${describedBy('caf-file', errors.get('caf-file'))}>
${fieldError('caf-file', errors.get('caf-file'))}
<button type="submit" class="button primary">Subir CAF</button>
</form></section>
<section aria-labelledby="h-req"><h2 id="h-req">Solicitar folios</h2>
<form method="post" action="${base}/solicitar" class="stack">
${csrfField(web)}
<label for="req-tipo">Tipo de documento</label>
<select id="req-tipo" name="tipo_dte">${DTE_TYPES.map((t) => html `<option value="${t}"${attr('selected', v.values?.tipo === String(t))}>${t} · ${TYPE_NAMES[t]}</option>`)}</select>
<label for="req-cantidad">Cantidad</label>
<input id="req-cantidad" name="cantidad" inputmode="numeric" value="${v.values?.cantidad ?? '100'}"${describedBy('req-cantidad', errors.get('req-cantidad'))}>
${fieldError('req-cantidad', errors.get('req-cantidad'))}
<button type="submit" class="button primary">Solicitar folios</button>
</form></section></div>`
        : notice('info', 'Tu rol permite ver los folios pero no cargarlos.')}`;
    return sendHtml(reply, page({ title: 'Folios', nav: 'folios', web, issuer, body }), status);
}
export function folioRoutes(ctx) {
    return async (app) => {
        app.get('/:rut/folios', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const ok = request.query.ok;
            const sandboxCaf = issuer.siiAmbiente === 0 ? ' Es un CAF de producción: se usará cuando el emisor esté en producción.' : '';
            const q = request.query;
            const range = /^\d{1,3}$/.test(q.tipo ?? '') && /^\d{1,10}$/.test(q.desde ?? '') && /^\d{1,10}$/.test(q.hasta ?? '')
                ? `Folios obtenidos para el tipo ${q.tipo}: ${q.desde}–${q.hasta}.`
                : 'Folios obtenidos.';
            const message = ok === 'caf' ? `CAF cargado.${sandboxCaf}` : ok === 'solicitados' ? range : undefined;
            return render(ctx, reply, { web: signedIn(request), issuer, ...(message && { ok: message }) });
        });
        app.post('/:rut/folios/caf', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'folios'))
                throw new AppError('FORBIDDEN_ROLE');
            const file = request.form.file('file');
            const fail = (message, status = 422) => render(ctx, reply, { web, issuer, errors: new Map([['caf-file', message]]) }, status);
            if (!file)
                return fail('Elige el archivo CAF.', 400);
            try {
                await importCaf(ctx, { rut: issuer.rut, xml: file.data });
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                if (err.code === 'CAF_ISSUER_MISMATCH') {
                    return fail(`El CAF es de otro RUT (${rut(parseCaf(file.data).re)}).`);
                }
                return fail(errorMessage(err), err.status);
            }
            return reply.redirect(`/dashboard/${issuer.rut}/folios?ok=caf`, 303);
        });
        app.post('/:rut/folios/solicitar', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'folios'))
                throw new AppError('FORBIDDEN_ROLE');
            const tipo = request.form.get('tipo_dte');
            const cantidad = request.form.get('cantidad');
            const values = { tipo, cantidad };
            if (!DTE_TYPES.includes(Number(tipo))) {
                return render(ctx, reply, { web, issuer, values, errors: new Map([['general', 'Elige un tipo de documento.']]) }, 400);
            }
            if (!/^\d{1,5}$/.test(cantidad) || Number(cantidad) < 1 || Number(cantidad) > 10_000) {
                return render(ctx, reply, { web, issuer, values, errors: new Map([['req-cantidad', 'Debe ser un número entre 1 y 10.000.']]) }, 400);
            }
            let caf;
            try {
                caf = await requestFolios(ctx, issuer, Number(tipo), Number(cantidad));
            }
            catch (err) {
                if (!(err instanceof AppError) || (err.status >= 500 && err.code !== 'SII_UNAVAILABLE'))
                    throw err;
                return render(ctx, reply, { web, issuer, values, errors: new Map([['general', errorMessage(err)]]) }, err.status);
            }
            const obtained = new URLSearchParams({
                ok: 'solicitados',
                tipo: String(caf.type),
                desde: String(caf.rangeFrom),
                hasta: String(caf.rangeTo),
            });
            return reply.redirect(`/dashboard/${issuer.rut}/folios?${obtained}`, 303);
        });
    };
}
