import { AppError } from '../errors.js';
/** Every window and its sweep are measured on the app's clock (`ctx.clock`), never `Date.now()`. */
const WINDOW_MS = 60_000;
export function registerRateLimit(app, ctx) {
    const limit = ctx.config.RATE_LIMIT_PER_MINUTE;
    const windows = new Map();
    const sweeper = setInterval(() => {
        const now = ctx.clock().getTime();
        for (const [k, w] of windows)
            if (now - w.start >= WINDOW_MS)
                windows.delete(k);
    }, WINDOW_MS);
    sweeper.unref();
    app.addHook('onClose', async () => clearInterval(sweeper));
    app.addHook('onRequest', async (request, reply) => {
        const mode = request.routeOptions.config?.auth ?? 'none';
        if (mode === 'none')
            return;
        const bucket = request.auth ? `key:${request.auth.id}` : `ip:${request.ip}`;
        const now = ctx.clock().getTime();
        let w = windows.get(bucket);
        if (!w || now - w.start >= WINDOW_MS) {
            w = { start: now, count: 0 };
            windows.set(bucket, w);
        }
        w.count += 1;
        const reset = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
        reply.header('RateLimit-Limit', String(limit));
        reply.header('RateLimit-Remaining', String(Math.max(0, limit - w.count)));
        reply.header('RateLimit-Reset', String(reset));
        if (w.count > limit) {
            throw new AppError('RATE_LIMITED', `Too many requests: the limit is ${limit} per minute; retry in ${reset} s.`, {
                headers: { 'Retry-After': String(reset) },
            });
        }
    });
}
/** At most this many addresses are tracked; beyond it the oldest windows are forgotten first. */
const MAX_TRACKED_ADDRESSES = 100_000;
/** Statuses that count as a failed attempt: no key, a bad key, another issuer's, a bad `tk`. */
function isFailure(mode, status, hasKey) {
    if (status === 401 || status === 403)
        return true;
    return mode === 'file' && !hasKey && status === 404;
}
export function registerFailureLimit(app, ctx) {
    const limit = ctx.config.AUTH_FAILURES_PER_MINUTE;
    const windows = new Map();
    const sweeper = setInterval(() => {
        const now = ctx.clock().getTime();
        for (const [k, w] of windows)
            if (now - w.start >= WINDOW_MS)
                windows.delete(k);
    }, WINDOW_MS);
    sweeper.unref();
    app.addHook('onClose', async () => clearInterval(sweeper));
    // Before the auth hook: a blocked address costs no key lookup.
    app.addHook('onRequest', async (request) => {
        const mode = request.routeOptions.config?.auth ?? 'none';
        if (mode === 'none')
            return;
        const w = windows.get(request.ip);
        if (!w)
            return;
        const now = ctx.clock().getTime();
        if (now - w.start >= WINDOW_MS) {
            windows.delete(request.ip);
            return;
        }
        if (w.count >= limit) {
            const reset = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
            throw new AppError('RATE_LIMITED', `Too many failed attempts from this address: the limit is ${limit} per minute; retry in ${reset} s.`, { headers: { 'Retry-After': String(reset) } });
        }
    });
    app.addHook('onResponse', async (request, reply) => {
        const mode = request.routeOptions.config?.auth ?? 'none';
        if (mode === 'none' || !isFailure(mode, reply.statusCode, Boolean(request.headers.authorization)))
            return;
        const now = ctx.clock().getTime();
        let w = windows.get(request.ip);
        if (!w || now - w.start >= WINDOW_MS) {
            windows.delete(request.ip);
            if (windows.size >= MAX_TRACKED_ADDRESSES) {
                const oldest = windows.keys().next().value;
                if (oldest !== undefined)
                    windows.delete(oldest);
            }
            w = { start: now, count: 0 };
            windows.set(request.ip, w);
        }
        w.count += 1;
    });
}
