/**
 * Security headers on every answer (DESIGN §7), in this one place so the policy can be
 * adjusted as pages are added (`/docs` now, a same-origin dashboard later). @fastify/helmet
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
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

export const CONTENT_SECURITY_POLICY = {
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
  await app.register(helmet, { contentSecurityPolicy: CONTENT_SECURITY_POLICY, global: true });
}
