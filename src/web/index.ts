/** The dashboard at /dashboard (docs/design.md §10): one encapsulated plugin, its own parsers and errors. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { registerDashboardBasics } from './plugin.ts';
import { certificateRoutes } from './routes/certificate.ts';
import { documentRoutes } from './routes/documents.ts';
import { folioRoutes } from './routes/folios.ts';
import { issueRoutes } from './routes/issue.ts';
import { keyRoutes } from './routes/keys.ts';
import { mailboxRoutes } from './routes/mailbox.ts';
import { receivedRoutes } from './routes/received.ts';
import { receivedDecisionRoutes } from './routes/received-decisions.ts';
import { cessionRoutes } from './routes/cessions.ts';
import { passwordRoutes } from './routes/password.ts';
import { sessionRoutes } from './routes/session.ts';
import { settingsRoutes } from './routes/settings.ts';
import { userRoutes } from './routes/users.ts';
import { webhookRoutes } from './routes/webhooks.ts';

const PREFIX = '/dashboard';
const PAGE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function dashboard(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    // The dashboard's pages are HTML for people, not part of the API: kept out of /openapi.json.
    // Every page's methods, so that a known page asked with another method answers the Spanish
    // 405 page (with Allow), not the API's JSON one.
    const methodsByUrl = new Map<string, Set<string>>();
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
      const set = methodsByUrl.get(route.url) ?? new Set<string>();
      for (const m of [route.method].flat()) set.add(m);
      methodsByUrl.set(route.url, set);
    });
    await registerDashboardBasics(app, ctx);
    for (const routes of [
      sessionRoutes,
      passwordRoutes,
      documentRoutes,
      receivedRoutes,
      receivedDecisionRoutes,
      cessionRoutes,
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
    await app.register(async (instance) => {
      for (const [url, methods] of [...methodsByUrl]) {
        const missing = PAGE_METHODS.filter((m) => !methods.has(m));
        if (missing.length === 0 || !url.startsWith(PREFIX)) continue;
        const allow = [...methods].filter((m) => m !== 'HEAD').join(', ');
        instance.route({
          method: missing,
          url: url.slice(PREFIX.length) || '/',
          config: { web: 'bare' },
          handler: async (_request, reply) => {
            reply.header('Allow', allow);
            throw new AppError('METHOD_NOT_ALLOWED');
          },
        });
      }
    });
  };
}
