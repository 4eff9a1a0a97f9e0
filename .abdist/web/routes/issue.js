/**
 * Emitir: one form for the eight types. Lines, references, dispatch (52), exempt lines and
 * discounts; totals from the preview use case (the same `previewDocument` behind
 * POST /api/{rut}/preview: the browser holds a session, not an API key, so the dashboard
 * exposes it at /dashboard/{rut}/emitir/totales for its script); a draft PDF; and issuing
 * through `issueDocument`, guarded by an idempotency key minted per form render, so a double
 * click or a resubmitted page returns the same document instead of a second folio.
 *
 * Without JavaScript every action is a submit button: "Calcular totales", "Más líneas",
 * "Ver borrador (PDF)", "Emitir".
 */
import { randomBytes } from 'node:crypto';
import { may } from '../../admin/users.js';
import { environmentOf } from '../../admin/environment.js';
import { fromDbDate } from '../../dte/calendar-date.js';
import { decimalText, issueRequestSchema } from '../../dte/issue-request.js';
import { DTE_TYPES } from '../../dte/model.js';
import { documentContent } from '../../issuing/document-content.js';
import { findIssuedDocument } from '../../issuing/document-status.js';
import { AppError, zodError } from '../../errors.js';
import { requestFingerprint, runIdempotent } from '../../issuing/idempotency.js';
import { documentById, issueDocument } from '../../issuing/issue-document.js';
import { previewDocument, previewPdf } from '../../issuing/preview-document.js';
import { date as formatDate, money, TYPE_NAMES, typeName } from '../format.js';
import { Form, parseNumber } from '../form.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage, fieldMessage, ruleText } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
const DEFAULT_ROWS = 4;
const MAX_FORM_ROWS = 60;
const REF_ROWS = 2;
const TRANSFER_TYPES = [
    [1, 'Operación constituye venta'],
    [2, 'Ventas por efectuar'],
    [3, 'Consignaciones'],
    [4, 'Entrega gratuita'],
    [5, 'Traslados internos'],
    [6, 'Otros traslados no venta'],
    [7, 'Guía de devolución'],
    [8, 'Traslado para exportación'],
    [9, 'Venta para exportación'],
];
/** FmaPago ([FMT] IdDoc): the form's default is contado. */
const PAYMENTS = [
    [1, '1 · Contado'],
    [2, '2 · Crédito'],
    [3, '3 · Sin costo (entrega gratuita)'],
];
/** MedioPago of boletas ([FMTB]). */
const PAYMENT_METHODS = [
    [1, '1 · Efectivo'],
    [2, '2 · Pago electrónico'],
    [3, '3 · Transferencia'],
    [4, '4 · Cheque'],
    [5, '5 · Otro'],
];
const BOLETA_TYPES = '39 41';
/** Types whose receiver needs giro, dirección and comuna (issue-request REQUIRED_RECEIVER_FIELDS). */
const FULL_RECEIVER_TYPES = '33 34 46 52 56';
const NOT_BOLETA_TYPES = '33 34 46 52 56 61';
const num = (text) => parseNumber(text);
function requestFromForm(f) {
    const type = Number(f.get('type'));
    const body = { type: Number.isFinite(type) && type > 0 ? type : undefined };
    if (f.get('date'))
        body.date = f.get('date');
    const receiverKeys = ['rut', 'name', 'activity', 'address', 'comuna', 'city', 'email'];
    const receiver = {};
    for (const k of receiverKeys) {
        // A 61 takes giro, address, comuna and city from the document it references (the fields are
        // hidden for it; values left over from another type are not sent).
        if (type === 61 && k !== 'rut' && k !== 'name' && k !== 'email')
            continue;
        if (f.get(`receiver_${k}`))
            receiver[k] = f.get(`receiver_${k}`);
    }
    // A guía of traslado interno (5) is addressed to the issuer itself: without a RUT the form
    // leaves the receiver out and issueDocument fills in the issuer.
    const internal = type === 52 && f.get('transfer_type') === '5';
    if (Object.keys(receiver).length && !(internal && !receiver.rut))
        body.receiver = receiver;
    const names = f.getAll('item_name');
    const qtys = f.getAll('item_qty');
    const prices = f.getAll('item_price');
    const units = f.getAll('item_unit');
    const discounts = f.getAll('item_discount');
    const exempt = new Set(f.getAll('item_exempt'));
    const items = [];
    const itemRows = [];
    names.forEach((name, row) => {
        if (!name && !qtys[row] && !prices[row])
            return;
        const item = { name, qty: num(qtys[row] ?? '') ?? 1 };
        const price = num(prices[row] ?? '');
        if (price !== undefined)
            item.price = price;
        if (units[row])
            item.unit = units[row];
        const discount = num(discounts[row] ?? '');
        if (discount !== undefined)
            item.discount_pct = discount;
        if (exempt.has(String(row)))
            item.exempt = true;
        items.push(item);
        itemRows.push(row);
    });
    body.items = items;
    const refs = [];
    const refRows = [];
    const rt = f.getAll('ref_type');
    const rf = f.getAll('ref_folio');
    const rd = f.getAll('ref_date');
    const rc = f.getAll('ref_code');
    const rr = f.getAll('ref_reason');
    rt.forEach((t, row) => {
        if (!t && !rf[row])
            return;
        const folio = rf[row] ?? '';
        const ref = {
            type: /^\d+$/.test(t) ? Number(t) : t,
            folio: /^\d{1,15}$/.test(folio) ? Number(folio) : folio,
        };
        if (rd[row])
            ref.date = rd[row];
        if (rc[row])
            ref.code = Number(rc[row]);
        if (rr[row])
            ref.reason = rr[row];
        refs.push(ref);
        refRows.push(row);
    });
    if (refs.length)
        body.refs = refs;
    const boleta = type === 39 || type === 41;
    // FmaPago on every type but boletas (the select starts at contado, the API's default too).
    if (!boleta && f.get('payment'))
        body.payment = Number(f.get('payment'));
    if (type === 52) {
        const dispatch = {};
        if (f.get('transfer_type'))
            dispatch.transfer_type = Number(f.get('transfer_type'));
        if (f.get('dispatch_type'))
            dispatch.dispatch_type = Number(f.get('dispatch_type'));
        const transport = {};
        for (const k of ['plate', 'carrier_rut', 'address', 'comuna', 'city'])
            if (f.get(`transport_${k}`))
                transport[k] = f.get(`transport_${k}`);
        if (f.get('transport_driver_rut') || f.get('transport_driver_name'))
            transport.driver = { rut: f.get('transport_driver_rut'), name: f.get('transport_driver_name') };
        if (Object.keys(transport).length)
            dispatch.transport = transport;
        body.dispatch = dispatch;
    }
    if (boleta) {
        if (f.get('service_indicator'))
            body.service_indicator = Number(f.get('service_indicator'));
        if (f.get('payment_method'))
            body.payment_method = Number(f.get('payment_method'));
        if (f.get('period_from') || f.get('period_to'))
            body.service_period = { from: f.get('period_from'), to: f.get('period_to') };
        if (f.get('due_date'))
            body.due_date = f.get('due_date');
    }
    return { body, itemRows, refRows };
}
/** Schema paths → form field ids, so each message sits next to its input. */
function fieldId(path, p) {
    const item = /^items\[(\d+)\]\.?(\w*)/.exec(path);
    if (item)
        return item[2] ? `item-${p.itemRows[Number(item[1])]}-${item[2]}` : `item-${p.itemRows[Number(item[1])]}-name`;
    const ref = /^refs\[(\d+)\]\.?(\w*)/.exec(path);
    if (ref)
        return `ref-${p.refRows[Number(ref[1])]}-${ref[2] || 'folio'}`;
    if (path.startsWith('receiver.'))
        return `receiver-${path.slice(9)}`;
    if (path === 'receiver')
        return 'receiver-rut';
    if (path.startsWith('dispatch.transport')) {
        const rest = path.slice('dispatch.transport'.length + 1);
        return rest ? `transport-${rest.replace('.', '-')}` : 'transport-address';
    }
    if (path === 'dispatch.dispatch_type')
        return 'dispatch_type';
    if (path.startsWith('dispatch'))
        return 'transfer_type';
    if (path.startsWith('service_period'))
        return path.endsWith('.to') ? 'period-to' : 'period-from';
    return path || 'general';
}
function errorsOf(err, p) {
    const errors = new Map();
    if (err.details?.length) {
        for (const d of err.details) {
            const id = fieldId(d.path, p);
            if (!errors.has(id))
                errors.set(id, fieldMessage(d));
        }
    }
    else {
        errors.set('general', errorMessage(err));
    }
    return errors;
}
function validate(p) {
    const r = issueRequestSchema.safeParse(p.body);
    if (r.success)
        return { ok: true, req: r.data };
    return { ok: false, error: zodError(r.error.issues, 'type') };
}
/** What each CodRef does, as the note's reason (RazonRef) and the page says it. */
const NOTE_PURPOSES = {
    1: { reason: 'Anula documento', verb: 'anula' },
    2: { reason: 'Corrige texto', verb: 'corrige el texto de' },
    3: { reason: 'Corrige montos', verb: 'corrige los montos de' },
};
/** A number as the form reads it back (parseNumber): a decimal comma, never a thousands dot. */
function formNumber(n) {
    if (typeof n !== 'number')
        return '';
    return (decimalText(n) ?? String(n)).replace('.', ',');
}
/**
 * The note that voids or corrects one of the issuer's documents, as a filled-in issue form:
 * the receiver, the reference (type, folio, date, CodRef) and, to void or correct amounts,
 * every line of the document, so voiding is one click on "Emitir" (the totals then repeat the
 * original's, as references.ts requires). A credit note (61) modifies a document; a debit note
 * (56) is what voids a credit note. A text correction (CodRef 2) carries one line without
 * amounts, for the user to say what changes.
 */
