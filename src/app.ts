/**
 * buildApp: the whole service as a Fastify instance (STYLE §1). The server (src/server.ts)
 * listens; tests call `app.inject`. Dependencies come in through `opts`.
 */
import { randomBytes } from 'node:crypto';
import sensible from '@fastify/sensible';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type HTTPMethods } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Logger, pino } from 'pino';
import type { Config } from './config.ts';
import { type AppContext, type Clock, createKeyCaches } from './context.ts';
import type { Database } from './db/database.ts';
import { AppError } from './errors.ts';
import { registerAuth } from './http/auth.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import { errorBody, registerErrorHandler, sendError } from './http/error-handler.ts';
import { emisionesRoute } from './http/routes/emisiones.ts';
import { emisionEstadoDteRoute } from './http/routes/emision-estado-dte.ts';
import { emisionReenviarRoute } from './http/routes/emision-reenviar.ts';
import { emitirRoute } from './http/routes/emitir.ts';
import { emisionEmailRoute } from './http/routes/emision-email.ts';
import { eventDeliveriesRoute } from './http/routes/event-deliveries.ts';
import { eventRedeliverRoute } from './http/routes/event-redeliver.ts';
import { eventsRoute } from './http/routes/events.ts';
import { webhooksCreateRoute } from './http/routes/webhooks-create.ts';
import { webhooksDeleteRoute } from './http/routes/webhooks-delete.ts';
import { webhooksListRoute } from './http/routes/webhooks-list.ts';
import { webhooksTestRoute } from './http/routes/webhooks-test.ts';
import { filesRoutes } from './http/routes/files.ts';
import { foliosRoutes } from './http/routes/folios.ts';
import { startJobs } from './issuing/jobs.ts';
import { loggerOptions } from './logger.ts';
import { createSiiClient } from './sii/client.ts';
import type { SiiClient } from './sii/types.ts';

export const BODY_LIMIT = 1024 * 1024; // 1 MiB (DESIGN §5 Limits)

export interface BuildAppOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  logger?: Logger;
  /** The SII; default: the real client on the configured SII URLs (the simulator's, locally). */
  sii?: SiiClient;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const ALL_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const logger = opts.logger ?? pino(loggerOptions(opts.config.LOG_LEVEL));
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Honour a caller's X-Request-Id when it is sane, so integrators can correlate.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given)
        ? given
        : `req_${randomBytes(12).toString('base64url')}`;
    },
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  const ctx: AppContext = {
    config: opts.config,
    db: opts.db,
    clock: opts.clock ?? (() => new Date()),
    log: app.log as Logger,
    caches: createKeyCaches(),
    sii: opts.sii ?? createSiiClient({ config: opts.config, log: app.log as Logger }),
    jobs: null,
  };
  app.decorate('ctx', ctx);
  // Background jobs start with the app (a queue that only sends wake-ups when JOBS_ENABLED is
  // false) and stop before the database closes.
  app.addHook('onReady', async () => {
    ctx.jobs = await startJobs(ctx, { work: opts.config.JOBS_ENABLED });
  });
  app.addHook('onClose', async () => {
    await ctx.jobs?.stop();
    ctx.jobs = null;
  });

  // Bodies are JSON only: Fastify's built-in text/plain parser would hand a string to the
  // zod schema and turn a wrong Content-Type into a confusing validation error.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(sensible);
  registerErrorHandler(app);
  // Before auth, so that even a 401 carries the request id.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', String(request.id));
  });

  registerAuth(app, ctx);
  registerRateLimit(app, ctx);
  registerIdempotency(app, ctx);

  // Remember every route so that a known path with the wrong method answers 405 + Allow.
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const m of methods) set.add(m);
    methodsByUrl.set(route.url, set);
  });

  await registerOpenApi(app);
  app.get('/health', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ ok: true }));
  await app.register(emitirRoute(ctx));
  await app.register(emisionesRoute(ctx));
  await app.register(filesRoutes(ctx));
  await app.register(foliosRoutes(ctx));
  await app.register(emisionReenviarRoute(ctx));
  await app.register(emisionEstadoDteRoute(ctx));
  await app.register(emisionEmailRoute(ctx));
  await app.register(eventsRoute(ctx));
  await app.register(eventDeliveriesRoute(ctx));
  await app.register(eventRedeliverRoute(ctx));
  await app.register(webhooksCreateRoute(ctx));
  await app.register(webhooksListRoute(ctx));
  await app.register(webhooksDeleteRoute(ctx));
  await app.register(webhooksTestRoute(ctx));

  await app.register(async (instance) => {
    for (const [url, methods] of [...methodsByUrl]) {
      const missing = ALL_METHODS.filter((m) => !methods.has(m));
      if (missing.length === 0) continue;
      const allow = [...methods].filter((m) => m !== 'HEAD' || methods.has('GET')).join(', ');
      instance.route({
        method: missing,
        url,
        config: { auth: 'none' },
        schema: { hide: true },
        handler: async (request, reply) => {
          reply.header('Allow', allow);
          return sendError(
            request,
            reply,
            new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url}; use ${allow}.`),
          );
        },
      });
    }
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .status(404)
      .send(errorBody(request, 'ROUTE_NOT_FOUND', `Unknown endpoint: ${request.method} ${request.url.split('?')[0]}`));
  });

  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
