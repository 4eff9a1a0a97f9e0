import { z } from 'zod';
import { removeMailbox } from '../../receiving/mailbox-settings.js';
import { requireOwner } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, rutParams } from '../schemas.js';
export function buzonDeleteRoute(ctx) {
    return async (app) => {
        app.delete('/api/:rut/buzon', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'deleteMailbox',
                    summary: 'Remove the intercambio mailbox',
                    description: 'The mailbox is no longer read and its settings (and password) are dropped. What was received from it stays. Owner keys only.',
                    tags: ['received'],
                    success: 'The settings were removed',
                    errors: ['FORBIDDEN_ROLE', 'MAILBOX_NOT_FOUND'],
                    example: { response: { ok: true } },
                }),
                params: rutParams,
                response: { 200: z.object({ ok: z.literal(true) }), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            await removeMailbox(ctx, issuer);
            return { ok: true };
        });
    };
}
