import { z } from 'zod';
import { testMailbox } from '../../receiving/mailbox-settings.js';
import { requireOwner } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParams } from '../schemas.js';
export function buzonProbarRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/buzon/probar', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'testMailbox',
                    summary: 'Test the intercambio mailbox',
                    description: 'Connects to the IMAP server with the stored settings, logs in and opens the folder, read-only; nothing is read or recorded. `connected` says whether it worked and `message` says how, in Spanish (for the dashboard). Owner keys only.',
                    tags: ['received'],
                    success: 'The outcome of the test (also when the connection failed)',
                    errors: ['FORBIDDEN_ROLE', 'MAILBOX_NOT_FOUND'],
                    example: {
                        response: {
                            ok: true,
                            connected: true,
                            message: 'Conexión correcta: la carpeta «INBOX» tiene 12 mensajes.',
                            messages: 12,
                        },
                    },
                }),
                params: rutParams,
                response: {
                    200: z.object({
                        ok: z.literal(true),
                        connected: z.boolean(),
                        message: z.string(),
                        messages: z.number().int().nullable(),
                    }),
                    ...commonErrors,
                },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            const result = await testMailbox(ctx, issuer);
            return { ok: true, connected: result.ok, message: result.message, messages: result.messages };
        });
    };
}
