import { may } from '../admin/users.js';
import { ROLE_LABELS, rut } from './format.js';
import { html } from './html.js';
const NAV = [
    { key: 'documentos', label: 'Documentos' },
    { key: 'recibidos', label: 'Recibidos' },
    { key: 'cesiones', label: 'Cesiones' },
    { key: 'emitir', label: 'Emitir' },
    { key: 'folios', label: 'Folios' },
    { key: 'certificado', label: 'Certificado' },
    { key: 'claves', label: 'Claves API' },
    { key: 'webhooks', label: 'Webhooks' },
    { key: 'usuarios', label: 'Usuarios', ownerOnly: true },
    { key: 'configuracion', label: 'Configuración' },
    { key: 'buzon', label: 'Buzón de intercambio', ownerOnly: true },
];
const STATIC = '/dashboard/static';
function head(title) {
    return html `<!doctype html>
<html lang="es-CL">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Timbre</title>
<link rel="stylesheet" href="${STATIC}/style.css">
<script src="${STATIC}/app.js" defer></script>
</head>`;
}
function envBadge(issuer) {
    return issuer.siiAmbiente === 0
        ? html `<span class="env env-sandbox" title="Los documentos no se envían al SII">SANDBOX</span>`
        : html `<span class="env env-live" title="Los documentos se envían al SII">PRODUCCIÓN</span>`;
}
export function page(p) {
    const { web, issuer } = p;
    const base = `/dashboard/${issuer.rut}`;
    const nav = NAV.filter((n) => !n.ownerOnly || may(web.user, 'users'));
    return html `${head(p.title)}
<body>
<a class="skip" href="#main">Saltar al contenido</a>
<header class="top">
  <a class="brand" href="${base}/documentos">Timbre</a>
  <form class="switcher" method="get" action="/dashboard/ir">
    <label for="issuer-switch" class="visually-hidden">Emisor</label>
    <select id="issuer-switch" name="rut" class="issuer-select" data-autosubmit>
      ${web.issuers.map((i) => html `<option value="${i.rut}"${i.id === issuer.id ? html ` selected` : ''}>${rut(i.rut)} · ${i.name}</option>`)}
    </select>
    <input type="hidden" name="page" value="${p.nav ?? 'documentos'}">
    <button type="submit" class="button small js-hide">Cambiar</button>
  </form>
  ${envBadge(issuer)}
  <details class="usermenu">
    <summary>${web.user.email}</summary>
    <div class="usermenu-body">
      <p class="muted">Rol: ${ROLE_LABELS[web.user.role] ?? web.user.role}</p>
      <p><a href="${base}/contrasena">${web.user.passwordHash === null ? 'Crear contraseña' : 'Cambiar contraseña'}</a></p>
      <form method="post" action="/dashboard/salir">
        <input type="hidden" name="_csrf" value="${web.session.csrfToken}">
        <button type="submit" class="button small">Salir</button>
      </form>
    </div>
  </details>
</header>
<div class="frame">
  <nav class="side" aria-label="Secciones">
    <ul>
      ${nav.map((n) => html `<li><a href="${base}/${n.key}"${n.key === p.nav ? html ` aria-current="page"` : ''}>${n.label}</a></li>`)}
    </ul>
  </nav>
  <main id="main" class="content">
    <h1>${p.title}</h1>
    ${p.body}
  </main>
</div>
</body>
</html>`;
}
/** A page outside the signed-in frame (sign-in, errors without a session). */
export function barePage(title, body) {
    return html `${head(title)}
<body class="bare">
<main id="main" class="card narrow">
  <p class="brand">Timbre</p>
  <h1>${title}</h1>
  ${body}
</main>
</body>
</html>`;
}
/** The hidden CSRF field every state-changing form carries. */
export function csrfField(web) {
    return html `<input type="hidden" name="_csrf" value="${web.session.csrfToken}">`;
}
/** A field's error, tied to its input by id (aria-describedby). */
export function fieldError(id, message) {
    return message ? html `<p class="field-error" id="${id}-error">${message}</p>` : html ``;
}
export function describedBy(id, message) {
    return message ? html ` aria-invalid="true" aria-describedby="${id}-error"` : html ``;
}
export function notice(kind, body) {
    return html `<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${body}</div>`;
}
