/** The dashboard at /dashboard (docs/design.md §10): one encapsulated plugin, its own parsers and errors. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';
import { registerDashboardBasics } from './plugin.ts';
import { certificateRoutes } from './routes/certificate.ts';
import { documentRoutes } from './routes/documents.ts';
import { folioRoutes } from './routes/folios.ts';
import { issueRoutes } from './routes/issue.ts';
import { keyRoutes } from './routes/keys.ts';
import { mailboxRoutes } from './routes/mailbox.ts';
import { receivedRoutes } from './routes/received.ts';
import { receivedDecisionRoutes } from './routes/received-decisions.ts';
import { sessionRoutes } from './routes/session.ts';
import { settingsRoutes } from './routes/settings.ts';
import { userRoutes } from './routes/users.ts';
import { webhookRoutes } from './routes/webhooks.ts';

export function dashboard(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    // The dashboard's pages are HTML for people, not part of the API: kept out of /openapi.json.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await registerDashboardBasics(app, ctx);
    for (const routes of [
      sessionRoutes,
      documentRoutes,
      receivedRoutes,
      receivedDecisionRoutes,
      issueRoutes,
      folioRoutes,
      certificateRoutes,
      settingsRoutes,
      keyRoutes,
      webhookRoutes,
      userRoutes,
      mailboxRoutes,
    ]) {
      await app.register(routes(ctx));
    }
  };
}