async function noteForm(ctx, issuer, q) {
    const code = Number(q.nota);
    if ((code !== 1 && code !== 2 && code !== 3) || !/^\d{1,3}$/.test(q.tipo ?? '') || !/^\d{1,10}$/.test(q.folio ?? ''))
        throw new AppError('DOCUMENT_NOT_FOUND');
    const env = q.env === 'sandbox' || q.env === 'live' ? q.env : environmentOf(issuer);
    const d = await findIssuedDocument(ctx, issuer, Number(q.tipo), Number(q.folio), env);
    const content = await documentContent(ctx, d);
    const model = content.model;
    const request = content.request;
    const noteType = d.type === 61 && code === 1 ? 56 : 61;
    const fields = new Map();
    const set = (name, values) => fields.set(name, values);
    set('type', [String(noteType)]);
    const receiver = model.receiver;
    for (const k of ['rut', 'name', 'activity', 'address', 'comuna', 'city'])
        set(`receiver_${k}`, [receiver[k] ?? '']);
    // A boleta to the final consumer (66.666.666-6) carries no name; a note needs one.
    if (!receiver.name && receiver.rut === '66666666-6')
        set('receiver_name', ['Consumidor final']);
    set('receiver_email', [request.receiver?.email ?? '']);
    if (model.payment)
        set('payment', [String(model.payment)]);
    const items = code === 2 ? [] : request.items;
    set('item_name', items.length ? items.map((i) => i.name) : ['']);
    set('item_qty', items.length ? items.map((i) => formNumber(i.qty)) : ['1']);
    set('item_price', items.map((i) => formNumber(i.price)));
    set('item_unit', items.map((i) => i.unit ?? ''));
    set('item_discount', items.map((i) => formNumber(i.discount_pct)));
    set('item_exempt', items.flatMap((i, row) => (i.exempt ? [String(row)] : [])));
    set('ref_type', [String(d.type)]);
    set('ref_folio', [String(d.folio)]);
    set('ref_date', [fromDbDate(d.date)]);
    set('ref_code', [String(code)]);
    set('ref_reason', [NOTE_PURPOSES[code].reason]);
    const original = `${typeName(d.type)} Nº ${d.folio}`;
    const link = `/dashboard/${issuer.rut}/documentos/${d.type}/${d.folio}?env=${d.environment}`;
    const intro = notice('info', html `${typeName(noteType)} que ${NOTE_PURPOSES[code].verb} <a href="${link}">${original}</a> del ${formatDate(fromDbDate(d.date))}${code === 2
        ? '. Describe la corrección en la línea (por ejemplo «Donde dice … debe decir …»), sin precio, y emite.'
        : code === 1
            ? `: repite sus líneas y totales (${money(Number(d.total))}). Revisa y emite.`
            : ': ajusta las líneas a la diferencia que acreditas y emite.'}`);
    return { form: new Form(fields), lines: Math.max(1, items.length), intro };
}
/** `only`: the document types the field applies to (the script hides it for the others). */
function input(id, name, label, value, errors, extra = html ``, only) {
    const e = errors.get(id);
    return html `<div class="field"${only ? html ` data-only="${only}"` : ''}><label for="${id}">${label}</label>
<input id="${id}" name="${name}" value="${value}"${describedBy(id, e)}${extra}>${fieldError(id, e)}</div>`;
}
function select(id, label, options, value, errors, opts = {}) {
    const e = errors.get(id);
    return html `<div class="field"${opts.only ? html ` data-only="${opts.only}"` : ''}><label for="${id}">${label}</label>
<select id="${id}" name="${id}"${describedBy(id, e)}>
${opts.empty === undefined ? '' : html `<option value="">${opts.empty}</option>`}
${options.map(([n, l]) => html `<option value="${n}"${attr('selected', value === String(n))}>${l}</option>`)}
</select>${fieldError(id, e)}</div>`;
}
function totalsBox(preview) {
    const t = preview?.doc.totals;
    const row = (label, key, v) => html `<dt>${label}</dt><dd class="num" data-total="${key}">${v === undefined ? '—' : money(v)}</dd>`;
    return html `<aside class="totals-box" aria-labelledby="h-tot" aria-live="polite">
<h2 id="h-tot">Totales</h2>
<dl class="details totals">
${row('Neto', 'net', t?.net)}${row('Exento', 'exempt', t?.exempt)}${row('IVA', 'vat', t?.vat)}
<dt class="strong">Total</dt><dd class="num strong" data-total="total">${t ? money(t.total) : '—'}</dd>
</dl>
<p class="muted" data-total-status>${preview ? (preview.warnings.length ? preview.warnings.map((w) => ruleText(w.rule, w.params)).join(' ') : 'Calculado con el IVA del emisor.') : 'Se calculan al cambiar las líneas.'}</p>
</aside>`;
}
function issueForm(v) {
    const { web, issuer, errors } = v;
    const f = v.form;
    const val = (name, i) => (f ? (i === undefined ? f.get(name) : (f.getAll(name)[i] ?? '')) : '');
    const type = Number(val('type')) || 33;
    const base = `/dashboard/${issuer.rut}/emitir`;
    const idem = randomBytes(16).toString('base64url');
    const exemptRows = new Set(f?.getAll('item_exempt') ?? []);
    const rows = Array.from({ length: v.rows }, (_, i) => i);
    const general = errors.get('general') ?? errors.get('type') ?? errors.get('items') ?? errors.get('refs') ?? errors.get('(root)');
    return html `
${v.intro ?? ''}
${general ? notice('error', general) : errors.size ? notice('error', 'Revisa los campos marcados.') : ''}
<form method="post" action="${base}" class="issue" data-issue-form data-totals-url="${base}/totales" novalidate>
${csrfField(web)}
<input type="hidden" name="idem" value="${idem}">
<input type="hidden" name="rows" value="${v.rows}">
<div class="issue-grid">
<div>
<fieldset><legend>Documento</legend>
<div class="field"><label for="type">Tipo</label>
<select id="type" name="type" data-doc-type>
${DTE_TYPES.map((t) => html `<option value="${t}"${attr('selected', t === type)}>${t} · ${TYPE_NAMES[t]}</option>`)}
</select></div>
${input('date', 'date', 'Fecha de emisión (vacía: hoy)', val('date'), errors, html ` type="date"`)}
${select('payment', 'Forma de pago', PAYMENTS, f ? val('payment') : '1', errors, { only: NOT_BOLETA_TYPES })}
${select('service_indicator', 'Indicador de servicio', [
        [1, '1 · Servicios periódicos'],
        [2, '2 · Servicios periódicos domiciliarios'],
        [3, '3 · Ventas y servicios'],
        [4, '4 · Espectáculos por cuenta de terceros'],
    ], val('service_indicator'), errors, { empty: 'Por omisión (3: ventas y servicios)', only: BOLETA_TYPES })}
${select('payment_method', 'Medio de pago', PAYMENT_METHODS, val('payment_method'), errors, { empty: 'No indicar', only: BOLETA_TYPES })}
<div data-only="${BOLETA_TYPES}"><div class="grid2">
${input('period-from', 'period_from', 'Período desde', val('period_from'), errors, html ` type="date"`)}
${input('period-to', 'period_to', 'Período hasta', val('period_to'), errors, html ` type="date"`)}
</div></div>
${input('due_date', 'due_date', 'Vencimiento del pago', val('due_date'), errors, html ` type="date"`, BOLETA_TYPES)}
<p class="hint" data-only="${BOLETA_TYPES}">Período obligatorio en servicios periódicos (1 y 2); vencimiento y dirección del receptor en domiciliarios (2).</p>
</fieldset>

<fieldset><legend>Receptor</legend>
<p class="hint" data-only="${BOLETA_TYPES}">En boletas es opcional (vacío: consumidor final 66.666.666-6).</p>
<p class="hint" data-only="${FULL_RECEIVER_TYPES}">El SII exige RUT, razón social, giro, dirección y comuna del receptor.</p>
<p class="hint" data-only="52">Traslado interno (5): deja el receptor vacío; el receptor es el propio emisor.</p>
<p class="hint" data-only="61">Basta RUT y razón social: giro, dirección, comuna y ciudad se copian del documento referenciado.</p>
<div class="grid2">
${input('receiver-rut', 'receiver_rut', 'RUT', val('receiver_rut'), errors, html ` placeholder="76.354.771-K" autocomplete="off"`)}
${input('receiver-name', 'receiver_name', 'Razón social (máx. 100)', val('receiver_name'), errors, html ``)}
${input('receiver-activity', 'receiver_activity', 'Giro (máx. 40)', val('receiver_activity'), errors, html ``, '33 34 39 41 46 52 56')}
${input('receiver-email', 'receiver_email', 'Correo', val('receiver_email'), errors, html ` type="email"`)}
${input('receiver-address', 'receiver_address', 'Dirección (máx. 70)', val('receiver_address'), errors, html ``, '33 34 39 41 46 52 56')}
${input('receiver-comuna', 'receiver_comuna', 'Comuna (máx. 20)', val('receiver_comuna'), errors, html ``, '33 34 39 41 46 52 56')}
${input('receiver-city', 'receiver_city', 'Ciudad (máx. 20)', val('receiver_city'), errors, html ``, '33 34 39 41 46 52 56')}
</div>
</fieldset>

<fieldset><legend>Líneas</legend>
<p class="hint">Precios netos; en boletas (39) con IVA incluido. Cantidad vacía: 1.</p>
<div class="lines" data-lines>
${rows.map((i) => {
        const e = (k) => errors.get(`item-${i}-${k}`);
        const cell = (k, name, label, extra = html ``) => html `<div class="field"><label for="item-${i}-${k}">${label}</label><input id="item-${i}-${k}" name="${name}" value="${val(name, i)}"${describedBy(`item-${i}-${k}`, e(k))}${extra}>${fieldError(`item-${i}-${k}`, e(k))}</div>`;
        return html `<div class="line" data-line>
<span class="line-no">${i + 1}</span>
${cell('name', 'item_name', 'Descripción')}
${cell('qty', 'item_qty', 'Cantidad', html ` inputmode="decimal"`)}
${cell('price', 'item_price', 'Precio unitario', html ` inputmode="decimal"`)}
${cell('unit', 'item_unit', 'Unidad', html ``)}
${cell('discount_pct', 'item_discount', 'Desc. %', html ` inputmode="decimal"`)}
<div class="field check"><input type="checkbox" id="item-${i}-exempt" name="item_exempt" value="${i}"${attr('checked', exemptRows.has(String(i)))}><label for="item-${i}-exempt">Exento</label></div>
</div>`;
    })}
</div>
<button type="submit" name="action" value="more" class="button small" data-add-line>Más líneas</button>
</fieldset>

<fieldset data-only="56 61 33 34 46 52 39 41"><legend>Referencias</legend>
<p class="hint">Obligatorias en notas de débito (56) y crédito (61): el documento que modifican. Código 1 anula, 2 corrige texto, 3 corrige montos.</p>
${Array.from({ length: REF_ROWS }, (_, i) => {
        const e = (k) => errors.get(`ref-${i}-${k}`);
        const cell = (k, name, label, extra = html ``) => html `<div class="field"><label for="ref-${i}-${k}">${label}</label><input id="ref-${i}-${k}" name="${name}" value="${val(name, i)}"${describedBy(`ref-${i}-${k}`, e(k))}${extra}>${fieldError(`ref-${i}-${k}`, e(k))}</div>`;
        return html `<div class="line ref">
${cell('type', 'ref_type', 'Tipo doc.', html ` inputmode="numeric"`)}
${cell('folio', 'ref_folio', 'Folio')}
${cell('date', 'ref_date', 'Fecha', html ` type="date"`)}
<div class="field"><label for="ref-${i}-code">Código</label><select id="ref-${i}-code" name="ref_code"${describedBy(`ref-${i}-code`, e('code'))}>
<option value="">Por omisión</option>
${[
            [1, '1 · Anula'],
            [2, '2 · Corrige texto'],
            [3, '3 · Corrige montos'],
        ].map(([n, l]) => html `<option value="${n}"${attr('selected', val('ref_code', i) === String(n))}>${l}</option>`)}
</select>${fieldError(`ref-${i}-code`, e('code'))}</div>
${cell('reason', 'ref_reason', 'Razón')}
</div>`;
    })}
</fieldset>

<fieldset data-only="52"><legend>Despacho (guía 52)</legend>
<div class="grid2">
<div class="field"><label for="transfer_type">Tipo de traslado</label>
<select id="transfer_type" name="transfer_type"${describedBy('transfer_type', errors.get('transfer_type'))}>
<option value="">—</option>
${TRANSFER_TYPES.map(([n, l]) => html `<option value="${n}"${attr('selected', val('transfer_type') === String(n))}>${n} · ${l}</option>`)}
</select>${fieldError('transfer_type', errors.get('transfer_type'))}</div>
${select('dispatch_type', 'Tipo de despacho', [
        [1, '1 · Por cuenta del receptor'],
        [2, '2 · Del emisor a instalaciones del cliente'],
        [3, '3 · Del emisor a otras instalaciones'],
    ], val('dispatch_type'), errors, { empty: '—' })}
</div>
<p class="hint">Transporte (opcional). Si el emisor despacha (2 o 3), la dirección y comuna de destino son obligatorias.</p>
<div class="grid2">
${input('transport-plate', 'transport_plate', 'Patente', val('transport_plate'), errors, html ` autocomplete="off"`)}
${input('transport-carrier_rut', 'transport_carrier_rut', 'RUT del transportista', val('transport_carrier_rut'), errors, html ` autocomplete="off"`)}
${input('transport-driver-rut', 'transport_driver_rut', 'RUT del chofer', val('transport_driver_rut'), errors, html ` autocomplete="off"`)}
${input('transport-driver-name', 'transport_driver_name', 'Nombre del chofer', val('transport_driver_name'), errors, html ``)}
${input('transport-address', 'transport_address', 'Dirección de destino', val('transport_address'), errors, html ``)}
${input('transport-comuna', 'transport_comuna', 'Comuna de destino', val('transport_comuna'), errors, html ``)}
${input('transport-city', 'transport_city', 'Ciudad de destino', val('transport_city'), errors, html ``)}
</div>
</fieldset>
</div>
<div class="side-col">
${totalsBox(v.preview)}
<div class="stack">
<button type="submit" name="action" value="preview" class="button">Calcular totales</button>
<button type="submit" formaction="${base}/borrador" formtarget="_blank" class="button">Ver borrador (PDF)</button>
<button type="submit" name="action" value="issue" class="button primary" data-issue-button>Emitir</button>
<p class="hint">${issuer.siiAmbiente === 0 ? 'Sandbox: el documento no se envía al SII.' : 'Producción: el documento se envía al SII.'}</p>
</div>
</div>
</div>
</form>`;
}
function render(reply, v, status = 200) {
    const body = may(v.web.user, 'issue')
        ? issueForm(v)
        : notice('info', 'Tu rol (Lector) permite ver documentos pero no emitirlos.');
    return sendHtml(reply, page({ title: 'Emitir', nav: 'emitir', web: v.web, issuer: v.issuer, body }), status);
}
function rowsOf(f, extra = 0) {
    const n = f ? Math.max(Number(f.get('rows')) || DEFAULT_ROWS, f.getAll('item_name').length) : DEFAULT_ROWS;
    return Math.min(MAX_FORM_ROWS, n + extra);
}
export function issueRoutes(ctx) {
    return async (app) => {
        app.get('/:rut/emitir', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const q = request.query;
            if (q.nota) {
                const note = await noteForm(ctx, issuer, q);
                return render(reply, {
                    web,
                    issuer,
                    form: note.form,
                    rows: Math.min(MAX_FORM_ROWS, Math.max(DEFAULT_ROWS, note.lines)),
                    errors: new Map(),
                    intro: note.intro,
                });
            }
            return render(reply, { web, issuer, form: null, rows: DEFAULT_ROWS, errors: new Map() });
        });
        app.post('/:rut/emitir', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'issue'))
                throw new AppError('FORBIDDEN_ROLE');
            const f = request.form;
            const action = f.get('action') || 'issue';
            const view = { web, issuer, form: f, rows: rowsOf(f), errors: new Map() };
            if (action === 'more')
                return render(reply, { ...view, rows: rowsOf(f, 4) });
            const parsed = requestFromForm(f);
            const checked = validate(parsed);
            if (!checked.ok)
                return render(reply, { ...view, errors: errorsOf(checked.error, parsed) }, 400);
            if (action === 'preview') {
                try {
                    return render(reply, { ...view, preview: await previewDocument(ctx, issuer, checked.req) });
                }
                catch (err) {
                    if (err instanceof AppError && err.status < 500)
                        return render(reply, { ...view, errors: errorsOf(err, parsed) }, err.status);
                    throw err;
                }
            }
            const idem = f.get('idem');
            if (!/^[A-Za-z0-9_-]{16,64}$/.test(idem))
                throw new AppError('CSRF_FAILED');
            const target = (d) => `/dashboard/${issuer.rut}/documentos/${d.type}/${d.folio}?env=${d.env}&ok=emitido`;
            // The API's protocol (src/issuing/idempotency.ts): a refusal (4xx) is kept like a
            // document, so the same form sent again shows the same answer and never issues. The
            // page that shows a refusal mints a new key: the corrected form is a new request.
            const answer = await runIdempotent(ctx, {
                issuerId: issuer.id,
                key: `dashboard:${idem}`,
                endpoint: 'dashboard emitir',
                requestHash: requestFingerprint('dashboard emitir', checked.req),
            }, async (claimId) => {
                try {
                    const result = await issueDocument(ctx, issuer, checked.req, { idempotencyId: claimId });
                    return {
                        status: 200,
                        body: { type: result.document.type, folio: result.document.folio, env: result.env },
                    };
                }
                catch (err) {
                    if (!(err instanceof AppError) || err.status >= 500)
                        throw err;
                    return { status: err.status, body: { errors: Object.fromEntries(errorsOf(err, parsed)) } };
                }
            }, async (documentId) => {
                const d = await documentById(ctx, documentId);
                return { type: d.type, folio: d.folio, env: d.environment };
            });
            if (answer.status === 200)
                return reply.redirect(target(answer.body), 303);
            const { errors } = answer.body;
            return render(reply, { ...view, errors: new Map(Object.entries(errors)) }, answer.status);
        });
        // The script's live totals: the form as it is now → totals or the first problem.
        app.post('/:rut/emitir/totales', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            const parsed = requestFromForm(request.form);
            const checked = validate(parsed);
            const fail = (err) => {
                const errors = errorsOf(err, parsed);
                return reply.status(200).send({ ok: false, errors: Object.fromEntries(errors) });
            };
            if (!checked.ok)
                return fail(checked.error);
            try {
                const p = await previewDocument(ctx, issuer, checked.req);
                const t = p.doc.totals;
                return {
                    ok: true,
                    totals: { net: money(t.net), exempt: money(t.exempt), vat: money(t.vat), total: money(t.total) },
                    warnings: p.warnings.map((w) => ruleText(w.rule, w.params)),
                };
            }
            catch (err) {
                if (err instanceof AppError && err.status < 500)
                    return fail(err);
                throw err;
            }
        });
        app.post('/:rut/emitir/borrador', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const parsed = requestFromForm(request.form);
            const checked = validate(parsed);
            const view = { web, issuer, form: request.form, rows: rowsOf(request.form), errors: new Map() };
            if (!checked.ok)
                return render(reply, { ...view, errors: errorsOf(checked.error, parsed) }, 400);
            const p = await previewDocument(ctx, issuer, checked.req);
            const pdf = await previewPdf(p);
            reply.header('Content-Disposition', `inline; filename="BORRADOR_${issuer.rut}_T${p.doc.type}.pdf"`);
            return reply.type('application/pdf').send(pdf);
        });
    };
}
