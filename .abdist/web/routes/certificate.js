import { importCertificate, listCertificates } from '../../admin/certificates.js';
import { may } from '../../admin/users.js';
import { AppError } from '../../errors.js';
import { dayInSantiago, daysLeft, rut } from '../format.js';
import { html } from '../html.js';
import { csrfField, describedBy, fieldError, notice, page } from '../layout.js';
import { errorMessage } from '../messages.js';
import { issuerOf, sendHtml, signedIn } from '../plugin.js';
/** Which field an import failure is about. */
const FIELD_OF = { CERT_BAD_PASSWORD: 'cert-password' };
async function render(ctx, reply, v, status = 200) {
    const { web, issuer } = v;
    const errors = v.errors ?? new Map();
    const now = ctx.clock();
    const certs = (await listCertificates(ctx, issuer.id)).filter((c) => c.kind === 'imported');
    const body = html `
${v.ok ? notice('ok', 'Certificado cargado.') : ''}
${certs.length === 0
        ? html `<p class="empty">${issuer.siiAmbiente === 0 ? 'Sin certificado propio: en sandbox Timbre firma con un certificado de prueba generado para este emisor. Para emitir en producción sube el certificado digital (.p12 o .pfx) del representante o de la empresa.' : 'Sin certificado: súbelo para emitir en producción.'}</p>`
        : html `${certs.map((c) => {
            const left = daysLeft(c.notAfter, now);
            return html `<dl class="details cert">
<dt>Titular</dt><dd>${c.subjectName}</dd>
<dt>RUT del titular</dt><dd>${c.holderRut ? rut(c.holderRut) : '—'}</dd>
<dt>Válido desde</dt><dd>${dayInSantiago(c.notBefore)}</dd>
<dt>Válido hasta</dt><dd>${dayInSantiago(c.notAfter)}</dd>
<dt>Días restantes</dt><dd>${left < 0 ? html `<span class="badge badge-red">Vencido</span>` : left <= 30 ? html `<span class="badge badge-amber">${left} días</span>` : `${left} días`}</dd>
</dl>`;
        })}
<p class="hint">Se firma con el certificado vigente más reciente.</p>`}
${may(web.user, 'certificate')
        ? html `<section aria-labelledby="h-up"><h2 id="h-up">Subir certificado</h2>
${errors.get('general') ? notice('error', errors.get('general')) : ''}
<form method="post" action="/dashboard/${issuer.rut}/certificado" enctype="multipart/form-data" class="stack narrow-form">
${csrfField(web)}
<label for="cert-file">Archivo (.p12 o .pfx)</label>
<input id="cert-file" name="file" type="file" accept=".p12,.pfx,application/x-pkcs12" required${describedBy('cert-file', errors.get('cert-file'))}>
${fieldError('cert-file', errors.get('cert-file'))}
<label for="cert-password">Contraseña del certificado</label>
<input id="cert-password" name="password" type="password" autocomplete="off"${describedBy('cert-password', errors.get('cert-password'))}>
${fieldError('cert-password', errors.get('cert-password'))}
<button type="submit" class="button primary">Subir certificado</button>
<p class="hint">El archivo y su contraseña se guardan cifrados; nunca se muestran de nuevo.</p>
</form></section>`
        : notice('info', 'Solo el dueño de la cuenta puede subir certificados.')}`;
    return sendHtml(reply, page({ title: 'Certificado', nav: 'certificado', web, issuer, body }), status);
}
export function certificateRoutes(ctx) {
    return async (app) => {
        app.get('/:rut/certificado', async (request, reply) => {
            const issuer = issuerOf(request, request.params.rut);
            return render(ctx, reply, { web: signedIn(request), issuer, ok: request.query.ok === '1' });
        });
        app.post('/:rut/certificado', async (request, reply) => {
            const web = signedIn(request);
            const issuer = issuerOf(request, request.params.rut);
            if (!may(web.user, 'certificate'))
                throw new AppError('FORBIDDEN_ROLE');
            const file = request.form.file('file');
            if (!file)
                return render(ctx, reply, { web, issuer, errors: new Map([['cert-file', 'Elige el archivo del certificado.']]) }, 400);
            try {
                await importCertificate(ctx, { rut: issuer.rut, p12: file.data, password: request.form.raw('password') });
            }
            catch (err) {
                if (!(err instanceof AppError) || err.status >= 500)
                    throw err;
                const field = FIELD_OF[err.code] ?? 'cert-file';
                return render(ctx, reply, { web, issuer, errors: new Map([[field, errorMessage(err)]]) }, err.status);
            }
            return reply.redirect(`/dashboard/${issuer.rut}/certificado?ok=1`, 303);
        });
    };
}
