import { z } from 'zod';
import { MAILBOX_TLS, mailboxView, setMailbox } from '../../receiving/mailbox-settings.js';
import { requireOwner } from '../auth.js';
import { mailboxExample, mailboxSchema } from '../mailbox-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParams } from '../schemas.js';
const body = z.strictObject({
    host: z
        .string()
        .min(1)
        .max(253)
        .regex(/^[A-Za-z0-9.:\-[\]]+$/, 'host must be a host name or an IP address'),
    port: z
        .number()
        .int()
        .min(1)
        .max(65535)
        .optional()
        .meta({ description: 'Default: 993 with implicit TLS, else 143.' }),
    tls: z.enum(MAILBOX_TLS).optional().meta({
        description: '`implicit` (IMAPS, the default), `starttls`, or `none` (a local test server only).',
    }),
    user: z.string().min(1).max(320),
    password: z
        .string()
        .min(1)
        .max(1000)
        .optional()
        .meta({ description: 'Required for a new mailbox; omitted, the stored one is kept. Never returned.' }),
    folder: z.string().min(1).max(200).optional().meta({ description: 'Default: INBOX.' }),
    answer_by_email: z
        .boolean()
        .optional()
        .meta({ description: 'E-mail the signed RespuestaDTE to the sender (default: on).' }),
});
export function buzonPutRoute(ctx) {
    return async (app) => {
        app.put('/api/:rut/buzon', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'setMailbox',
                    summary: 'Set the intercambio mailbox',
                    description: 'The IMAP mailbox where suppliers e-mail their DTEs (the intercambio address registered at the SII). It is read in the background every MAILBOX_POLL_SECONDS; every attachment that parses as an EnvioDTE or DTE goes through the same checks as an upload. Pointing at another host, user or folder starts reading it from its first message. The password is stored encrypted and never returned. Owner keys only.',
                    tags: ['received'],
                    success: 'The mailbox settings',
                    errors: ['FORBIDDEN_ROLE', 'MAILBOX_PASSWORD_REQUIRED'],
                    example: {
                        request: { host: 'imap.losandes.cl', user: 'dte@losandes.cl', password: '••••••••' },
                        response: { ok: true, ...mailboxExample },
                    },
                }),
                params: rutParams,
                body,
                response: { 200: mailboxSchema.extend({ ok: z.literal(true) }), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            const b = request.body;
            const m = await setMailbox(ctx, issuer, {
                host: b.host,
                user: b.user,
                ...(b.port !== undefined && { port: b.port }),
                ...(b.tls !== undefined && { tls: b.tls }),
                ...(b.password !== undefined && { password: b.password }),
                ...(b.folder !== undefined && { folder: b.folder }),
                ...(b.answer_by_email !== undefined && { answerByEmail: b.answer_by_email }),
            });
            return { ok: true, ...(await mailboxView(ctx, m)) };
        });
    };
}
