import { z } from 'zod';
import { isEmailAddress } from '../../dte/email-address.js';
import { sendDocumentEmail } from '../../issuing/document-email.js';
import { requireAuth } from '../auth.js';
import { routeDoc } from '../openapi.js';
import { ruleIssue } from '../../rules.js';
import { commonErrors, errorResponse, rutParams } from '../schemas.js';
const address = z.string().refine(isEmailAddress, ruleIssue('email.invalid'));
const body = z.strictObject({
    type: z.number().int().min(1).max(999),
    folio: z.number().int().min(1).max(9_999_999_999),
    to: z.array(address).min(1).max(10).optional(),
});
export function emisionEmailRoute(ctx) {
    return async (app) => {
        app.post('/api/:rut/emision_email', {
            config: { auth: 'write' },
            schema: {
                ...routeDoc({
                    operationId: 'emailDocument',
                    summary: 'E-mail a document to its receiver',
                    description: 'Queues the PDF and the signed XML (intercambio envelope) for `to`, or for the receiver e-mail of the issue request. A live document is sent once the SII has accepted it; a document the SII rejected is not sent. 422 when SMTP is not configured. Follow it with the `email` block of the document list, or the `email.sent` / `email.failed` events.',
                    tags: ['documents'],
                    success: 'The e-mail was queued',
                    errors: ['DOCUMENT_NOT_FOUND', 'EMAIL_DISABLED', 'EMAIL_DOCUMENT_REJECTED', 'EMAIL_NO_RECIPIENT'],
                    example: {
                        request: { type: 33, folio: 1, to: ['pagos@losandes.cl'] },
                        response: {
                            ok: true,
                            type: 33,
                            folio: 1,
                            email: { status: 'pending', to: ['pagos@losandes.cl'], at: null },
                        },
                    },
                }),
                params: rutParams,
                body,
                response: {
                    200: z.object({
                        ok: z.literal(true),
                        type: z.number().int(),
                        folio: z.number().int(),
                        email: z.object({
                            status: z.enum(['none', 'pending', 'sent', 'failed', 'disabled']),
                            to: z.array(z.string()),
                            at: z.string().nullable(),
                        }),
                    }),
                    ...commonErrors,
                    422: errorResponse,
                },
            },
        }, async (request) => {
            const { issuer } = requireAuth(request);
            const { document, email } = await sendDocumentEmail(ctx, issuer, request.body);
            return { ok: true, type: document.type, folio: document.folio, email };
        });
    };
}
