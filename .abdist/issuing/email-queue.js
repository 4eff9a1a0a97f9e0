export function emailEnabled(ctx) {
    return Boolean(ctx.config.SMTP_URL);
}
/**
 * The state an issued document's e-mail starts in: `disabled` without SMTP, `pending` (send now)
 * in sandbox, `waiting` (for the SII's acceptance) in live.
 */
export function issueEmailState(ctx, env) {
    return !emailEnabled(ctx) ? 'disabled' : env === 'sandbox' ? 'pending' : 'waiting';
}
