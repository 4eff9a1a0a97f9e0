/** DELETE /api/{rut}/buzon — stop reading the intercambio mailbox (README "Received documents", owner). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { removeMailbox } from '../../receiving/mailbox-settings.ts';
import { requireOwner } from '../auth.ts';
import { routeDoc } from '../openapi.ts';
import { commonErrors, rutParams } from '../schemas.ts';

export function buzonDeleteRoute(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.delete(
      '/api/:rut/buzon',
      {
        config: { auth: 'write' },
        schema: {
          ...routeDoc({
            operationId: 'deleteMailbox',
            summary: 'Remove the intercambio mailbox',
            description:
              'The mailbox is no longer read and its settings (and password) are dropped. What was received from it stays. Owner keys only.',
            tags: ['received'],
            success: 'The settings were removed',
            errors: ['FORBIDDEN_ROLE', 'MAILBOX_NOT_FOUND'],
            example: { response: { ok: true } },
          }),
          params: rutParams,
          response: { 200: z.object({ ok: z.literal(true) }), ...commonErrors },
        },
      },
      async (request) => {
        const { issuer } = requireOwner(request);
        await removeMailbox(ctx, issuer);
        return { ok: true as const };
      },
    );
  };
}
