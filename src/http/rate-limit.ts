/**
 * Per-API-key rate limit (RATE_LIMIT_PER_MINUTE), answered with 429, `Retry-After` and the
 * IETF `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` headers on every
 * authenticated response.
 *
 * The counters live in each instance's memory: a limit shared through Postgres would add a
 * database write to every request (the very thing key authentication avoids), and the limit
 * exists to protect each instance. With N instances behind a balancer a key can therefore make
 * up to N × the limit per minute; operators size RATE_LIMIT_PER_MINUTE accordingly.
 * Requests opened with a document token (no key) are limited per client address.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';

const WINDOW_MS = 60_000;

interface Window {
  start: number;
  count: number;
}

export function registerRateLimit(app: FastifyInstance, ctx: AppContext): void {
  const limit = ctx.config.RATE_LIMIT_PER_MINUTE;
  const windows = new Map<string, Window>();
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [k, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(k);
  }, WINDOW_MS);
  sweeper.unref();
  app.addHook('onClose', async () => clearInterval(sweeper));

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const mode = request.routeOptions.config?.auth ?? 'none';
    if (mode === 'none') return;
    const bucket = request.auth ? `key:${request.auth.id}` : `ip:${request.ip}`;
    // The injected clock (tests move it to check the window and RateLimit-Reset).
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
