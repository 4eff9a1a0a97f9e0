import { z } from 'zod';
import { listEvents } from '../../events/record.js';
import { requireAuth } from '../auth.js';
import { eventSchema, eventTypeSchema } from '../event-schemas.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, pageSchema, queryInt, rutParams } from '../schemas.js';
import { documentEntryExample } from './emisiones.js';
const querystring = z.strictObject({
    type: eventTypeSchema.optional(),
    page: queryInt('page', 1, 1_000_000).optional(),
    limit: queryInt('limit', 1, 100).optional(),
});
export function eventsRoute(ctx) {
    return async (app) => {
        app.get('/api/:rut/events', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listEvents',
                    summary: 'List events',
                    description: 'Events about documents, folios, the certificate and e-mails, newest first. Each entry is the exact body a webhook endpoint receives. `type` filters on one event type; `total` counts every match.',
                    tags: ['events'],
                    success: 'A page of events',
                    errors: [],
                    example: {
                        response: {
                            ok: true,
                            data: [
                                {
                                    id: '5b0e7c52-3f1a-4d8e-9c61-0a2f4e7b9d13',
                                    type: 'email.sent',
                                    created_at: '2026-11-23T13:05:44.012Z',
                                    data: {
                                        type: 33,
                                        folio: 1,
                                        issuer: '76086428-5',
                                        to: ['pagos@losandes.cl'],
                                        message_id: '<a41c9e2f-7d3b-4e10-8f5a-6c2d1b0e9f37@timbre>',
                                        at: '2026-11-23T13:05:44.010Z',
                                    },
                                },
                                {
                                    id: '2d9f4a61-8c3e-4b7a-a5d0-1e6c9b2f8a47',
                                    type: 'document.issued',
                                    created_at: '2026-11-23T13:05:42.180Z',
                                    data: {
                                        ...documentEntryExample,
                                        email: { status: 'pending', to: ['pagos@losandes.cl'], at: null },
                                        voided_by: null,
                                        sii: null,
                                    },
                                },
                            ],
                            total: 2,
                            page: 1,
                            limit: 30,
                        },
                    },
                }),
                params: rutParams,
                querystring,
                response: {
                    200: pageSchema(eventSchema),
                    ...commonErrors,
                },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const q = request.query;
            const result = await listEvents(ctx, issuer, {
                ...(q.type && { type: q.type }),
                page: q.page ?? 1,
                limit: q.limit ?? 30,
            });
            return { ok: true, ...result };
        });
    };
}
