import { AppError } from '../errors.js';
import { registerDashboardBasics } from './plugin.js';
import { certificateRoutes } from './routes/certificate.js';
import { documentRoutes } from './routes/documents.js';
import { folioRoutes } from './routes/folios.js';
import { issueRoutes } from './routes/issue.js';
import { keyRoutes } from './routes/keys.js';
import { mailboxRoutes } from './routes/mailbox.js';
import { receivedRoutes } from './routes/received.js';
import { receivedDecisionRoutes } from './routes/received-decisions.js';
import { cessionRoutes } from './routes/cessions.js';
import { passwordRoutes } from './routes/password.js';
import { sessionRoutes } from './routes/session.js';
import { settingsRoutes } from './routes/settings.js';
import { userRoutes } from './routes/users.js';
import { webhookRoutes } from './routes/webhooks.js';
const PREFIX = '/dashboard';
const PAGE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
export function dashboard(ctx) {
    return async (app) => {
        // The dashboard's pages are HTML for people, not part of the API: kept out of /openapi.json.
        // Every page's methods, so that a known page asked with another method answers the Spanish
        // 405 page (with Allow), not the API's JSON one.
        const methodsByUrl = new Map();
        app.addHook('onRoute', (route) => {
            route.schema = { ...route.schema, hide: true };
            const set = methodsByUrl.get(route.url) ?? new Set();
            for (const m of [route.method].flat())
                set.add(m);
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
                if (missing.length === 0 || !url.startsWith(PREFIX))
                    continue;
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
