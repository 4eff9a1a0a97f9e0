/**
 * Security headers on every answer (docs/design.md §7), in this one place so the policy can be
 * adjusted as pages are added (`/docs` now, a same-origin dashboard later). helmet
 * with its defaults (nosniff, frame-ancestors / X-Frame-Options same-origin, HSTS, no referrer
 * across origins, Cross-Origin-Resource-Policy same-origin …) and a Content-Security-Policy
 * that allows only the service's own scripts, styles and fonts:
 *
 * - no inline scripts (`script-src 'self'`): the Swagger UI page loads its scripts as files,
 *   and a dashboard is expected to do the same;
 * - inline styles allowed (Swagger UI sets `style` attributes), images also as `data:` URLs;
 * - no `upgrade-insecure-requests`: a service reached over plain HTTP on a private network
 *   (behind a TLS-terminating balancer, or locally) would otherwise break its own /docs page.
 *
 * Downloads (PDF, XML) carry the same headers: they are opened or saved by a browser, never
 * embedded by another site (Cross-Origin-Resource-Policy same-origin, frame-ancestors 'self').
 *
 * helmet's middleware is built once, at boot: the policy is the same for every answer, and
 * building it per request (what the @fastify/helmet plugin does) parses the whole policy again
 * each time, about 35 µs — a tenth of what a download served from memory costs (README "Hostile input and abuse").
 */
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

const CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    fontSrc: ["'self'", 'data:'],
    formAction: ["'self'"],
    frameAncestors: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    objectSrc: ["'none'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
  },
};

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  const setHeaders = helmet({ contentSecurityPolicy: CONTENT_SECURITY_POLICY });
  app.addHook('onRequest', (request, reply, done) => {
    setHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}
