import { CEDIBLE_TYPES, cedeDocument, DocumentNotCedible } from '../../cession/cede.js';
import { cessionAec, cessionsOfDocument, listCessions } from '../../cession/list-cessions.js';
import { checkReceivedCession } from '../../cession/received-holder.js';
import { normalizeRut } from '../../dte/rut.js';
import { fromDbDate } from '../../dte/calendar-date.js';
import { AppError } from '../../errors.js';
import { cedeBody } from '../../http/cession-schemas.js';
import { findIssuedDocument } from '../../issuing/document-status.js';
import { zodDetails } from '../../rules.js';
import { typeBadge } from '../components.js';
import { date, dateTime, money, rut, typeName } from '../format.js';
import { html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage, fieldMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
const STATE_LABELS = {
    pendiente: { label: 'Pendiente', tone: 'amber' },
    enviada: { label: 'Enviada al SII', tone: 'blue' },
    aceptada: { label: 'Cedida', tone: 'green' },
    rechazada: { label: 'Rechazada', tone: 'red' },
};
function stateBadge(estado) {
    const s = STATE_LABELS[estado];
    return html `<span class="badge badge-${s.tone}">${s.label}</span>`;
}
/** Who may cede: an owner, on a live issuer (the RPETC is the SII's; sandbox never reaches it). */
function mayCede(web, issuer) {
    return web.user.role === 'owner' && issuer.siiAmbiente !== 0;
}
/** The document can be offered the "Ceder" action (the SII and the use case check the rest). */
function offerable(d, holds) {
    return (d.environment === 'live' &&
        CEDIBLE_TYPES.includes(d.type) &&
        (d.estadoSii === 'aceptado' || d.estadoSii === 'aceptado_con_reparos') &&
        !d.voidedById &&
        !holds);
}
function siiText(c) {
    return c.sii_estado || c.sii_glosa
        ? html `<span class="sii-raw">SII: <code>${c.sii_estado ?? ''}</code> ${c.sii_glosa ?? ''}</span>`
        : html ``;
}
/**
 * The "Cesión" section of an issued document's page, and whether a cesión holds the document
 * (in flight or accepted: the page then offers no note that voids it or changes its amounts).
 */
export async function cessionSection(ctx, web, issuer, d, flash) {
    if (d.environment !== 'live' || !CEDIBLE_TYPES.includes(d.type))
        return { section: html ``, holds: false };
    const cesiones = await cessionsOfDocument(ctx, issuer, d);
    const holds = cesiones.some((c) => c.estado !== 'rechazada');
    const canCede = mayCede(web, issuer) && offerable(d, holds);
    if (cesiones.length === 0 && !canCede)
        return { section: html ``, holds };
    const base = `/dashboard/${issuer.rut}`;
    const section = html `<section aria-labelledby="h-cesion"><h2 id="h-cesion">Cesión</h2>
${flash.ok === 'cedida' ? notice('ok', 'Cesión firmada y enviada al SII. Su estado se actualiza solo.') : ''}
${cesiones.map((c) => html `<dl class="details">
  <dt>Estado</dt><dd>${stateBadge(c.estado)} ${siiText(c)}</dd>
  <dt>Cesionario</dt><dd>${c.cesionario.razon_social}<br>${rut(c.cesionario.rut)}</dd>
  <dt>Monto cedido</dt><dd>${money(c.monto)}</dd>
  <dt>Último vencimiento</dt><dd>${date(c.ultimo_vencimiento)}</dd>
  ${c.tenedor ? html `<dt>Tenedor en el SII</dt><dd>${rut(c.tenedor)}</dd>` : ''}
  ${c.last_error && c.estado === 'pendiente' ? html `<dt>Último error</dt><dd>${c.last_error}</dd>` : ''}
  <dt>AEC</dt><dd><a href="${base}/cesiones/${c.id}/aec">Descargar AEC</a></dd>
</dl>`)}
${cesiones.some((c) => c.estado === 'aceptada') ? notice('info', 'La factura está cedida: pertenece al cesionario y el deudor le paga a él. Ya no se puede anular ni rebajar con una nota de crédito.') : ''}
${canCede ? html `<p class="doc-actions"><a class="button primary" href="${base}/documentos/${d.type}/${d.folio}/ceder">Ceder</a></p>` : ''}
</section>`;
    return { section, holds };
}
/**
 * The "Cesión" section of a received factura's page (live, 33 and 34): who holds it at the
 * registry of cesiones, as last asked, and the button that asks now.
 */
export function receivedCessionSection(web, issuer, d, flash) {
    if (issuer.siiAmbiente === 0 || (d.type !== 33 && d.type !== 34))
        return html ``;
    const c = d.cesion;
    const action = `/dashboard/${issuer.rut}/recibidos/${d.emisor.rut}/${d.type}/${d.folio}/cesion`;
    return html `<section aria-labelledby="h-cesion"><h2 id="h-cesion">Cesión</h2>
${flash.cesion_error ? notice('error', 'No se pudo consultar al SII el registro de cesiones. Inténtalo más tarde.') : ''}
${c === null
        ? html `<p class="hint">Si el proveedor cedió esta factura (factoring), se paga al cesionario. Consulta el Registro de Cesiones del SII.</p>`
        : c.tenedor
            ? notice('warn', html `El proveedor cedió esta factura: <strong>págala a ${rut(c.tenedor)}</strong>, no al proveedor. (Consultado el ${dateTime(new Date(c.checked_at))}.)`)
            : html `<p>No está cedida según el SII (consultado el ${dateTime(new Date(c.checked_at))}).</p>`}
<form method="post" action="${action}" class="inline">${csrfField(web)}<button type="submit" class="button">Consultar cesión en el SII</button></form>
</section>`;
}
const FIELDS = [
    ['c-rut', 'cesionario_rut', 'RUT del cesionario', html ` required autocomplete="off" placeholder="76.354.771-K"`],
    ['c-razon', 'cesionario_razon_social', 'Razón social del cesionario', html ` required maxlength="100"`],
    ['c-dir', 'cesionario_direccion', 'Dirección del cesionario', html ` required maxlength="80"`],
    ['c-email', 'cesionario_email', 'Correo del cesionario', html ` required type="email" maxlength="80"`],
    ['c-monto', 'monto', 'Monto a ceder (vacío: el total)', html ` inputmode="numeric"`],
    ['c-venc', 'ultimo_vencimiento', 'Último vencimiento', html ` required type="date"`],
    ['c-otras', 'otras_condiciones', 'Otras condiciones (opcional)', html ` maxlength="512"`],
    ['c-deudor', 'email_deudor', 'Correo del deudor (opcional)', html ` type="email" maxlength="80"`],
    [
        'c-cedente',
        'cedente_email',
        'Tu correo como cedente (vacío: el del buzón de intercambio)',
        html ` type="email" maxlength="80"`,
    ],
];
/** The API field a form input stands for (error details name API paths). */
const PATH_OF = {
    'cesionario.rut': 'c-rut',
    'cesionario.razon_social': 'c-razon',
    'cesionario.direccion': 'c-dir',
    'cesionario.email': 'c-email',
    monto: 'c-monto',
    ultimo_vencimiento: 'c-venc',
    otras_condiciones: 'c-otras',
    email_deudor: 'c-deudor',
    cedente_email: 'c-cedente',
};
function cedeForm(web, issuer, d, values, errors, general) {
    return html `
${general ? notice('error', general) : ''}
<p class="hint">Cedes la ${typeName(d.type)} Nº ${d.folio} del ${date(fromDbDate(d.date))}, por ${money(d.total)} (receptor ${rut(d.receiverRut)}). Timbre consulta al SII si es cedible, firma el AEC (Archivo Electrónico de Cesión) con tu certificado y lo envía al Registro de Cesiones (RPETC). Una vez aceptada, la factura pertenece al cesionario.</p>
<form method="post" action="/dashboard/${issuer.rut}/documentos/${d.type}/${d.folio}/ceder" class="stack narrow-form">
${csrfField(web)}
${FIELDS.map(([id, name, label, attrs]) => html `<label for="${id}">${label}</label><input id="${id}" name="${name}" value="${values[name] ?? ''}"${attrs}${describedBy(id, errors.get(id))}>${fieldError(id, errors.get(id))}`)}
<button type="submit" class="button primary">Ceder</button>
</form>`;
}
/** The form's fields as the API's body. */
function bodyOf(form) {
    const v = (name) => (form.get(name) ?? '').trim();
    const optional = (name) => (v(name) ? v(name) : undefined);
    const monto = v('monto').replace(/[.\s$]/g, '');
    return {
        cesionario: {
            rut: v('cesionario_rut'),
            razon_social: v('cesionario_razon_social'),
            direccion: v('cesionario_direccion'),
            email: v('cesionario_email'),
        },
        ...(monto && { monto: /^\d{1,15}$/.test(monto) ? Number(monto) : Number.NaN }),
        ultimo_vencimiento: v('ultimo_vencimiento'),
        ...(optional('otras_condiciones') && { otras_condiciones: v('otras_condiciones') }),
        ...(optional('email_deudor') && { email_deudor: v('email_deudor') }),
        ...(optional('cedente_email') && { cedente_email: v('cedente_email') }),
    };
}
function valuesOf(form) {
    return Object.fromEntries(FIELDS.map(([, name]) => [name, form.get(name) ?? '']));
}
/** An error of the use case, in Spanish: per field when it names one. */
function errorsOf(err) {
    const fields = new Map();
    for (const d of err.details ?? []) {
        const id = PATH_OF[d.path];
        if (id && !fields.has(id))
            fields.set(id, fieldMessage(d));
    }
    if (fields.size > 0)
        return { fields, general: null };
    return { fields, general: err instanceof DocumentNotCedible ? err.reason : errorMessage(err) };
}
export function cessionRoutes(ctx) {
    return async (app) => {
        const findDoc = async (request) => {
            const p = request.params;
            const issuer = issuerOf(request, p.rut);
            if (!/^\d{1,3}$/.test(p.type) || !/^\d{1,10}$/.test(p.folio))
                throw new AppError('DOCUMENT_NOT_FOUND');
            const document = await findIssuedDocument(ctx, issuer, Number(p.type), Number(p.folio), 'live');
            return { issuer, document };
        };
        const formPage = (web, issuer, d, values, errors, general) => page({
            title: `Ceder ${typeName(d.type)} Nº ${d.folio}`,
            nav: 'cesiones',
            web,
            issuer,
            body: cedeForm(web, issuer, d, values, errors, general),
        });
        app.get('/:rut/documentos/:type/:folio/ceder', async (request, reply) => {
            const web = signedIn(request);
            const { issuer, document: d } = await findDoc(request);
            if (!mayCede(web, issuer))
                throw new AppError('FORBIDDEN_ROLE');
            return sendHtml(reply, formPage(web, issuer, d, {}, new Map(), null));
        });
        app.post('/:rut/documentos/:type/:folio/ceder', async (request, reply) => {
            const web = signedIn(request);
            const { issuer, document: d } = await findDoc(request);
            if (!mayCede(web, issuer))
                throw new AppError('FORBIDDEN_ROLE');
            const values = valuesOf(request.form);
            const parsed = cedeBody.safeParse({ type: d.type, folio: d.folio, ...bodyOf(request.form) });
            if (!parsed.success) {
                const { fields, general } = errorsOf(new AppError('VALIDATION_FAILED', undefined, { details: zodDetails(parsed.error.issues) }));
                return sendHtml(reply, formPage(web, issuer, d, values, fields, general), 400);
            }
            try {
                await cedeDocument(ctx, issuer, parsed.data);
            }
            catch (err) {
                if (err instanceof AppError && err.status < 500 && err.code !== 'FORBIDDEN_ROLE') {
                    const { fields, general } = errorsOf(err);
                    return sendHtml(reply, formPage(web, issuer, d, values, fields, general), err.status);
                }
                if (err instanceof AppError && err.code === 'SII_UNAVAILABLE') {
                    const general = 'No se pudo consultar al SII si el documento es cedible. No se guardó nada: inténtalo más tarde.';
                    return sendHtml(reply, formPage(web, issuer, d, values, new Map(), general), 502);
                }
                throw err;
            }
            return reply.redirect(`/dashboard/${issuer.rut}/documentos/${d.type}/${d.folio}?env=live&ok=cedida#h-cesion`, 303);
        });
        app.post('/:rut/recibidos/:emisor/:type/:folio/cesion', async (request, reply) => {
            signedIn(request);
            const p = request.params;
            const issuer = issuerOf(request, p.rut);
            if (!/^\d{1,3}$/.test(p.type) || !/^\d{1,10}$/.test(p.folio))
                throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND');
            const key = { emisor: normalizeRut(p.emisor) ?? p.emisor, type: Number(p.type), folio: Number(p.folio) };
            const back = `/dashboard/${issuer.rut}/recibidos/${key.emisor}/${key.type}/${key.folio}`;
            try {
                await checkReceivedCession(ctx, issuer, key);
            }
            catch (err) {
                if (err instanceof AppError && err.code === 'SII_UNAVAILABLE') {
                    return reply.redirect(`${back}?cesion_error=1#h-cesion`, 303);
                }
                throw err;
            }
            return reply.redirect(`${back}#h-cesion`, 303);
        });
        app.get('/:rut/cesiones', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const q = request.query;
            const pageNo = /^\d{1,6}$/.test(q.page ?? '') ? Math.max(1, Number(q.page)) : 1;
            const result = await listCessions(ctx, issuer, { page: pageNo, limit: 30 });
            const base = `/dashboard/${issuer.rut}`;
            const pages = Math.max(1, Math.ceil(result.total / result.limit));
            const body = html `
<p class="hint">Facturas cedidas (factoring) en el Registro de Cesiones del SII (RPETC). Para ceder una, ábrela en Documentos y usa «Ceder».</p>
${result.data.length === 0
                ? html `<p class="empty">Aún no hay cesiones. Abre una factura aceptada por el SII en <a href="${base}/documentos">Documentos</a> y usa «Ceder», o usa la API: <code>POST /api/${issuer.rut}/ceder</code>.</p>`
                : html `<div class="table-wrap"><table class="list"><caption class="visually-hidden">Cesiones</caption>
<thead><tr><th scope="col">Documento</th><th scope="col">Cesionario</th><th scope="col" class="num">Monto</th><th scope="col">Estado</th><th scope="col">Creada</th><th scope="col">AEC</th></tr></thead>
<tbody>${result.data.map((c) => html `<tr><td>${typeBadge(c.type)} <a href="${base}/documentos/${c.type}/${c.folio}?env=live">Nº ${c.folio}</a></td>
<td>${c.cesionario.razon_social}<br><span class="muted">${rut(c.cesionario.rut)}</span></td>
<td class="num">${money(c.monto)}</td>
<td>${stateBadge(c.estado)}${c.sii_estado ? html `<br><span class="muted"><code>${c.sii_estado}</code> ${c.sii_glosa ?? ''}</span>` : ''}</td>
<td class="nowrap">${dateTime(new Date(c.created_at))}</td>
<td><a href="${base}/cesiones/${c.id}/aec">Descargar AEC</a></td></tr>`)}</tbody></table></div>
${pages > 1 ? html `<p>Página ${pageNo} de ${pages} ${pageNo > 1 ? html `· <a href="${base}/cesiones?page=${pageNo - 1}">Anterior</a>` : ''} ${pageNo < pages ? html `· <a href="${base}/cesiones?page=${pageNo + 1}">Siguiente</a>` : ''}</p>` : ''}`}`;
            return sendHtml(reply, page({ title: 'Cesiones', nav: 'cesiones', web, issuer, body }));
        });
        app.get('/:rut/cesiones/:id/aec', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const file = await cessionAec(ctx, issuer, request.params.id);
            reply.header('Content-Disposition', `attachment; filename="${file.filename}"`);
            return reply.type('application/xml; charset=ISO-8859-1').send(file.body);
        });
    };
}
