import { ESTADO_LABELS, typeName } from './format.js';
import { html } from './html.js';
export function estadoBadge(estado) {
    const e = ESTADO_LABELS[estado] ?? { label: estado, tone: 'gray' };
    return html `<span class="badge badge-${e.tone}">${e.label}</span>`;
}
export function typeBadge(type) {
    return html `<span class="dte" title="${typeName(type)}">${type}</span>`;
}
/** A copyable curl line for the issuer (empty states). */
export function curlExample(baseUrl, issuer) {
    const line = `curl -H "Authorization: Bearer $TIMBRE_KEY" ${baseUrl}/api/${issuer.rut}/emisiones`;
    return html `<div class="copy"><code id="curl-example">${line}</code>
<button type="button" class="button small" data-copy="curl-example">Copiar</button></div>`;
}
