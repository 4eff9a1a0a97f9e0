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
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { may, type SignedIn } from '../../admin/users.ts';
import type { AppContext } from '../../context.ts';
import { type IssueRequest, issueRequestSchema } from '../../dte/issue-request.ts';
import { DTE_TYPES } from '../../dte/model.ts';
import { AppError, formatPath } from '../../errors.ts';
import type { Issuer } from '../../generated/prisma/client.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  requestFingerprint,
} from '../../issuing/idempotency.ts';
import { documentById, issueDocument } from '../../issuing/issue-document.ts';
import { type Preview, previewDocument, previewPdf } from '../../issuing/preview-document.ts';
import { money, TYPE_NAMES } from '../format.ts';
import { type Form, parseNumber } from '../form.ts';
import { attr, type Html, html } from '../html.ts';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.ts';
import { errorMessage, fieldMessage } from '../messages.ts';
import { issuerOf, sendHtml, signedIn } from '../plugin.ts';

const DEFAULT_ROWS = 4;
const MAX_FORM_ROWS = 60;
const REF_ROWS = 2;
const TRANSFER_TYPES: [number, string][] = [
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

interface Parsed {
  body: Record<string, unknown>;
  /** Index in `items` / `refs` → row of the form (empty rows are skipped). */
  itemRows: number[];
  refRows: number[];
}

const num = (text: string) => parseNumber(text);

function requestFromForm(f: Form): Parsed {
  const type = Number(f.get('type'));
  const body: Record<string, unknown> = { type: Number.isFinite(type) && type > 0 ? type : undefined };
  if (f.get('date')) body.date = f.get('date');
  const receiverKeys = ['rut', 'name', 'activity', 'address', 'comuna', 'city', 'email'] as const;
  const receiver: Record<string, string> = {};
  for (const k of receiverKeys) {
    if (type === 61 && k !== 'rut' && k !== 'name') continue;
    if (f.get(`receiver_${k}`)) receiver[k] = f.get(`receiver_${k}`);
  }
  if (Object.keys(receiver).length) body.receiver = receiver;

  const names = f.getAll('item_name');
  const qtys = f.getAll('item_qty');
  const prices = f.getAll('item_price');
  const units = f.getAll('item_unit');
  const discounts = f.getAll('item_discount');
  const exempt = new Set(f.getAll('item_exempt'));
  const items: Record<string, unknown>[] = [];
  const itemRows: number[] = [];
  names.forEach((name, row) => {
    if (!name && !qtys[row] && !prices[row]) return;
    const item: Record<string, unknown> = { name, qty: num(qtys[row] ?? '') ?? 1 };
    const price = num(prices[row] ?? '');
    if (price !== undefined) item.price = price;
    if (units[row]) item.unit = units[row];
    const discount = num(discounts[row] ?? '');
    if (discount !== undefined) item.discount_pct = discount;
    if (exempt.has(String(row))) item.exempt = true;
    items.push(item);
    itemRows.push(row);
  });
  body.items = items;

  const refs: Record<string, unknown>[] = [];
  const refRows: number[] = [];
  const rt = f.getAll('ref_type');
  const rf = f.getAll('ref_folio');
  const rd = f.getAll('ref_date');
  const rc = f.getAll('ref_code');
  const rr = f.getAll('ref_reason');
  rt.forEach((t, row) => {
    if (!t && !rf[row]) return;
    const folio = rf[row] ?? '';
    const ref: Record<string, unknown> = {
      type: /^\d+$/.test(t) ? Number(t) : t,
      folio: /^\d{1,15}$/.test(folio) ? Number(folio) : folio,
    };
    if (rd[row]) ref.date = rd[row];
    if (rc[row]) ref.code = Number(rc[row]);
    if (rr[row]) ref.reason = rr[row];
    refs.push(ref);
    refRows.push(row);
  });
  if (refs.length) body.refs = refs;
  if (type === 52) {
    const dispatch: Record<string, number> = {};
    if (f.get('transfer_type')) dispatch.transfer_type = Number(f.get('transfer_type'));
    if (f.get('dispatch_type')) dispatch.dispatch_type = Number(f.get('dispatch_type'));
    body.dispatch = dispatch;
  }
  if ((type === 39 || type === 41) && f.get('service_indicator'))
    body.service_indicator = Number(f.get('service_indicator'));
  return { body, itemRows, refRows };
}

/** Schema paths → form field ids, so each message sits next to its input. */
function fieldId(path: string, p: Parsed): string {
  const item = /^items\[(\d+)\]\.?(\w*)/.exec(path);
  if (item)
    return item[2] ? `item-${p.itemRows[Number(item[1])]}-${item[2]}` : `item-${p.itemRows[Number(item[1])]}-name`;
  const ref = /^refs\[(\d+)\]\.?(\w*)/.exec(path);
  if (ref) return `ref-${p.refRows[Number(ref[1])]}-${ref[2] || 'folio'}`;
  if (path.startsWith('receiver.')) return `receiver-${path.slice(9)}`;
  if (path.startsWith('dispatch')) return 'transfer_type';
  return path || 'general';
}

type Errors = Map<string, string>;

function errorsOf(err: AppError, p: Parsed): Errors {
  const errors: Errors = new Map();
  if (err.details?.length) {
    for (const d of err.details) {
      const id = fieldId(d.path, p);
      if (!errors.has(id)) errors.set(id, fieldMessage(d.message));
    }
  } else {
    errors.set('general', errorMessage(err));
  }
  return errors;
}

function validate(p: Parsed): { ok: true; req: IssueRequest } | { ok: false; error: AppError } {
  const r = issueRequestSchema.safeParse(p.body);
  if (r.success) return { ok: true, req: r.data };
  const details = r.error.issues.map((i) => ({ path: formatPath(i.path) || 'type', message: i.message }));
  return { ok: false, error: new AppError('VALIDATION_FAILED', undefined, { details }) };
}

interface View {
  web: SignedIn;
  issuer: Issuer;
  form: Form | null;
  rows: number;
  errors: Errors;
  preview?: Preview;
}

function input(id: string, name: string, label: string, value: string, errors: Errors, extra: Html = html``): Html {
  const e = errors.get(id);
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${name}" value="${value}"${describedBy(id, e)}${extra}>${fieldError(id, e)}</div>`;
}

function totalsBox(preview: Preview | undefined): Html {
  const t = preview?.doc.totals;
  const row = (label: string, key: string, v: number | undefined) =>
    html`<dt>${label}</dt><dd class="num" data-total="${key}">${v === undefined ? '—' : money(v)}</dd>`;
  return html`<aside class="totals-box" aria-labelledby="h-tot" aria-live="polite">
<h2 id="h-tot">Totales</h2>
<dl class="details totals">
${row('Neto', 'net', t?.net)}${row('Exento', 'exempt', t?.exempt)}${row('IVA', 'vat', t?.vat)}
<dt class="strong">Total</dt><dd class="num strong" data-total="total">${t ? money(t.total) : '—'}</dd>
</dl>
<p class="muted" data-total-status>${preview ? (preview.warnings.length ? preview.warnings.join(' ') : 'Calculado con el IVA del emisor.') : 'Se calculan al cambiar las líneas.'}</p>
</aside>`;
}

function issueForm(v: View): Html {
  const { web, issuer, errors } = v;
  const f = v.form;
  const val = (name: string, i?: number) => (f ? (i === undefined ? f.get(name) : (f.getAll(name)[i] ?? '')) : '');
  const type = Number(val('type')) || 33;
  const base = `/dashboard/${issuer.rut}/emitir`;
  const idem = randomBytes(16).toString('base64url');
  const exemptRows = new Set(f?.getAll('item_exempt') ?? []);
  const rows = Array.from({ length: v.rows }, (_, i) => i);
  const general =
    errors.get('general') ?? errors.get('type') ?? errors.get('items') ?? errors.get('refs') ?? errors.get('(root)');
  return html`
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
${DTE_TYPES.map((t) => html`<option value="${t}"${attr('selected', t === type)}>${t} · ${TYPE_NAMES[t]}</option>`)}
</select></div>
${input('date', 'date', 'Fecha de emisión (vacía: hoy)', val('date'), errors, html` type="date"`)}
<div class="field" data-only="39 41"><label for="service_indicator">Indicador de servicio (boletas)</label>
<select id="service_indicator" name="service_indicator">
<option value="">Por omisión (3: ventas y servicios)</option>
${[1, 2, 3, 4].map((n) => html`<option value="${n}"${attr('selected', val('service_indicator') === String(n))}>${n}</option>`)}
</select></div>
</fieldset>

<fieldset><legend>Receptor</legend>
<p class="hint" data-only="39 41">En boletas es opcional (vacío: consumidor final 66.666.666-6).</p>
<div class="grid2">
${input('receiver-rut', 'receiver_rut', 'RUT', val('receiver_rut'), errors, html` placeholder="76.354.771-K" autocomplete="off"`)}
${input('receiver-name', 'receiver_name', 'Razón social', val('receiver_name'), errors)}
${input('receiver-activity', 'receiver_activity', 'Giro', val('receiver_activity'), errors)}
${input('receiver-email', 'receiver_email', 'Correo', val('receiver_email'), errors, html` type="email"`)}
${input('receiver-address', 'receiver_address', 'Dirección', val('receiver_address'), errors)}
${input('receiver-comuna', 'receiver_comuna', 'Comuna', val('receiver_comuna'), errors)}
${input('receiver-city', 'receiver_city', 'Ciudad', val('receiver_city'), errors)}
</div>
</fieldset>

<fieldset><legend>Líneas</legend>
<p class="hint">Precios netos; en boletas (39) con IVA incluido. Cantidad vacía: 1.</p>
<div class="lines" data-lines>
${rows.map((i) => {
  const e = (k: string) => errors.get(`item-${i}-${k}`);
  const cell = (k: string, name: string, label: string, extra: Html = html``) =>
    html`<div class="field"><label for="item-${i}-${k}">${label}</label><input id="item-${i}-${k}" name="${name}" value="${val(name, i)}"${describedBy(`item-${i}-${k}`, e(k))}${extra}>${fieldError(`item-${i}-${k}`, e(k))}</div>`;
  return html`<div class="line" data-line>
<span class="line-no">${i + 1}</span>
${cell('name', 'item_name', 'Descripción')}
${cell('qty', 'item_qty', 'Cantidad', html` inputmode="decimal"`)}
${cell('price', 'item_price', 'Precio unitario', html` inputmode="decimal"`)}
${cell('unit', 'item_unit', 'Unidad', html` maxlength="4"`)}
${cell('discount_pct', 'item_discount', 'Desc. %', html` inputmode="decimal"`)}
<div class="field check"><input type="checkbox" id="item-${i}-exempt" name="item_exempt" value="${i}"${attr('checked', exemptRows.has(String(i)))}><label for="item-${i}-exempt">Exento</label></div>
</div>`;
})}
</div>
<button type="submit" name="action" value="more" class="button small" data-add-line>Más líneas</button>
</fieldset>

<fieldset data-only="56 61 33 34 46 52 39 41"><legend>Referencias</legend>
<p class="hint">Obligatorias en notas de débito (56) y crédito (61): el documento que modifican. Código 1 anula, 2 corrige texto, 3 corrige montos.</p>
${Array.from({ length: REF_ROWS }, (_, i) => {
  const e = (k: string) => errors.get(`ref-${i}-${k}`);
  const cell = (k: string, name: string, label: string, extra: Html = html``) =>
    html`<div class="field"><label for="ref-${i}-${k}">${label}</label><input id="ref-${i}-${k}" name="${name}" value="${val(name, i)}"${describedBy(`ref-${i}-${k}`, e(k))}${extra}>${fieldError(`ref-${i}-${k}`, e(k))}</div>`;
  return html`<div class="line ref">
${cell('type', 'ref_type', 'Tipo doc.', html` inputmode="numeric"`)}
${cell('folio', 'ref_folio', 'Folio')}
${cell('date', 'ref_date', 'Fecha', html` type="date"`)}
<div class="field"><label for="ref-${i}-code">Código</label><select id="ref-${i}-code" name="ref_code">
<option value="">Por omisión</option>
${[
  [1, '1 · Anula'],
  [2, '2 · Corrige texto'],
  [3, '3 · Corrige montos'],
].map(([n, l]) => html`<option value="${n}"${attr('selected', val('ref_code', i) === String(n))}>${l}</option>`)}
</select></div>
${cell('reason', 'ref_reason', 'Razón')}
</div>`;
})}
</fieldset>

<fieldset data-only="52"><legend>Despacho (guía 52)</legend>
<div class="grid2">
<div class="field"><label for="transfer_type">Tipo de traslado</label>
<select id="transfer_type" name="transfer_type"${describedBy('transfer_type', errors.get('transfer_type'))}>
<option value="">—</option>
${TRANSFER_TYPES.map(([n, l]) => html`<option value="${n}"${attr('selected', val('transfer_type') === String(n))}>${n} · ${l}</option>`)}
</select>${fieldError('transfer_type', errors.get('transfer_type'))}</div>
<div class="field"><label for="dispatch_type">Tipo de despacho</label>
<select id="dispatch_type" name="dispatch_type"><option value="">—</option>
${[
  [1, '1 · Por cuenta del receptor'],
  [2, '2 · Del emisor a instalaciones del cliente'],
  [3, '3 · Del emisor a otras instalaciones'],
].map(([n, l]) => html`<option value="${n}"${attr('selected', val('dispatch_type') === String(n))}>${l}</option>`)}
</select></div>
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

function render(reply: FastifyReply, v: View, status = 200) {
  const body = may(v.web.user, 'issue')
    ? issueForm(v)
    : notice('info', 'Tu rol (Lector) permite ver documentos pero no emitirlos.');
  return sendHtml(reply, page({ title: 'Emitir', nav: 'emitir', web: v.web, issuer: v.issuer, body }), status);
}

function rowsOf(f: Form | null, extra = 0): number {
  const n = f ? Math.max(Number(f.get('rows')) || DEFAULT_ROWS, f.getAll('item_name').length) : DEFAULT_ROWS;
  return Math.min(MAX_FORM_ROWS, n + extra);
}

export function issueRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/:rut/emitir', async (request, reply) => {
      const web = signedIn(request);
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      return render(reply, { web, issuer, form: null, rows: DEFAULT_ROWS, errors: new Map() });
    });

    app.post('/:rut/emitir', async (request, reply) => {
      const web = signedIn(request);
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      if (!may(web.user, 'issue')) throw new AppError('FORBIDDEN_ROLE');
      const f = request.form;
      const action = f.get('action') || 'issue';
      const view: View = { web, issuer, form: f, rows: rowsOf(f), errors: new Map() };
      if (action === 'more') return render(reply, { ...view, rows: rowsOf(f, 4) });
      const parsed = requestFromForm(f);
      const checked = validate(parsed);
      if (!checked.ok) return render(reply, { ...view, errors: errorsOf(checked.error, parsed) }, 400);
      if (action === 'preview') {
        try {
          return render(reply, { ...view, preview: await previewDocument(ctx, issuer, checked.req) });
        } catch (err) {
          if (err instanceof AppError && err.status < 500)
            return render(reply, { ...view, errors: errorsOf(err, parsed) }, err.status);
          throw err;
        }
      }
      const idem = f.get('idem');
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(idem)) throw new AppError('CSRF_FAILED');
      const claim = await claimIdempotencyKey(ctx, {
        issuerId: issuer.id,
        key: `dashboard:${idem}`,
        endpoint: 'dashboard emitir',
        requestHash: requestFingerprint('dashboard emitir', checked.req),
      });
      const target = (d: { type: number; folio: number; env: string }) =>
        `/dashboard/${issuer.rut}/documentos/${d.type}/${d.folio}?env=${d.env}&ok=emitido`;
      if (claim.kind === 'replay')
        return reply.redirect(target(claim.body as { type: number; folio: number; env: string }), 303);
      if (claim.kind === 'recovered') {
        const d = await documentById(ctx, claim.documentId);
        const answer = { type: d.type, folio: d.folio, env: d.environment };
        await completeIdempotencyKey(ctx, claim.record.id, 200, answer);
        return reply.redirect(target(answer), 303);
      }
      try {
        const result = await issueDocument(ctx, issuer, checked.req, { idempotencyId: claim.record.id });
        const answer = { type: result.document.type, folio: result.document.folio, env: result.env };
        await completeIdempotencyKey(ctx, claim.record.id, 200, answer);
        return reply.redirect(target(answer), 303);
      } catch (err) {
        // A refused request takes no folio; the key is freed so the corrected form can be sent.
        await releaseIdempotencyKey(ctx, claim.record.id);
        if (err instanceof AppError && err.status < 500)
          return render(reply, { ...view, errors: errorsOf(err, parsed) }, err.status);
        throw err;
      }
    });

    // The script's live totals: the form as it is now → totals or the first problem.
    app.post('/:rut/emitir/totales', async (request, reply) => {
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      const parsed = requestFromForm(request.form);
      const checked = validate(parsed);
      const fail = (err: AppError) => {
        const errors = errorsOf(err, parsed);
        return reply.status(200).send({ ok: false, errors: Object.fromEntries(errors) });
      };
      if (!checked.ok) return fail(checked.error);
      try {
        const p = await previewDocument(ctx, issuer, checked.req);
        const t = p.doc.totals;
        return {
          ok: true,
          totals: { net: money(t.net), exempt: money(t.exempt), vat: money(t.vat), total: money(t.total) },
          warnings: p.warnings,
        };
      } catch (err) {
        if (err instanceof AppError && err.status < 500) return fail(err);
        throw err;
      }
    });

    app.post('/:rut/emitir/borrador', async (request, reply) => {
      const web = signedIn(request);
      const issuer = issuerOf(request, (request.params as { rut: string }).rut);
      const parsed = requestFromForm(request.form);
      const checked = validate(parsed);
      const view: View = { web, issuer, form: request.form, rows: rowsOf(request.form), errors: new Map() };
      if (!checked.ok) return render(reply, { ...view, errors: errorsOf(checked.error, parsed) }, 400);
      const p = await previewDocument(ctx, issuer, checked.req);
      const pdf = await previewPdf(p);
      reply.header('Content-Disposition', `inline; filename="BORRADOR_${issuer.rut}_T${p.doc.type}.pdf"`);
      return reply.type('application/pdf').send(pdf);
    });
  };
}
