import { z } from 'zod';
import { deleteEndpoint } from '../../events/webhooks.js';
import { requireOwner } from '../auth.js';
import { idParams } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors } from '../schemas.js';
export function webhooksDeleteRoute(ctx) {
    return async (app) => {
        app.delete('/api/:rut/webhooks/:id', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'deleteWebhook',
                    summary: 'Delete a webhook endpoint',
                    description: 'Its pending deliveries and their log are dropped with it. Owner keys only.',
                    tags: ['webhooks'],
                    success: 'The endpoint was deleted',
                    errors: ['FORBIDDEN_ROLE', 'WEBHOOK_NOT_FOUND'],
                    example: { response: { ok: true, id: '9e3a1f07-52c4-4d6b-8a2e-7f0b3c9d1e54' } },
                }),
                params: idParams,
                response: { 200: z.object({ ok: z.literal(true), id: z.string() }), ...commonErrors },
            },
        }, async (request) => {
            const { issuer } = requireOwner(request);
            await deleteEndpoint(ctx, issuer, request.params.id);
            return { ok: true, id: request.params.id };
        });
    };
}
