import { may } from '../../admin/users.js';
import { isRealDate } from '../../dte/calendar-date.js';
import { normalizeRut } from '../../dte/rut.js';
import { refusedCharacter } from '../../dte/xml-text.js';
import { formatDecimal } from '../../dte/pdf/index.js';
import { AppError } from '../../errors.js';
import { envelopeFile, envelopeReception, listReceived, RECEIVED_STATES, receivedDetail, receivedPdf, receivedXml, } from '../../receiving/list-received.js';
import { importRcv, parseRcvCsv } from '../../receiving/rcv.js';
import { receiveEnvelope } from '../../receiving/receive.js';
import { rcvSection } from './received-rcv.js';
import { bulkDecisionLink, decisionSection } from './received-decisions.js';
import { receivedCessionSection } from './cessions.js';
import { typeBadge } from '../components.js';
import { date, dateTime, money, rut, TYPE_NAMES } from '../format.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
/** The types a supplier may send, for the filter (Timbre's own, plus 43 and exports). */
const RECEIVED_TYPE_NAMES = {
    ...TYPE_NAMES,
    43: 'Liquidación factura',
    110: 'Factura de exportación',
    111: 'Nota de débito de exportación',
    112: 'Nota de crédito de exportación',
};
const RECEIVED_TYPES = [33, 34, 43, 46, 52, 56, 61, 110, 111, 112];
const receivedTypeName = (t) => RECEIVED_TYPE_NAMES[t] ?? `Tipo ${t}`;
/** A received document's state → label and badge tone (words and colour, never colour alone). */
const STATE_LABELS = {
    recibido: { label: 'Recibido', tone: 'green' },
};
function stateBadge(state) {
    const s = STATE_LABELS[state] ?? { label: state, tone: 'gray' };
    return html `<span class="badge badge-${s.tone}">${s.label}</span>`;
}
/** The receiver's checks (docs/receiving.md §1) in Spanish, in the order they run. */
const CHECK_LABELS = {
    size: 'Tamaño del archivo',
    dtd: 'Sin DTD ni entidades',
    readable: 'XML legible',
    schema: 'Esquema (XSD)',
    envelope_signature: 'Firma del sobre (SetDTE)',
    caratula_receiver: 'Carátula: RUT receptor',
    repeated_file: 'Archivo no repetido',
    structure: 'Estructura del envío',
    dte_readable: 'DTE legible',
    dte_signature: 'Firma del DTE',
    issuer_rut: 'RUT emisor',
    receiver_rut: 'RUT receptor',
    repeated_dte: 'DTE no repetido',
    ted: 'Timbre electrónico (TED)',
};
function checksTable(checks, caption) {
    return html `<div class="table-wrap"><table class="list check-results" aria-label="${caption}">
<thead><tr><th scope="col">Verificación</th><th scope="col">Resultado</th><th scope="col">Detalle</th></tr></thead>
<tbody>${checks.map((c) => html `<tr><td>${CHECK_LABELS[c.check] ?? c.check}</td>
<td>${c.ok ? html `<span class="badge badge-green">Correcta</span>` : html `<span class="badge badge-red">Falló</span>`}</td>
<td class="wrap">${c.detail}</td></tr>`)}</tbody></table></div>`;
}
function envelopeBadge(estado, glosa) {
    return html `<span class="badge badge-${estado === 0 ? 'green' : 'red'}">${estado === 0 ? 'Recibido conforme' : 'Rechazado'}</span>
<span class="sii-raw">EstadoRecepEnv <code>${estado}</code> ${glosa}</span>`;
}
/**
 * The list's filters from the URL, with the API's rules; a bad value is reported and ignored,
 * never a 500.
 */
