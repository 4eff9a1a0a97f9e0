import { updateIssuer } from '../../admin/issuers.js';
import { may } from '../../admin/users.js';
import { fromDbDate } from '../../dte/calendar-date.js';
import { AppError } from '../../errors.js';
import { rut } from '../format.js';
import { attr, html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage, fieldMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
const FIELDS = [
    'name',
    'giro',
    'acteco',
    'address',
    'comuna',
    'city',
    'ambiente',
    'vat_rate',
    'resolution_date',
    'resolution_number',
    'sii_office',
];
function current(issuer) {
    return {
        name: issuer.name,
        giro: issuer.giro,
        acteco: issuer.acteco.join(', '),
        address: issuer.address,
        comuna: issuer.comuna,
        city: issuer.city ?? '',
        ambiente: String(issuer.siiAmbiente),
        vat_rate: String(issuer.vatRate),
        resolution_date: fromDbDate(issuer.resolutionDate) ?? '',
        resolution_number: issuer.resolutionNumber === null ? '' : String(issuer.resolutionNumber),
        sii_office: issuer.siiOffice ?? '',
    };
}
function fromForm(f) {
    return Object.fromEntries(FIELDS.map((k) => [k, f.get(k)]));
}
const intOrNaN = (s) => (/^\d{1,9}$/.test(s) ? Number(s) : Number.NaN);
/** Schema paths of updateIssuer → form fields. */
const PATHS = {
    name: 'name',
    giro: 'giro',
    acteco: 'acteco',
    address: 'address',
    comuna: 'comuna',
    city: 'city',
    ambiente: 'ambiente',
    vatRate: 'vat_rate',
    resolutionDate: 'resolution_date',
    resolutionNumber: 'resolution_number',
    siiOffice: 'sii_office',
};
function settingsForm(web, issuer, values, errors) {
    const field = (k, label, extra = html ``, hint = '') => html `<div class="field"><label for="set-${k}">${label}</label>
<input id="set-${k}" name="${k}" value="${values[k]}"${describedBy(`set-${k}`, errors.get(k))}${extra}>
${hint ? html `<p class="hint">${hint}</p>` : ''}${fieldError(`set-${k}`, errors.get(k))}</div>`;
    return html `<form method="post" action="/dashboard/${issuer.rut}/configuracion" class="settings">
${csrfField(web)}
<fieldset><legend>Emisor ${rut(issuer.rut)}</legend>
<div class="grid2">
${field('name', 'Razón social (máx. 100)', html ``)}
${field('giro', 'Giro (máx. 80)', html ``)}
${field('acteco', 'Actividades económicas (códigos SII)', html ``, 'Hasta 4 códigos de 6 dígitos, separados por coma.')}
${field('address', 'Dirección (máx. 70)', html ``)}
${field('comuna', 'Comuna (máx. 20)', html ``)}
${field('city', 'Ciudad (máx. 20)', html ``)}
</div></fieldset>
<fieldset><legend>SII</legend>
<div class="grid2">
<div class="field"><label for="set-ambiente">Ambiente</label>
<select id="set-ambiente" name="ambiente"${describedBy('set-ambiente', errors.get('ambiente'))}>
<option value="0"${attr('selected', values.ambiente === '0')}>Sandbox (no se envía al SII)</option>
<option value="1"${attr('selected', values.ambiente === '1')}>Producción (se envía al SII)</option>
</select>${fieldError('set-ambiente', errors.get('ambiente'))}</div>
${field('vat_rate', 'Tasa de IVA (%)', html ` inputmode="numeric"`)}
${field('resolution_date', 'Fecha de resolución SII', html ` type="date"`)}
${field('resolution_number', 'Número de resolución SII', html ` inputmode="numeric"`, 'En certificación el SII usa el número 0.')}
${field('sii_office', 'Oficina del SII', html ` placeholder="p. ej. SANTIAGO ORIENTE"`, 'La unidad del SII que corresponde al emisor; se imprime «S.I.I. - <unidad>» bajo el recuadro.')}
</div></fieldset>
<button type="submit" class="button primary">Guardar</button>
</form>`;
}
function confirmPage(web, issuer, values) {
    const toLive = values.ambiente !== '0';
    return html `<div class="confirm" role="alert">
<h2>${toLive ? '¿Cambiar a producción?' : '¿Volver a sandbox?'}</h2>
<p>${toLive
        ? 'Desde ahora cada documento que emita este emisor se enviará al SII y tendrá validez tributaria. Se necesita un certificado vigente, la resolución del SII y folios autorizados (CAF) de producción. Los documentos de sandbox no se envían.'
        : 'Los documentos que emita desde ahora no se enviarán al SII y no tendrán validez tributaria. Los documentos de producción ya emitidos no cambian.'}</p>
<form method="post" action="/dashboard/${issuer.rut}/configuracion" class="inline">
${csrfField(web)}
${FIELDS.map((k) => html `<input type="hidden" name="${k}" value="${values[k]}">`)}
<input type="hidden" name="confirm" value="1">
<button type="submit" class="button ${toLive ? 'danger' : 'primary'}">${toLive ? 'Sí, cambiar a producción' : 'Sí, volver a sandbox'}</button>
</form>
<a class="button" href="/dashboard/${issuer.rut}/configuracion">Cancelar</a>
</div>`;
}
function render(reply, web, issuer, body, status = 200) {
    return sendHtml(reply, page({ title: 'Configuración', nav: 'configuracion', web, issuer, body }), status);
}
export function settingsRoutes(_ctx) {
    const ctx = _ctx;
    return async (app) => {
        app.get('/:rut/configuracion', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            const ok = request.query.ok === '1';
            const body = may(web.user, 'settings')
                ? html `${ok ? notice('ok', 'Cambios guardados.') : ''}${settingsForm(web, issuer, current(issuer), new Map())}`
                : notice('info', 'Solo el dueño de la cuenta puede cambiar la configuración del emisor.');
            return render(reply, web, issuer, body);
        });
        app.post('/:rut/configuracion', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'settings'))
                throw new AppError('FORBIDDEN_ROLE');
            const values = fromForm(request.form);
            const ambiente = intOrNaN(values.ambiente);
            if (ambiente !== issuer.siiAmbiente && request.form.get('confirm') !== '1' && Number.isFinite(ambiente)) {
                return render(reply, web, issuer, confirmPage(web, issuer, values));
            }
            try {
                await updateIssuer(ctx, issuer.rut, {
                    name: values.name,
                    giro: values.giro,
                    acteco: values.acteco.split(/[\s,;]+/).filter(Boolean),
                    address: values.address,
                    comuna: values.comuna,
                    city: values.city || null,
                    ambiente,
                    vatRate: intOrNaN(values.vat_rate),
                    resolutionDate: values.resolution_date || null,
                    resolutionNumber: values.resolution_number === '' ? null : intOrNaN(values.resolution_number),
                    siiOffice: values.sii_office || null,
                });
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                const errors = new Map();
                for (const d of err.details ?? []) {
                    const k = PATHS[d.path.split(/[.[]/)[0] ?? ''];
                    if (k && !errors.has(k))
                        errors.set(k, fieldMessage(d));
                }
                const body = html `${notice('error', errors.size ? 'Revisa los campos marcados.' : errorMessage(err))}${settingsForm(web, issuer, values, errors)}`;
                return render(reply, web, issuer, body, err.status);
            }
            return reply.redirect(`/dashboard/${issuer.rut}/configuracion?ok=1`, 303);
        });
    };
}
