import { z } from 'zod';
import { getMailbox, mailboxView } from '../../receiving/mailbox-settings.js';
import { requireOwner } from '../auth.js';
import { mailboxExample, mailboxSchema } from '../mailbox-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParams } from '../schemas.js';
export function buzonRoute(ctx) {
    return async (app) => {
        app.get('/api/:rut/buzon', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'getMailbox',
                    summary: 'Get the intercambio mailbox settings',
                    description: 'The IMAP mailbox where suppliers e-mail their DTEs, read in the background, and how reading it goes. The password is never returned. Owner keys only.',
                    tags: ['received'],
                    success: 'The mailbox settings',
                    errors: ['FORBIDDEN_ROLE', 'MAILBOX_NOT_FOUND'],
                    example: { response: { ok: true, ...mailboxExample } },
                }),
                params: rutParams,
                response: { 200: mailboxSchema.extend({ ok: z.literal(true) }), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            return { ok: true, ...(await mailboxView(ctx, await getMailbox(ctx, issuer))) };
        });
    };
}
