/**
 * E-mails to dashboard users (docs/sign-in.md): a password-reset link ("¿Olvidaste tu
 * contraseña?") and an invitation link (a new user), in Spanish, through SMTP_URL with
 * nodemailer (the transport the receivers' e-mails use). The link is the only secret in them;
 * only its SHA-256 is stored (src/admin/users.ts).
 */
import nodemailer from 'nodemailer';
import { createResetLink, createSignInToken, LINK_LIFETIME_MS } from './users.js';
/** Whether the installation can send e-mail (SMTP_URL set). */
export function accountEmailEnabled(ctx) {
    return Boolean(ctx.config.SMTP_URL);
}
/** The page of a reset or invitation link. */
function passwordLinkUrl(ctx, token) {
    return `${ctx.config.publicBaseUrl}/dashboard/contrasena/${token}`;
}
async function send(ctx, to, subject, text) {
    ctx.caches.mailTransport ??= nodemailer.createTransport(ctx.config.SMTP_URL);
    await ctx.caches.mailTransport.sendMail({ from: ctx.config.MAIL_FROM, to, subject, text });
}
const hours = (ms) => Math.round(ms / 3600_000);
/**
 * "¿Olvidaste tu contraseña?": e-mails a reset link when the address belongs to an active user,
 * and does nothing otherwise. The dashboard calls it without awaiting it, so the answer (and
 * its timing) is the same whether the address exists or not; failures are only logged.
 */
export async function sendResetLink(ctx, email) {
    if (!accountEmailEnabled(ctx))
        return;
    const link = await createResetLink(ctx, email);
    if (!link)
        return;
    await send(ctx, link.user.email, 'Restablecer tu contraseña de Timbre', `Alguien (probablemente tú) pidió restablecer la contraseña de ${link.user.email} en Timbre.

Para elegir una nueva, abre este enlace (sirve una sola vez y vence en ${hours(LINK_LIFETIME_MS.reset)} hora):

${passwordLinkUrl(ctx, link.token)}

Si no lo pediste, ignora este correo: tu contraseña no cambia.
`);
}
/** A new user's invitation: a link to choose their password (7 days). Returns the link. */
export async function sendInvitation(ctx, user, invitedBy) {
    const url = passwordLinkUrl(ctx, await createSignInToken(ctx, user.id, 'invitation'));
    if (!accountEmailEnabled(ctx))
        return { url, sent: false };
    try {
        await sendInvitationEmail(ctx, user, invitedBy, url);
    }
    catch (err) {
        // The user exists already: the owner gets the link to pass on rather than an error page.
        ctx.log.warn({ err, user: user.id }, 'invitation e-mail failed');
        return { url, sent: false };
    }
    return { url, sent: true };
}
async function sendInvitationEmail(ctx, user, invitedBy, url) {
    await send(ctx, user.email, 'Te invitaron a Timbre', `${invitedBy} te agregó como usuario del panel de Timbre (${user.email}).

Para entrar, elige tu contraseña en este enlace (sirve una sola vez y vence en ${hours(LINK_LIFETIME_MS.invitation) / 24} días):

${url}
`);
}
