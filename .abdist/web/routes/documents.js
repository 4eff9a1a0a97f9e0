import { may } from '../../admin/users.js';
import { fromDbDate } from '../../dte/calendar-date.js';
import { DTE_TYPES } from '../../dte/model.js';
import { isEmailAddress } from '../../dte/email-address.js';
import { AppError, ERROR_CATALOG } from '../../errors.js';
import { documentContent } from '../../issuing/document-content.js';
import { documentFile } from '../../issuing/document-files.js';
import { findIssuedDocument } from '../../issuing/document-status.js';
import { environmentOf } from '../../admin/environment.js';
import { ESTADOS_SII } from '../../issuing/document-state.js';
import { listDocuments } from '../../issuing/list-documents.js';
import { listDocumentsQuery, listFiltersOf } from '../../http/schemas.js';
import { resubmitDocument } from '../../issuing/resubmit.js';
import { receiverActionOf } from '../../issuing/receiver-actions.js';
import { curlExample, estadoBadge, typeBadge } from '../components.js';
import { EMAIL_STATE_LABELS, ESTADO_LABELS, date, dateTime, decimal, eventLabel, money, rut, TYPE_NAMES, typeName, } from '../format.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
import { emailEnabled, emailsOfDocument, sendDocumentEmail } from '../../issuing/document-email.js';
import { eventsOfDocument } from '../../events/record.js';
import { notesOfDocument, voidingNote } from '../../issuing/document-notes.js';
import { setupProgress } from '../../admin/setup-progress.js';
import { cessionSection } from './cessions.js';
/** The types a note (56, 61) modifies: tax documents, not guías (references.ts). */
const NOTE_TARGET_TYPES = [33, 34, 39, 41, 46, 56, 61];
const MAX_RECIPIENTS_TEXT = 2600;
const CSV_PAGE = 100;
/** A year of a busy SME; beyond it the list asks for a narrower date range. */
const MAX_CSV_ROWS = 50_000;
/** One CSV field: quoted when it holds the separator, a quote or a line break. */
function csvField(value) {
    let text = String(value);
    // A spreadsheet runs text that starts with = + - @ as a formula (CSV injection): a razón social
    // such as "=HYPERLINK(…)" is kept as text by a leading apostrophe.
    if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text))
        text = `'${text}`;
    return /[;"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
/**
 * The documents as a libro de ventas: tipo, folio, fecha, RUT, razón social, exento, neto, IVA,
 * total, estado. Written for Excel as installed in Chile (es-CL), which opens a .csv with a
 * double click: UTF-8 with a byte-order mark (without it Excel reads Windows-1252 and breaks
 * ñ and tildes), fields separated by ";" (the list separator of es-CL, where "," is the decimal
 * comma), CRLF line ends, amounts as plain whole pesos (no thousands dots, so they stay numbers)
 * and dates dd-mm-aaaa. Notes (56, 61) are listed with positive amounts, as on the SII's libro.
 */
function documentsCsv(rows) {
    const header = ['Tipo', 'Folio', 'Fecha', 'RUT', 'Razón social', 'Exento', 'Neto', 'IVA', 'Total', 'Estado'];
    const lines = rows.map((d) => [
        d.type,
        d.folio,
        date(d.date),
        rut(d.receiver.rut),
        d.receiver.name || (d.receiver.rut === GENERIC_RECEIVER ? 'Consumidor final' : ''),
        d.totals.exempt,
        d.totals.net,
        d.totals.vat,
        d.totals.total,
        ESTADO_LABELS[d.estado_sii]?.label ?? d.estado_sii,
    ]
        .map(csvField)
        .join(';'));
    return `\uFEFF${[header.join(';'), ...lines].join('\r\n')}\r\n`;
}
/** The SII's generic receiver of boletas without one (FMTB RUTRecep 66666666-6): the final consumer. */
const GENERIC_RECEIVER = '66666666-6';
const REF_CODE_LABELS = { 1: 'anula', 2: 'corrige texto', 3: 'corrige montos' };
/**
 * The setup checklist on the issuer's first page, until every step is done: what makes the
 * issuer ready to invoice for real, each step linking to the page where it is done.
 */
function setupChecklist(base, p) {
    const steps = [
        {
            done: p.certificate,
            href: `${base}/certificado`,
            label: 'Sube el certificado digital',
            hint: 'el .p12 o .pfx del representante, con el que se firman los documentos',
        },
        {
            done: p.folios,
            href: `${base}/folios`,
            label: 'Carga folios de producción',
            hint: 'sube un CAF del SII o solicítalo desde Timbre',
        },
        {
            done: p.document,
            href: `${base}/emitir`,
            label: 'Emite el primer documento',
            hint: 'en sandbox no se envía al SII',
        },
        { done: p.key, href: `${base}/claves`, label: 'Crea una clave API', hint: 'para emitir desde tu sistema' },
        {
            done: p.webhook,
            href: `${base}/webhooks`,
            label: 'Agrega un webhook',
            hint: 'para que tu sistema sepa cuándo el SII acepta o rechaza',
        },
    ];
    const done = steps.filter((s) => s.done).length;
    if (done === steps.length)
        return '';
    return html `<section class="checklist" aria-labelledby="h-setup"><h2 id="h-setup">Primeros pasos (${done} de ${steps.length})</h2>
<ol>${steps.map((s) => html `<li class="${s.done ? 'done' : 'todo'}"><span class="check-mark" aria-hidden="true">${s.done ? '✓' : '○'}</span> ${s.done
        ? html `<s>${s.label}</s> <span class="visually-hidden">(hecho)</span>`
        : html `<a href="${s.href}">${s.label}</a>`} <span class="muted">— ${s.hint}</span></li>`)}</ol></section>`;
}
/** What the list says about a filter the URL gives a bad value (page and limit: silently ignored). */
const FILTER_PROBLEMS = {
    tipo_dte: () => 'El tipo de documento no existe.',
    estado_sii: () => 'El estado no existe.',
    desde: (v) => `La fecha "${v}" no es válida.`,
    hasta: (v) => `La fecha "${v}" no es válida.`,
    q: () => 'La búsqueda admite hasta 100 caracteres, sin caracteres de control.',
};
/**
 * The list's filters from the URL, each read with the API's definition (`listDocumentsQuery`,
 * so bounds and defaults are the API's); a bad value is reported and ignored, never a 500.
 */
function filtersOf(q) {
    const problems = [];
    const parsed = {};
    for (const [key, schema] of Object.entries(listDocumentsQuery.shape)) {
        const value = q[key];
        if (!value)
            continue;
        const result = schema.safeParse(value);
        if (result.success)
            parsed[key] = result.data;
        else {
            const problem = FILTER_PROBLEMS[key]?.(value);
            if (problem)
                problems.push(problem);
        }
    }
    return { filters: listFiltersOf(parsed), problems };
}
/**
 * The addresses of "Reenviar por correo" (commas, semicolons or spaces between them), checked
 * with the rule of POST /api/{rut}/emision_email: at most 10, each an e-mail address.
 */
function recipients(text) {
    // Ten addresses of at most 254 characters fit; longer text is refused, never cut.
    if (text.length > MAX_RECIPIENTS_TEXT)
        return { to: [], problem: `Máximo 10 destinatarios (hasta ${MAX_RECIPIENTS_TEXT} caracteres en total).` };
    const to = [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
    const bad = to.find((a) => !isEmailAddress(a));
    if (bad)
        return { to, problem: `«${bad.slice(0, 80)}» no es un correo electrónico.` };
    if (to.length > 10)
        return { to, problem: 'Máximo 10 destinatarios.' };
    return { to };
}
/** What an event of the document adds to its type: the e-mail's recipients or error, the SII's word. */
function eventDetail(data) {
    const parts = [];
    if (Array.isArray(data.to))
        parts.push(`Para ${data.to.join(', ')}`);
    if (typeof data.error === 'string')
        parts.push(data.error);
    const sii = data.sii;
    if (sii && typeof sii === 'object' && (sii.estado || sii.glosa)) {
        parts.push(`SII: ${String(sii.estado ?? '')} ${String(sii.glosa ?? '')}`.trim());
    }
    const cesion = data.cesion;
    if (cesion && typeof cesion === 'object') {
        parts.push(`Cesionario: ${String(cesion.cesionario?.razon_social ?? '')}`);
        if (cesion.sii_estado)
            parts.push(`SII: ${String(cesion.sii_estado)} ${String(cesion.sii_glosa ?? '')}`.trim());
    }
    return parts.join(' — ') || '—';
}
function queryString(q, over) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...q, ...over }))
        if (v)
            params.set(k, String(v));
    const s = params.toString();
    return s ? `?${s}` : '';
}
const OUTCOME_LABELS = {
    pendiente: 'Sin acciones del cliente todavía',
    acuse_recibo: 'El cliente otorgó recibo de mercaderías o servicios',
    aceptado: 'El cliente aceptó el contenido',
    reclamado: 'El cliente reclamó el documento',
    aceptado_tacitamente: 'Aceptado tácitamente: pasaron 8 días sin reclamo',
};
/** What the customer did at the SII's claims registry (docs/claims-registry.md §5). */
function customerSection(c) {
    return html `<section aria-labelledby="h-cliente"><h2 id="h-cliente">Tu cliente en el SII</h2>
${c.claim ? notice('error', html `El cliente reclamó esta factura en el SII (${c.claim.code}: ${c.claim.description}). Emite una nota de crédito que la anule o corrija.`) : ''}
<dl class="details">
  <dt>Estado</dt><dd>${OUTCOME_LABELS[c.outcome] ?? c.outcome}</dd>
  <dt>Recepción en el SII</dt><dd>${c.sii_received_at ? dateTime(new Date(c.sii_received_at)) : '—'}</dd>
  <dt>Plazo del cliente para reclamar</dt><dd>${c.deadline ? dateTime(new Date(c.deadline)) : '—'}</dd>
  ${c.events.map((e) => html `<dt>${e.accion}</dt><dd>${e.description}${e.at ? html ` · ${dateTime(new Date(e.at))}` : ''}</dd>`)}
  <dt>Última consulta</dt><dd>${c.checked_at ? dateTime(new Date(c.checked_at)) : '—'}</dd>
</dl></section>`;
}
export function documentRoutes(ctx) {
    return async (app) => {
        app.get('/:rut/documentos', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const q = request.query;
            const { filters, problems } = filtersOf(q);
            const [result, setup] = await Promise.all([listDocuments(ctx, issuer, filters), setupProgress(ctx, issuer)]);
            const pages = Math.max(1, Math.ceil(result.total / result.limit));
            const base = `/dashboard/${issuer.rut}`;
            const filtered = Boolean(q.tipo_dte || q.estado_sii || q.desde || q.hasta || q.q);
            const body = html `
${setupChecklist(base, setup)}
${problems.map((p) => notice('error', p))}
<form method="get" class="filters" role="search" aria-label="Filtrar documentos">
  <div class="field"><label for="f-q">Buscar</label>
    <input id="f-q" name="q" type="search" value="${q.q ?? ''}" placeholder="RUT, razón social o folio"></div>
  <div class="field"><label for="f-tipo">Tipo</label>
    <select id="f-tipo" name="tipo_dte"><option value="">Todos</option>
    ${DTE_TYPES.map((t) => html `<option value="${t}"${attr('selected', filters.type === t)}>${t} · ${TYPE_NAMES[t]}</option>`)}
    </select></div>
  <div class="field"><label for="f-estado">Estado SII</label>
    <select id="f-estado" name="estado_sii"><option value="">Todos</option>
    ${ESTADOS_SII.map((e) => html `<option value="${e}"${attr('selected', filters.estadoSii === e)}>${ESTADO_LABELS[e]?.label ?? e}</option>`)}
    </select></div>
  <div class="field"><label for="f-desde">Desde</label><input id="f-desde" name="desde" type="date" value="${filters.from ?? ''}"></div>
  <div class="field"><label for="f-hasta">Hasta</label><input id="f-hasta" name="hasta" type="date" value="${filters.to ?? ''}"></div>
  <div class="field actions"><button type="submit" class="button">Filtrar</button>
  ${filtered ? html `<a href="${base}/documentos">Limpiar</a>` : ''}</div>
</form>
${result.total > 0 ? html `<p class="export"><a class="button small" href="${base}/documentos.csv${queryString(q, { page: '', limit: '' })}" download>Exportar CSV (${result.total})</a> <span class="muted">Libro de ventas con los filtros aplicados; se abre en Excel.</span></p>` : ''}
${result.data.length === 0
                ? filtered
                    ? html `<p class="empty">Ningún documento coincide con los filtros.</p>`
                    : html `<div class="empty"><p>Aún no hay documentos. <a href="${base}/emitir">Emite el primero</a> o usa la API:</p>${curlExample(ctx.config.publicBaseUrl, issuer)}</div>`
                : html `<p class="muted">${result.total} documento${result.total === 1 ? '' : 's'}</p>
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Tipo</th><th scope="col">Folio</th><th scope="col" class="hide-sm">Fecha</th><th scope="col">Receptor</th><th scope="col" class="num">Total</th><th scope="col" class="hide-sm">Estado SII</th></tr></thead>
<tbody>
${result.data.map((d) => html `<tr>
<td>${typeBadge(d.type)} <span class="type-name">${typeName(d.type)}</span></td>
<td><a href="${base}/documentos/${d.type}/${d.folio}?env=${d.env}">Nº ${d.folio}</a><span class="show-sm muted">${date(d.date)}</span></td>
<td class="hide-sm">${date(d.date)}</td>
<td><span class="receiver">${d.receiver.name || (d.receiver.rut === GENERIC_RECEIVER ? 'Consumidor final' : '—')}</span><br><span class="muted">${rut(d.receiver.rut)}</span></td>
<td class="num">${money(d.totals.total)}<span class="show-sm">${estadoBadge(d.estado_sii)}</span></td>
<td class="hide-sm">${estadoBadge(d.estado_sii)}${d.cesion?.estado === 'aceptada' ? html ` <span class="badge badge-gray" title="Cedida a ${d.cesion.cesionario.razon_social}">Cedida</span>` : ''}</td>
</tr>`)}
</tbody></table></div>
<nav class="pager" aria-label="Páginas">
  ${result.page > 1 ? html `<a href="${queryString(q, { page: String(result.page - 1) })}" rel="prev">← Anterior</a>` : ''}
  <span>Página ${result.page} de ${pages}</span>
  ${result.page < pages ? html `<a href="${queryString(q, { page: String(result.page + 1) })}" rel="next">Siguiente →</a>` : ''}
</nav>`}`;
            return sendHtml(reply, page({ title: 'Documentos', nav: 'documentos', web, issuer, body }));
        });
        // The filtered list as a CSV (libro de ventas columns): every matching document, not one page.
        app.get('/:rut/documentos.csv', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const { filters } = filtersOf(request.query);
            const first = await listDocuments(ctx, issuer, { ...filters, page: 1, limit: CSV_PAGE });
            if (first.total > MAX_CSV_ROWS) {
                const body = notice('error', `Son ${first.total.toLocaleString('es-CL')} documentos: la exportación admite hasta ${MAX_CSV_ROWS.toLocaleString('es-CL')}. Filtra por fechas (por ejemplo, un mes) y exporta cada parte.`);
                return sendHtml(reply, page({ title: 'Documentos', nav: 'documentos', web: signedIn(request), issuer, body }), 400);
            }
            const rows = [...first.data];
            for (let page = 2; rows.length < first.total; page++) {
                const next = await listDocuments(ctx, issuer, { ...filters, page, limit: CSV_PAGE });
                if (next.data.length === 0)
                    break;
                rows.push(...next.data);
            }
            const name = `documentos_${issuer.rut}${filters.from ? `_desde_${filters.from}` : ''}${filters.to ? `_hasta_${filters.to}` : ''}.csv`;
            reply.header('Content-Disposition', `attachment; filename="${name}"`);
            return reply.type('text/csv; charset=utf-8').send(documentsCsv(rows));
        });
        const findDoc = async (request) => {
            const p = request.params;
            const issuer = issuerOf(request, p.rut);
            const env = request.query.env;
            if (!/^\d{1,3}$/.test(p.type) || !/^\d{1,10}$/.test(p.folio))
                throw new AppError('DOCUMENT_NOT_FOUND');
            const environment = env === 'sandbox' || env === 'live' ? env : environmentOf(issuer);
            const document = await findIssuedDocument(ctx, issuer, Number(p.type), Number(p.folio), environment);
            return { issuer, document };
        };
        app.get('/:rut/documentos/:type/:folio', async (request, reply) => {
            const web = signedIn(request);
            const { issuer, document: d } = await findDoc(request);
            const content = await documentContent(ctx, d);
            const model = content.model;
            const base = `/dashboard/${issuer.rut}/documentos/${d.type}/${d.folio}`;
            const files = `${base}/%s?env=${d.environment}`;
            const [events, emails, notes, voidedBy, customer] = await Promise.all([
                eventsOfDocument(ctx, issuer, d.id),
                emailsOfDocument(ctx, issuer, d.id),
                notesOfDocument(ctx, d),
                voidingNote(ctx, d),
                receiverActionOf(ctx, d.id),
            ]);
            const cession = await cessionSection(ctx, web, issuer, d, request.query);
            const docLink = (type, folio) => `/dashboard/${issuer.rut}/documentos/${type}/${folio}?env=${d.environment}`;
            // Void and correct from the document: the issue form opens as the note, filled in. A
            // credit note (61) modifies the document; a credit note itself is voided by a debit note (56).
            const noteLink = (code) => `/dashboard/${issuer.rut}/emitir?${new URLSearchParams({ nota: String(code), tipo: String(d.type), folio: String(d.folio), env: d.environment })}`;
            const modifiable = may(web.user, 'issue') &&
                NOTE_TARGET_TYPES.includes(d.type) &&
                d.environment === environmentOf(issuer) &&
                !['anulado', 'rechazado'].includes(d.estadoSii) &&
                !notes.some((n) => n.code === 1 && !['anulado', 'rechazado'].includes(n.estadoSii));
            const flash = request.query;
            const live = d.environment === 'live';
            const canResend = live && may(web.user, 'issue') && !['aceptado', 'aceptado_con_reparos', 'anulado'].includes(d.estadoSii);
            // emision_email finds the document in the issuer's current environment: offer it there only.
            const canEmail = may(web.user, 'issue') &&
                emailEnabled(ctx) &&
                d.environment === environmentOf(issuer) &&
                d.estadoSii !== 'rechazado';
            const receiverEmail = content.request.receiver?.email ?? '';
            // A refused "Reenviar por correo" comes back with the addresses typed and the reason.
            const emailError = flash.error === 'correo'
                ? recipients(flash.to ?? '').problem
                : flash.error?.startsWith('EMAIL_') && flash.error in ERROR_CATALOG
                    ? errorMessage(new AppError(flash.error))
                    : undefined;
            const body = html `
${flash.ok === 'reenviado' ? notice('ok', 'Se envió de nuevo al SII.') : ''}
${flash.ok === 'correo' ? notice('ok', live && !['aceptado', 'aceptado_con_reparos', 'anulado'].includes(d.estadoSii) ? 'Correo en cola: se enviará cuando el SII acepte el documento.' : 'Correo en cola: se envía en unos segundos.') : ''}
${flash.ok === 'emitido' ? notice('ok', html `Documento emitido con folio <strong>${d.folio}</strong>.${live ? ` Estado SII: ${ESTADO_LABELS[d.estadoSii]?.label ?? d.estadoSii}.` : ''} <a href="/dashboard/${issuer.rut}/emitir">Emitir otro</a>`) : ''}
${flash.error && flash.error in ERROR_CATALOG && !(emailError && canEmail) ? notice('error', errorMessage(new AppError(flash.error))) : ''}
<div class="doc-head">
  <p>${typeBadge(d.type)} ${estadoBadge(d.estadoSii)} ${live && (d.siiCode || d.siiGlosa) ? html `<span class="sii-raw">SII: <code>${d.siiCode ?? ''}</code> ${d.siiGlosa ?? ''}</span>` : ''}</p>
  <p class="doc-actions">
    <a class="button" href="${files.replace('%s', 'pdf')}&amp;download=1">Descargar PDF</a>
    <a class="button" href="${files.replace('%s', 'xml')}">Descargar XML</a>
    ${canResend ? html `<form method="post" action="${base}/reenviar" class="inline">${csrfField(web)}<button type="submit" class="button">Reenviar al SII</button></form>` : ''}
  </p>
  ${modifiable
                ? html `<p class="doc-actions note-actions">
    ${cession.holds ? '' : html `<a class="button" href="${noteLink(1)}" title="${d.type === 61 ? 'Emite una nota de débito que anula esta nota de crédito' : 'Emite una nota de crédito que anula este documento'}">Anular</a>`}
    ${d.type === 61
                    ? ''
                    : html `${cession.holds ? '' : html `<a class="button" href="${noteLink(3)}" title="Nota de crédito que corrige montos">Corregir montos</a>`}
    <a class="button" href="${noteLink(2)}" title="Nota de crédito que corrige texto (sin montos)">Corregir texto</a>`}
  </p>`
                : ''}
</div>
${voidedBy ? notice('info', html `Anulado por <a href="${docLink(voidedBy.type, voidedBy.folio)}">${typeName(voidedBy.type)} Nº ${voidedBy.folio}</a>.`) : ''}
<div class="columns">
<section aria-labelledby="h-datos"><h2 id="h-datos">Datos</h2>
<dl class="details">
  <dt>Fecha de emisión</dt><dd>${date(fromDbDate(d.date))}</dd>
  <dt>Receptor</dt><dd>${d.receiverName || (d.receiverRut === GENERIC_RECEIVER ? 'Consumidor final' : '—')}<br>${rut(d.receiverRut)}</dd>
  <dt>Ambiente</dt><dd>${live ? 'Producción' : 'Sandbox (no se envía al SII)'}</dd>
  ${live ? html `<dt>Track ID</dt><dd>${d.trackId || '—'}</dd>` : ''}
  ${d.lastSubmitError && d.estadoSii === 'pendiente' ? html `<dt>Último error de envío</dt><dd>${d.lastSubmitError}</dd>` : ''}
  <dt>Creado</dt><dd>${dateTime(d.createdAt)}</dd>
</dl></section>
<section aria-labelledby="h-totales"><h2 id="h-totales">Totales</h2>
<dl class="details totals">
  <dt>Neto</dt><dd class="num">${money(d.net)}</dd>
  <dt>Exento</dt><dd class="num">${money(d.exempt)}</dd>
  <dt>IVA (${d.vatRate} %)</dt><dd class="num">${money(d.vat)}</dd>
  <dt class="strong">Total</dt><dd class="num strong">${money(d.total)}</dd>
</dl></section>
</div>
${customer ? customerSection(customer) : ''}
${cession.section}
<section aria-labelledby="h-lineas"><h2 id="h-lineas">Detalle</h2>
<div class="table-wrap"><table class="list"><thead><tr><th scope="col">Descripción</th><th scope="col" class="num">Cantidad</th><th scope="col" class="num">Precio</th><th scope="col" class="num">Descuento</th><th scope="col" class="num">Monto</th></tr></thead>
<tbody>${model.lines.map((l) => html `<tr><td>${l.name}${l.exempt ? html ` <span class="badge badge-gray">Exento</span>` : ''}</td>
<td class="num">${decimal(Number(l.qty))}</td><td class="num">${l.price === undefined ? '—' : money(Math.round(Number(l.price)))}</td>
<td class="num">${l.discountAmount ? money(l.discountAmount) : '—'}</td><td class="num">${money(l.amount)}</td></tr>`)}</tbody></table></div>
${model.refs.length
                ? html `<h3>Referencias</h3><ul class="refs">${model.refs.map((r) => {
                    const own = DTE_TYPES.includes(Number(r.type)) && /^\d{1,10}$/.test(r.folio);
                    const label = `${TYPE_NAMES[Number(r.type)] ?? `Tipo ${r.type}`} Nº ${r.folio}`;
                    return html `<li>${own ? html `<a href="${docLink(Number(r.type), Number(r.folio))}">${label}</a>` : label} del ${date(r.date)}${r.code ? html ` (${REF_CODE_LABELS[r.code]})` : ''}${r.reason ? html ` — ${r.reason}` : ''}</li>`;
                })}</ul>`
                : ''}
${notes.length ? html `<h3>Notas que lo modifican</h3><ul class="notes">${notes.map((n) => html `<li><a href="${docLink(n.type, n.folio)}">${typeName(n.type)} Nº ${n.folio}</a>${n.code ? html ` (${REF_CODE_LABELS[n.code]})` : ''} ${estadoBadge(n.estadoSii)}</li>`)}</ul>` : ''}
</section>
<section aria-labelledby="h-pdf"><h2 id="h-pdf">PDF</h2>
<iframe class="pdf hide-sm" title="PDF del documento" src="${files.replace('%s', 'pdf')}"></iframe>
<p class="show-sm"><a class="button" href="${files.replace('%s', 'pdf')}" target="_blank" rel="noopener">Abrir el PDF</a></p>
</section>
<section aria-labelledby="h-eventos"><h2 id="h-eventos">Eventos y correos</h2>
${events.length
                ? html `<div class="table-wrap"><table class="list events"><caption class="visually-hidden">Eventos del documento</caption><thead><tr><th scope="col">Fecha</th><th scope="col">Evento</th><th scope="col">Detalle</th></tr></thead>
<tbody>${events.map((e) => html `<tr><td class="nowrap">${dateTime(new Date(e.created_at))}</td><td>${eventLabel(e.type)} <code class="muted">${e.type}</code></td><td class="wrap">${eventDetail(e.data)}</td></tr>`)}</tbody></table></div>`
                : html `<p class="empty">Sin eventos.</p>`}
<h3>Correos al receptor</h3>
${emails.length
                ? html `<div class="table-wrap"><table class="list emails"><thead><tr><th scope="col">Fecha</th><th scope="col">Estado</th><th scope="col">Destinatarios</th></tr></thead>
<tbody>${emails.map((m) => {
                    const state = EMAIL_STATE_LABELS[m.state] ?? { label: m.state, tone: 'gray' };
                    return html `<tr><td class="nowrap">${dateTime(new Date(m.at ?? m.created_at))}</td><td><span class="badge badge-${state.tone}">${state.label}</span>${m.error && m.state !== 'sent' ? html `<br><span class="muted">${m.error}</span>` : ''}</td><td class="wrap">${m.to.join(', ')}</td></tr>`;
                })}</tbody></table></div>`
                : html `<p class="empty">${receiverEmail ? 'No se ha enviado por correo.' : 'No se ha enviado por correo: la emisión no indicó el correo del receptor.'}</p>`}
${canEmail
                ? html `<form method="post" action="${base}/correo" class="row-form email-form">${csrfField(web)}
<div class="field grow"><label for="mail-to">Destinatarios</label>
<input id="mail-to" name="to" type="text" inputmode="email" autocomplete="off" value="${emailError ? (flash.to ?? '') : ''}" placeholder="${receiverEmail || 'contacto@cliente.cl'}"${describedBy('mail-to', emailError)}>
${fieldError('mail-to', emailError)}</div>
<button type="submit" class="button">Reenviar por correo</button>
</form>
<p class="hint">PDF y XML firmado (sobre de intercambio). Vacío: ${receiverEmail ? html `al correo de la emisión, <code>${receiverEmail}</code>` : 'escribe al menos un correo'}. Varios: sepáralos con comas.</p>`
                : ''}
</section>`;
            return sendHtml(reply, page({ title: `${typeName(d.type)} Nº ${d.folio}`, nav: 'documentos', web, issuer, body }));
        });
        for (const kind of ['pdf', 'xml']) {
            app.get(`/:rut/documentos/:type/:folio/${kind}`, async (request, reply) => {
                const { issuer, document } = await findDoc(request);
                const file = await documentFile(ctx, document, issuer, kind, 'letter');
                const download = request.query.download === '1' || kind === 'xml';
                reply.header('Content-Disposition', `${download ? 'attachment' : 'inline'}; filename="${file.filename}"`);
                return reply.type(file.contentType).send(file.body);
            });
        }
        app.post('/:rut/documentos/:type/:folio/correo', async (request, reply) => {
            const web = signedIn(request);
            if (!may(web.user, 'issue'))
                throw new AppError('FORBIDDEN_ROLE');
            const p = request.params;
            const issuer = issuerOf(request, p.rut);
            const back = `/dashboard/${issuer.rut}/documentos/${p.type}/${p.folio}`;
            const text = request.form.get('to');
            const { to, problem } = recipients(text);
            // The addresses go back to the form (one character over the limit is enough to say so again).
            const echo = text.slice(0, MAX_RECIPIENTS_TEXT + 1);
            if (problem)
                return reply.redirect(`${back}?${new URLSearchParams({ error: 'correo', to: echo })}`, 303);
            try {
                await sendDocumentEmail(ctx, issuer, {
                    type: Number(p.type),
                    folio: Number(p.folio),
                    ...(to.length && { to }),
                });
                return reply.redirect(`${back}?ok=correo`, 303);
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                return reply.redirect(`${back}?${new URLSearchParams({ error: err.code, to: echo })}`, 303);
            }
        });
        app.post('/:rut/documentos/:type/:folio/reenviar', async (request, reply) => {
            const web = signedIn(request);
            if (!may(web.user, 'issue'))
                throw new AppError('FORBIDDEN_ROLE');
            const p = request.params;
            const issuer = issuerOf(request, p.rut);
            const back = `/dashboard/${issuer.rut}/documentos/${p.type}/${p.folio}`;
            try {
                await resubmitDocument(ctx, issuer, { type: Number(p.type), folio: Number(p.folio) });
                return reply.redirect(`${back}?ok=reenviado`, 303);
            }
            catch (err) {
                if (!(err instanceof AppError) || (err.status >= 500 && err.code !== 'SII_UNAVAILABLE'))
                    throw err;
                return reply.redirect(`${back}?error=${err.code}`, 303);
            }
        });
    };
}
