/** GET /api/{rut}/buzon — the intercambio mailbox settings, never the password (README "Received documents", owner). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { getMailbox, mailboxView } from '../../receiving/mailbox-settings.ts';
import { requireOwner } from '../auth.ts';
import { mailboxExample, mailboxSchema } from '../mailbox-schemas.ts';
import { routeDoc } from '../openapi.ts';
import { commonErrors, rutParams } from '../schemas.ts';

export function buzonRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/:rut/buzon',
      {
        config: { auth: 'read' },
        schema: {
          ...routeDoc({
            operationId: 'getMailbox',
            summary: 'Get the intercambio mailbox settings',
            description:
              'The IMAP mailbox where suppliers e-mail their DTEs, read in the background, and how reading it goes. The password is never returned. Owner keys only.',
            tags: ['received'],
            success: 'The mailbox settings',
            errors: ['FORBIDDEN_ROLE', 'MAILBOX_NOT_FOUND'],
            example: { response: { ok: true, ...mailboxExample } },
          }),
          params: rutParams,
          response: { 200: mailboxSchema.extend({ ok: z.literal(true) }), ...commonErrors },
        },
      },
      async (request) => {
        const { issuer } = requireOwner(request);
        return { ok: true as const, ...(await mailboxView(ctx, await getMailbox(ctx, issuer))) };
      },
    );
  };
}
