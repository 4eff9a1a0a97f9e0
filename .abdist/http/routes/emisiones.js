import { listDocuments } from '../../issuing/list-documents.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { commonErrors, documentSchema, listDocumentsQuery, listFiltersOf, pageSchema, rutParams } from '../schemas.js';
import { issueResponseExample } from './emitir.js';
/** A list entry (docs/design.md §5) as the examples show it; events of a document carry the same. */
export const documentEntryExample = {
    type: 33,
    folio: 1,
    date: '2026-11-23',
    receiver: { rut: '76354771-K', name: 'Comercial Los Andes SpA' },
    totals: { net: 17980, exempt: 0, vat: 3416, vat_rate: 19, total: 21396 },
    env: 'sandbox',
    estado_sii: 'local',
    track_id: null,
    pdf_url: issueResponseExample.pdf_url,
    xml_url: issueResponseExample.xml_url,
    created_at: '2026-11-23T13:05:42.120Z',
};
export function emisionesRoute(ctx) {
    return async (app) => {
        app.get('/api/:rut/emisiones', {
            config: { auth: 'read' },
            schema: {
                ...routeDoc({
                    operationId: 'listDocuments',
                    summary: 'List issued documents',
                    description: "The issuer's documents of its current environment, newest first, filtered and paged. `total` counts every match.",
                    tags: ['documents'],
                    success: 'A page of documents',
                    errors: [],
                    example: {
                        response: {
                            ok: true,
                            data: [
                                {
                                    ...documentEntryExample,
                                    email: { status: 'sent', to: ['pagos@losandes.cl'], at: '2026-11-23T13:05:44.010Z' },
                                    voided_by: null,
                                },
                            ],
                            total: 1,
                            page: 1,
                            limit: 30,
                        },
                    },
                }),
                params: rutParams,
                querystring: listDocumentsQuery,
                response: {
                    200: pageSchema(documentSchema),
                    ...commonErrors,
                },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const result = await listDocuments(ctx, issuer, listFiltersOf(request.query));
            return { ok: true, ...result };
        });
    };
}
