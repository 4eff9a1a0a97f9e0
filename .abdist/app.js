/**
 * buildApp: the whole service as a Fastify instance (docs/style.md §1). The server (src/server.ts)
 * listens; tests call `app.inject`. Dependencies come in through `opts`.
 */
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { pino } from 'pino';
import { createKeyCaches } from './context.js';
import { listenForChanges } from './db/change-feed.js';
import { AppError } from './errors.js';
import { registerAuth } from './http/auth.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerJsonBody } from './http/json-body.js';
import { registerOpenApi } from './http/openapi.js';
import { registerFailureLimit, registerRateLimit } from './http/rate-limit.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { errorBody, registerErrorHandler, sendError } from './http/error-handler.js';
import { emisionesRoute } from './http/routes/emisiones.js';
import { recibidoRoute } from './http/routes/recibido.js';
import { recibidoPdfRoute } from './http/routes/recibido-pdf.js';
import { recibidosRoute } from './http/routes/recibidos.js';
import { buzonRoute } from './http/routes/buzon.js';
import { buzonDeleteRoute } from './http/routes/buzon-delete.js';
import { buzonProbarRoute } from './http/routes/buzon-probar.js';
import { buzonPutRoute } from './http/routes/buzon-put.js';
import { recibidosFilesRoutes } from './http/routes/recibidos-files.js';
import { recibidosUploadRoute } from './http/routes/recibidos-upload.js';
import { recibidoDecisionRoutes } from './http/routes/recibido-decision.js';
import { cesionesRoutes } from './http/routes/cesiones.js';
import { recibidoCesionRoute } from './http/routes/recibido-cesion.js';
import { rcvRoutes } from './http/routes/rcv.js';
import { recibidosDecisionesRoute } from './http/routes/recibidos-decisiones.js';
import { recibidosDecisionFilesRoutes } from './http/routes/recibidos-decision-files.js';
import { emisionEstadoDteRoute } from './http/routes/emision-estado-dte.js';
import { emisionReenviarRoute } from './http/routes/emision-reenviar.js';
import { emitirRoute } from './http/routes/emitir.js';
import { emisionEmailRoute } from './http/routes/emision-email.js';
import { eventDeliveriesRoute } from './http/routes/event-deliveries.js';
import { eventRedeliverRoute } from './http/routes/event-redeliver.js';
import { eventsRoute } from './http/routes/events.js';
import { webhooksCreateRoute } from './http/routes/webhooks-create.js';
import { webhooksDeleteRoute } from './http/routes/webhooks-delete.js';
import { webhooksListRoute } from './http/routes/webhooks-list.js';
import { webhooksTestRoute } from './http/routes/webhooks-test.js';
import { filesRoutes } from './http/routes/files.js';
import { foliosRoutes } from './http/routes/folios.js';
import { previewRoute } from './http/routes/preview.js';
import { startJobs } from './jobs.js';
import { createPdfRenderer } from './dte/pdf/renderer.js';
import { createSigner } from './dte/signing/pool.js';
import { dashboard } from './web/index.js';
import { loggerOptions } from './logger.js';
import { createSiiClient } from './sii/client.js';
const BODY_LIMIT = 1024 * 1024; // 1 MiB (docs/design.md §5 Limits)
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
export async function buildApp(opts) {
    const logger = opts.logger ?? pino(loggerOptions(opts.config.LOG_LEVEL));
    const app = Fastify({
        loggerInstance: logger,
        bodyLimit: BODY_LIMIT,
        // Honour a caller's X-Request-Id when it is sane, so integrators can correlate.
        genReqId: (req) => {
            const given = req.headers['x-request-id'];
            return typeof given === 'string' && REQUEST_ID.test(given)
                ? given
                : `req_${randomBytes(12).toString('base64url')}`;
        },
        // Draining is answered below, in the error envelope (Fastify's own 503 body is not).
        return503OnClosing: false,
        routerOptions: { ignoreTrailingSlash: true },
        ...connectionOptions(opts.config),
        // A URL Fastify cannot decode (`/api/%zz/…`) is answered before any hook runs: still in
        // the error envelope.
        frameworkErrors: (error, request, reply) => {
            reply.header('X-Request-Id', String(request.id));
            const message = error.code === 'FST_ERR_BAD_URL' ? 'The URL is malformed (invalid percent-encoding).' : undefined;
            reply.status(400).send(errorBody(request, 'BAD_REQUEST', message));
        },
    }).withTypeProvider();
    // Beyond this many open connections Node closes new ones at once (slow clients cannot pile up).
    app.server.maxConnections = opts.config.MAX_CONNECTIONS;
    const ctx = {
        config: opts.config,
        db: opts.db,
        clock: opts.clock ?? (() => new Date()),
        log: app.log,
        caches: createKeyCaches({ fileCacheBytes: opts.config.FILE_CACHE_MB * 1024 * 1024 }),
        sii: opts.sii ?? createSiiClient({ config: opts.config, log: app.log }),
        jobs: null,
        pdf: createPdfRenderer({ concurrency: opts.config.PDF_RENDER_CONCURRENCY }),
        signer: createSigner({ workers: opts.config.SIGN_WORKERS }),
    };
    app.decorate('ctx', ctx);
    app.addHook('onClose', async () => ctx.pdf.close());
    app.addHook('onClose', async () => ctx.signer.close());
    // Background jobs start with the app (none when JOBS_ENABLED is false: other instances find
    // its work in the database) and stop before the database closes.
    // The operator change feed (LISTEN/NOTIFY) keeps the caches true to what the CLI or another
    // instance changes; until it is heard they read through to the database.
    let changeFeed = null;
    app.addHook('onReady', async () => {
        if (opts.jobs === false)
            return;
        changeFeed = listenForChanges(opts.db.directUrl, // LISTEN needs a session of its own: never through a transaction pooler
        { onChange: (change) => ctx.caches.apply(change), onListening: (on) => ctx.caches.setListening(on) }, ctx.log);
        await changeFeed.ready;
        ctx.jobs = startJobs(ctx, { work: opts.config.JOBS_ENABLED });
    });
    app.addHook('onClose', async () => {
        await ctx.jobs?.stop();
        ctx.jobs = null;
        await changeFeed?.close();
        changeFeed = null;
    });
    // Bodies are JSON only: Fastify's built-in text/plain parser would hand a string to the
    // zod schema and turn a wrong Content-Type into a confusing validation error.
    app.removeContentTypeParser('text/plain');
    registerJsonBody(app);
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await registerSecurityHeaders(app);
    registerErrorHandler(app);
    // While the instance drains (close() was called, e.g. on SIGTERM), a request that still
    // arrives — on a kept-alive connection — answers 503 SERVICE_UNAVAILABLE with
    // `Connection: close`, so the client or balancer retries on another instance.
    let draining = false;
    app.addHook('preClose', async () => {
        draining = true;
    });
    // Before auth, so that even a 401 carries the request id.
    app.addHook('onRequest', async (request, reply) => {
        reply.header('X-Request-Id', String(request.id));
        if (draining) {
            reply.header('Connection', 'close');
            throw new AppError('SERVICE_UNAVAILABLE', undefined, { headers: { 'Retry-After': '1' } });
        }
    });
    registerFailureLimit(app, ctx);
    registerAuth(app, ctx);
    registerRateLimit(app, ctx);
    registerIdempotency(app, ctx);
    // Remember every route so that a known path with the wrong method answers 405 + Allow.
    const methodsByUrl = new Map();
    app.addHook('onRoute', (route) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        const set = methodsByUrl.get(route.url) ?? new Set();
        for (const m of methods)
            set.add(m);
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
    await app.register(previewRoute(ctx));
    await app.register(recibidosUploadRoute(ctx));
    await app.register(recibidosRoute(ctx));
    await app.register(recibidoRoute(ctx));
    await app.register(recibidosFilesRoutes(ctx));
    await app.register(buzonPutRoute(ctx));
    await app.register(buzonRoute(ctx));
    await app.register(buzonDeleteRoute(ctx));
    await app.register(buzonProbarRoute(ctx));
    await app.register(recibidoDecisionRoutes(ctx));
    await app.register(recibidosDecisionesRoute(ctx));
    await app.register(recibidosDecisionFilesRoutes(ctx));
    await app.register(recibidoPdfRoute(ctx));
    await app.register(cesionesRoutes(ctx));
    await app.register(recibidoCesionRoute(ctx));
    await app.register(rcvRoutes(ctx));
    await app.register(dashboard(ctx), { prefix: '/dashboard' });
    await app.register(async (instance) => {
        for (const [url, methods] of [...methodsByUrl]) {
            // The dashboard answers its own 405 page, in Spanish (src/web/index.ts).
            if (url.startsWith('/dashboard'))
                continue;
            const missing = ALL_METHODS.filter((m) => !methods.has(m));
            if (missing.length === 0)
                continue;
            const allow = [...methods].filter((m) => m !== 'HEAD' || methods.has('GET')).join(', ');
            instance.route({
                method: missing,
                url,
                config: { auth: 'none' },
                schema: { hide: true },
                handler: async (request, reply) => {
                    reply.header('Allow', allow);
                    return sendError(request, reply, new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url}; use ${allow}.`));
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
/**
 * Connection hygiene (README "Hostile input and abuse"): headers must arrive within HEADERS_TIMEOUT_MS and the whole
 * request, body included, within REQUEST_TIMEOUT_MS (Node answers 408 and closes the socket),
 * idle keep-alive connections close after KEEP_ALIVE_TIMEOUT_MS, and TRUST_PROXY decides
 * whose X-Forwarded-For gives the client address that the per-address limits count. Node checks
 * the two request timers every `connectionsCheckingInterval`, so it is kept well below them.
 */
/**
 * TRUST_PROXY as a hop count: the `n` nearest addresses in X-Forwarded-For are proxies, the one
 * before them is the client (Express's meaning). As with `true`, a client that reaches Timbre
 * without going through those proxies can choose its address: use it only where that cannot
 * happen, or list the proxies' addresses instead.
 */
function trustHops(n) {
    return (_address, hop) => hop < n;
}
function connectionOptions(config) {
    const headersTimeout = Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS);
    return {
        // A hop count is given to Fastify as a function: Fastify 5 reads a bare number as "trust
        // nobody" (it fails closed), which would make every client behind the balancer one address.
        trustProxy: typeof config.TRUST_PROXY === 'number' ? trustHops(config.TRUST_PROXY) : config.TRUST_PROXY,
        requestTimeout: config.REQUEST_TIMEOUT_MS,
        keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
        http: {
            headersTimeout,
            connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))),
        },
    };
}
