import { listFaltantes } from '../../receiving/rcv.js';
import { typeBadge } from '../components.js';
import { date, dateTime, money, rut } from '../format.js';
import { html } from '../html.js';
import { describedBy, fieldError } from '../layout.js';
/** The table shows the soonest deadlines; the API pages the rest. */
const SHOWN = 50;
function importForm(base, csrf, error) {
    return html `<form method="post" action="${base}/recibidos/rcv" enctype="multipart/form-data">
${csrf}
<label for="rcv-file">Archivo CSV del Registro de Compras (descargado del sitio del SII)</label>
<input id="rcv-file" name="file" type="file" accept=".csv,text/csv" required${describedBy('rcv-file', error)}>
${fieldError('rcv-file', error)}
<button type="submit" class="button">Importar RCV</button>
</form>`;
}
function plazo(vence, dias, vencido) {
    if (!vence)
        return html `<span class="muted">Sin plazo de reclamo</span>`;
    const when = dateTime(new Date(vence));
    if (vencido)
        return html `${when}<br><span class="muted">Vencido</span>`;
    return html `${when}<br><span class="muted">Quedan ${dias} día${dias === 1 ? '' : 's'}</span>`;
}
/** The section: the import form (owners and editors) and the missing documents. */
export async function rcvSection(ctx, issuer, opts) {
    const base = `/dashboard/${issuer.rut}`;
    const { data, total } = await listFaltantes(ctx, issuer, { page: 1, limit: SHOWN });
    return html `<section aria-labelledby="h-faltantes"><h2 id="h-faltantes">En el SII, no recibidos por correo</h2>
${opts.notice ?? ''}
${data.length === 0
        ? html `<p class="muted">No hay documentos del Registro de Compras (RCV) sin recibir. Importa el CSV del RCV para compararlo con lo recibido.</p>`
        : html `<p class="muted">${total} documento${total === 1 ? '' : 's'} que el SII registra y no llegaron al buzón: pídelos al proveedor antes del plazo.</p>
<div class="table-wrap"><table class="list">
<caption class="visually-hidden">Documentos en el SII, no recibidos por correo</caption>
<thead><tr><th scope="col">Tipo</th><th scope="col">Folio</th><th scope="col">Emisor</th><th scope="col" class="hide-sm">Recepción SII</th><th scope="col" class="num">Total</th><th scope="col">Plazo</th></tr></thead>
<tbody>
${data.map((f) => html `<tr>
<td>${typeBadge(f.tipo_dte)}</td>
<td>Nº ${f.folio}<span class="show-sm muted">${date(f.fecha_docto)}</span></td>
<td><span class="receiver">${f.razon_social}</span><br><span class="muted">${rut(f.emisor_rut)}</span></td>
<td class="hide-sm">${dateTime(new Date(f.fecha_recepcion))}</td>
<td class="num">${money(f.monto_total)}</td>
<td>${plazo(f.vence_at, f.dias_restantes, f.vencido)}</td>
</tr>`)}
</tbody></table></div>`}
${opts.canImport ? importForm(base, opts.csrf, opts.error) : ''}
</section>`;
}