function filtersOf(q) {
    const problems = [];
    const filters = { page: 1, limit: 30 };
    if (q.emisor) {
        const r = normalizeRut(q.emisor);
        if (r)
            filters.emisor = r;
        else
            problems.push(`El RUT del emisor "${q.emisor.slice(0, 20)}" no es válido.`);
    }
    if (q.tipo_dte) {
        if (/^\d{1,3}$/.test(q.tipo_dte))
            filters.type = Number(q.tipo_dte);
        else
            problems.push('El tipo de documento no existe.');
    }
    if (q.estado) {
        if (RECEIVED_STATES.includes(q.estado))
            filters.estado = q.estado;
        else
            problems.push('El estado no existe.');
    }
    for (const [key, field] of [
        ['desde', 'from'],
        ['hasta', 'to'],
    ]) {
        const v = q[key];
        if (!v)
            continue;
        if (isRealDate(v))
            filters[field] = v;
        else
            problems.push(`La fecha "${v.slice(0, 20)}" no es válida.`);
    }
    if (q.q) {
        if (q.q.length <= 100 && !refusedCharacter(q.q))
            filters.q = q.q;
        else
            problems.push('La búsqueda admite hasta 100 caracteres, sin caracteres de control.');
    }
    if (q.page && /^\d{1,6}$/.test(q.page) && Number(q.page) >= 1)
        filters.page = Number(q.page);
    return { filters, problems };
}
function queryString(q, over) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...q, ...over }))
        if (v)
            params.set(k, String(v));
    const s = params.toString();
    return s ? `?${s}` : '';
}
/** "12-3" (imported, new) after an import → the notice. */
function rcvNotice(param) {
    const m = /^(\d+)-(\d+)$/.exec(param);
    if (!m)
        return undefined;
    return notice('ok', `RCV importado: ${m[1]} documento${m[1] === '1' ? '' : 's'}, ${m[2]} nuevo${m[2] === '1' ? '' : 's'}.`);
}
/** The parser's English reason, in Spanish for the dashboard. */
function rcvProblem(message) {
    const column = /missing column "([^"]+)"/.exec(message);
    if (column)
        return `El archivo no es un CSV del Registro de Compras del SII: falta la columna «${column[1]}».`;
    const row = /row (\d+), column "([^"]+)"/.exec(message);
    if (row)
        return `La fila ${row[1]} del archivo tiene un valor inválido en la columna «${row[2]}».`;
    return 'El archivo no es un CSV del Registro de Compras del SII.';
}
function uploadForm(base, csrf, error) {
    return html `<section aria-labelledby="h-subir"><h2 id="h-subir">Subir un envío de un proveedor</h2>
<form method="post" action="${base}/recibidos" enctype="multipart/form-data" class="dropzone" data-dropzone>
${csrf}
<label for="envio-file">Archivo XML (EnvioDTE o DTE firmado)</label>
<input id="envio-file" name="file" type="file" accept=".xml,application/xml,text/xml" required${describedBy('envio-file', error)}>
${fieldError('envio-file', error)}
<p class="hint dropzone-hint" data-dropzone-hint hidden>O arrastra el archivo aquí.</p>
<button type="submit" class="button primary">Subir</button>
<p class="hint">Timbre lo verifica como el SII (esquema, firmas, RUT, timbre) y responde al proveedor con un acuse de recibo (RespuestaDTE).</p>
</form></section>`;
}
export function receivedRoutes(ctx) {
    return async (app) => {
        app.get('/:rut/recibidos', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const q = request.query;
            const { filters, problems } = filtersOf(q);
            const result = await listReceived(ctx, issuer, filters);
            const pages = Math.max(1, Math.ceil(result.total / result.limit));
            const base = `/dashboard/${issuer.rut}`;
            const filtered = Boolean(q.emisor || q.tipo_dte || q.estado || q.desde || q.hasta || q.q);
            const canUpload = may(web.user, 'issue');
            const body = html `
${problems.map((p) => notice('error', p))}
<form method="get" class="filters" role="search" aria-label="Filtrar documentos recibidos">
  <div class="field"><label for="f-q">Buscar</label>
    <input id="f-q" name="q" type="search" value="${q.q ?? ''}" placeholder="RUT, razón social o folio"></div>
  <div class="field"><label for="f-emisor">RUT emisor</label>
    <input id="f-emisor" name="emisor" type="text" value="${q.emisor ?? ''}" placeholder="76.354.771-K" size="12"></div>
  <div class="field"><label for="f-tipo">Tipo</label>
    <select id="f-tipo" name="tipo_dte"><option value="">Todos</option>
    ${RECEIVED_TYPES.map((t) => html `<option value="${t}"${attr('selected', filters.type === t)}>${t} · ${receivedTypeName(t)}</option>`)}
    </select></div>
  <div class="field"><label for="f-estado">Estado</label>
    <select id="f-estado" name="estado"><option value="">Todos</option>
    ${RECEIVED_STATES.map((e) => html `<option value="${e}"${attr('selected', filters.estado === e)}>${STATE_LABELS[e]?.label ?? e}</option>`)}
    </select></div>
  <div class="field"><label for="f-desde">Desde</label><input id="f-desde" name="desde" type="date" value="${filters.from ?? ''}"></div>
  <div class="field"><label for="f-hasta">Hasta</label><input id="f-hasta" name="hasta" type="date" value="${filters.to ?? ''}"></div>
  <div class="field actions"><button type="submit" class="button">Filtrar</button>
  ${filtered ? html `<a href="${base}/recibidos">Limpiar</a>` : ''}</div>
</form>
${result.data.length === 0
                ? filtered
                    ? html `<p class="empty">Ningún documento recibido coincide con los filtros.</p>`
                    : html `<p class="empty">Aún no hay documentos recibidos. ${canUpload ? 'Sube el XML que te envió un proveedor' : 'Un dueño o editor puede subir el XML que envió un proveedor'}, o envíalo a la API: <code>POST /api/${issuer.rut}/recibidos</code>.</p>`
                : html `<p class="muted">${result.total} documento${result.total === 1 ? '' : 's'} recibido${result.total === 1 ? '' : 's'}</p>
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Tipo</th><th scope="col">Folio</th><th scope="col" class="hide-sm">Fecha</th><th scope="col">Emisor</th><th scope="col" class="num">Total</th><th scope="col" class="hide-sm">Estado</th></tr></thead>
<tbody>
${result.data.map((d) => html `<tr>
<td>${typeBadge(d.type)} <span class="type-name">${receivedTypeName(d.type)}</span></td>
<td><a href="${base}/recibidos/${d.emisor.rut}/${d.type}/${d.folio}">Nº ${d.folio}</a><span class="show-sm muted">${date(d.date)}</span></td>
<td class="hide-sm">${date(d.date)}</td>
<td><span class="receiver">${d.emisor.name}</span><br><span class="muted">${rut(d.emisor.rut)}</span></td>
<td class="num">${money(d.totals.total)}<span class="show-sm">${stateBadge(d.estado)}</span></td>
<td class="hide-sm">${stateBadge(d.estado)}</td>
</tr>`)}
</tbody></table></div>
<nav class="pager" aria-label="Páginas">
  ${result.page > 1 ? html `<a href="${queryString(q, { page: String(result.page - 1) })}" rel="prev">← Anterior</a>` : ''}
  <span>Página ${result.page} de ${pages}</span>
  ${result.page < pages ? html `<a href="${queryString(q, { page: String(result.page + 1) })}" rel="next">Siguiente →</a>` : ''}
</nav>`}
${bulkDecisionLink(base)}
${canUpload ? uploadForm(base, csrfField(web)) : ''}
${await rcvSection(ctx, issuer, { canImport: canUpload, csrf: csrfField(web), ...(q.rcv !== undefined && { notice: rcvNotice(q.rcv) }) })}`;
            return sendHtml(reply, page({ title: 'Recibidos', nav: 'recibidos', web, issuer, body }));
        });
        app.post('/:rut/recibidos', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'issue'))
                throw new AppError('FORBIDDEN_ROLE');
            const file = request.form.file('file');
            if (!file) {
                const body = uploadForm(`/dashboard/${issuer.rut}`, csrfField(web), 'Elige el archivo XML del envío.');
                return sendHtml(reply, page({ title: 'Recibidos', nav: 'recibidos', web, issuer, body }), 400);
            }
            const result = await receiveEnvelope(ctx, issuer, {
                bytes: file.data,
                fileName: file.filename,
                source: 'upload',
            });
            return reply.redirect(`/dashboard/${issuer.rut}/recibidos/envios/${result.number}`, 303);
        });
        app.post('/:rut/recibidos/rcv', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'issue'))
                throw new AppError('FORBIDDEN_ROLE');
            const file = request.form.file('file');
            const refuse = async (error) => {
                const body = await rcvSection(ctx, issuer, { canImport: true, csrf: csrfField(web), error });
                return sendHtml(reply, page({ title: 'Recibidos', nav: 'recibidos', web, issuer, body }), 400);
            };
            if (!file)
                return refuse('Elige el archivo CSV del Registro de Compras.');
            let rows;
            try {
                rows = parseRcvCsv(file.data);
            }
            catch (e) {
                if (e instanceof AppError && e.code === 'VALIDATION_FAILED')
                    return refuse(rcvProblem(e.message));
                throw e;
            }
            const result = await importRcv(ctx, issuer, rows);
            return reply.redirect(`/dashboard/${issuer.rut}/recibidos?rcv=${result.imported}-${result.nuevos}#h-faltantes`, 303);
        });
        app.get('/:rut/recibidos/envios/:number', async (request, reply) => {
            const web = signedIn(request);
            const p = request.params;
            const issuer = issuerOf(request, p.rut);
            if (!/^\d{1,10}$/.test(p.number))
                throw new AppError('RECEIVED_ENVELOPE_NOT_FOUND');
            const r = await envelopeReception(ctx, issuer, Number(p.number));
            const base = `/dashboard/${issuer.rut}`;
            const files = `${base}/recibidos/envios/${r.number}`;
            const body = html `
${r.accepted ? notice('ok', html `Envío recibido: ${r.received.length} documento${r.received.length === 1 ? '' : 's'}.`) : notice('error', html `Envío rechazado${r.reason ? html `: ${r.reason}` : r.estado_recep_env === 0 ? ': ningún documento pasó las verificaciones.' : '.'}`)}
<div class="doc-head">
  <p>${envelopeBadge(r.estado_recep_env, r.glosa)}</p>
  <p class="doc-actions">
    <a class="button" href="${files}/xml">Descargar archivo</a>
    ${r.respuesta_url ? html `<a class="button" href="${files}/respuesta">Descargar RespuestaDTE</a>` : ''}
  </p>
</div>
<dl class="details">
  <dt>Archivo</dt><dd>${r.file_name}</dd>
  <dt>Tipo</dt><dd>${r.kind ?? 'No es XML legible'}</dd>
  <dt>Recibido</dt><dd>${dateTime(new Date(r.created_at))}</dd>
  <dt>Respuesta al proveedor</dt><dd>${r.respuesta_url ? 'RespuestaDTE (RecepcionEnvio) firmada' : (r.respuesta_error ?? '—')}</dd>
  <dt>SHA-256</dt><dd><code class="wrap">${r.sha256}</code></dd>
</dl>
<section aria-labelledby="h-checks"><h2 id="h-checks">Verificaciones del envío</h2>
${checksTable(r.checks, 'Verificaciones del envío')}</section>
${r.documents.length
                ? html `<section aria-labelledby="h-docs"><h2 id="h-docs">Documentos del envío</h2>
${r.documents.map((d) => {
                    const stored = r.received.find((x) => x.type === d.type && x.folio === d.folio && x.emisor.rut === d.emisor_rut);
                    const title = d.type ? html `${receivedTypeName(d.type)} Nº ${d.folio ?? '?'}` : html `Documento ${d.index + 1}`;
                    return html `<h3>${stored ? html `<a href="${base}/recibidos/${stored.emisor.rut}/${stored.type}/${stored.folio}">${title}</a>` : title}
${d.emisor_rut ? html ` <span class="muted">de ${rut(d.emisor_rut)}</span>` : ''}</h3>
<p><span class="badge badge-${d.estado_recep_dte === 0 ? 'green' : 'red'}">${d.estado_recep_dte === 0 ? 'Recibido' : 'No recibido'}</span>
<span class="sii-raw">EstadoRecepDTE <code>${d.estado_recep_dte}</code> ${d.glosa}</span>${d.reason ? html ` — ${d.reason}` : ''}</p>
${checksTable(d.checks, `Verificaciones del documento ${d.index + 1}`)}`;
                })}</section>`
                : ''}
<p><a href="${base}/recibidos">← Volver a Recibidos</a></p>`;
            return sendHtml(reply, page({ title: `Envío Nº ${r.number}`, nav: 'recibidos', web, issuer, body }));
        });
        for (const kind of ['xml', 'respuesta']) {
            app.get(`/:rut/recibidos/envios/:number/${kind}`, async (request, reply) => {
                const p = request.params;
                const issuer = issuerOf(request, p.rut);
                if (!/^\d{1,10}$/.test(p.number))
                    throw new AppError('RECEIVED_ENVELOPE_NOT_FOUND');
                const file = await envelopeFile(ctx, issuer, Number(p.number), kind);
                reply.header('Content-Disposition', `attachment; filename="${file.filename.replace(/"/g, '')}"`);
                return reply.type('application/xml').send(file.body);
            });
        }
        const keyOf = (params) => {
            const p = params;
            const emisor = normalizeRut(p.emisor);
            if (!emisor || !/^\d{1,3}$/.test(p.type) || !/^\d{1,10}$/.test(p.folio)) {
                throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND');
            }
            return { emisor, type: Number(p.type), folio: Number(p.folio) };
        };
        app.get('/:rut/recibidos/:emisor/:type/:folio', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const key = keyOf(request.params);
            const d = await receivedDetail(ctx, issuer, key);
            const r = await envelopeReception(ctx, issuer, d.envelope);
            const base = `/dashboard/${issuer.rut}`;
            const files = `${base}/recibidos/${d.emisor.rut}/${d.type}/${d.folio}`;
            const body = html `
<div class="doc-head">
  <p>${typeBadge(d.type)} ${stateBadge(d.estado)} ${envelopeBadge(r.estado_recep_env, r.glosa)}</p>
  <p class="doc-actions">
    <a class="button" href="${files}/pdf?download=1">Descargar PDF</a>
    <a class="button" href="${files}/xml">Descargar XML</a>
    ${d.respuesta_url ? html `<a class="button" href="${base}/recibidos/envios/${d.envelope}/respuesta">Descargar RespuestaDTE</a>` : ''}
  </p>
</div>
<div class="columns">
<section aria-labelledby="h-datos"><h2 id="h-datos">Datos</h2>
<dl class="details">
  <dt>Emisor</dt><dd>${d.emisor.name}<br>${rut(d.emisor.rut)}</dd>
  <dt>Fecha de emisión</dt><dd>${date(d.date)}</dd>
  <dt>Receptor</dt><dd>${d.receiver.name || '—'}<br>${rut(d.receiver.rut)}</dd>
  <dt>Envío</dt><dd><a href="${base}/recibidos/envios/${d.envelope}">Nº ${d.envelope}</a> · ${r.file_name}</dd>
  <dt>Recibido</dt><dd>${dateTime(new Date(d.created_at))}</dd>
  ${d.ted ? html `<dt>CAF del timbre</dt><dd>Folios ${d.ted.caf_from}–${d.ted.caf_to} · ${d.ted.idk === 100 ? 'certificación SII (IDK 100)' : `IDK ${d.ted.idk}`}</dd>` : ''}
</dl></section>
<section aria-labelledby="h-totales"><h2 id="h-totales">Totales</h2>
<dl class="details totals">
  <dt>Neto</dt><dd class="num">${money(d.totals.net)}</dd>
  <dt>Exento</dt><dd class="num">${money(d.totals.exempt)}</dd>
  <dt>IVA</dt><dd class="num">${money(d.totals.vat)}</dd>
  <dt class="strong">Total</dt><dd class="num strong">${money(d.totals.total)}</dd>
</dl>
<p class="hint">Otros impuestos, descuentos globales y moneda extranjera: en el PDF, tal como los escribió el emisor.</p></section>
</div>
<section aria-labelledby="h-lineas"><h2 id="h-lineas">Detalle</h2>
<div class="table-wrap"><table class="list"><thead><tr><th scope="col">Nº</th><th scope="col">Descripción</th><th scope="col" class="num">Cantidad</th><th scope="col" class="num">Precio</th><th scope="col" class="num">Monto</th></tr></thead>
<tbody>${d.lines.map((l) => html `<tr><td>${l.line}</td><td>${l.name}${l.exempt ? html ` <span class="badge badge-gray">Exento</span>` : ''}</td>
<td class="num">${l.qty === null ? '—' : formatDecimal(l.qty)}</td><td class="num">${l.price === null ? '—' : formatDecimal(l.price)}</td><td class="num">${/^-?\d+$/.test(l.amount) ? money(Number(l.amount)) : l.amount}</td></tr>`)}</tbody></table></div>
${d.refs.length ? html `<h3>Referencias</h3><ul>${d.refs.map((x) => html `<li>${receivedTypeName(Number(x.type))} Nº ${x.folio} del ${date(x.date)}${x.reason ? html ` — ${x.reason}` : ''}</li>`)}</ul>` : ''}
</section>
${decisionSection(web, base, d, request.query)}
${receivedCessionSection(web, issuer, d, request.query)}
<section aria-labelledby="h-checks"><h2 id="h-checks">Verificaciones</h2>
${checksTable(d.checks, 'Verificaciones del documento')}</section>
<section aria-labelledby="h-pdf"><h2 id="h-pdf">PDF</h2>
<iframe class="pdf" title="PDF del documento recibido" src="${files}/pdf"></iframe>
</section>`;
            return sendHtml(reply, page({
                title: `${receivedTypeName(d.type)} Nº ${d.folio} de ${d.emisor.name}`,
                nav: 'recibidos',
                web,
                issuer,
                body,
            }));
        });
        app.get('/:rut/recibidos/:emisor/:type/:folio/pdf', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const file = await receivedPdf(ctx, issuer, keyOf(request.params), 'letter');
            const download = request.query.download === '1';
            reply.header('Content-Disposition', `${download ? 'attachment' : 'inline'}; filename="${file.filename}"`);
            return reply.type('application/pdf').send(file.body);
        });
        app.get('/:rut/recibidos/:emisor/:type/:folio/xml', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const file = await receivedXml(ctx, issuer, keyOf(request.params));
            reply.header('Content-Disposition', `attachment; filename="${file.filename}"`);
            return reply.type('application/xml').send(file.body);
        });
    };
}
