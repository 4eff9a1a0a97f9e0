/**
 * Security headers on every answer (docs/design.md §7), API and dashboard alike, in this one module:
 * helmet with its defaults (nosniff, frame-ancestors / X-Frame-Options same-origin, HSTS, no
 * referrer across origins, Cross-Origin-Resource-Policy same-origin …) and a
 * Content-Security-Policy given per part of the service:
 *
 * - `API_CONTENT_SECURITY_POLICY`, registered at the root for every answer: only the
 *   service's own scripts, styles and fonts; no inline scripts (`script-src 'self'`: the
 *   Swagger UI page loads its scripts as files); inline styles allowed (Swagger UI sets `style`
 *   attributes), images also as `data:` URLs; no `upgrade-insecure-requests`: a service reached
 *   over plain HTTP on a private network (behind a TLS-terminating balancer, or locally) would
 *   otherwise break its own /docs page. Downloads (PDF, XML) carry the same headers: they are
 *   opened or saved by a browser, never embedded by another site.
 * - `DASHBOARD_CONTENT_SECURITY_POLICY`, registered again by the dashboard in its own
 *   (encapsulated) context with `registerSecurityHeaders(app, { … })`: stricter (nothing
 *   inline at all, `default-src 'none'`), `Referrer-Policy: same-origin` (links between its own
 *   pages keep their referrer), `Cache-Control: no-store` (pages show account data). Its hook
 *   runs after the root's, so on its answers its values replace the root's. Its files (the
 *   inline PDF, the XML) keep the root's policy: the browser's PDF viewer is not an HTML page.
 *
 * helmet's middleware is built once, at boot: the policy is the same for every answer, and
 * building it per request (what the @fastify/helmet plugin does) parses the whole policy again
 * each time, about 35 µs — a tenth of what a download served from memory costs (README "Hostile input and abuse").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';

type Directives = Record<string, string[]>;

const API_CONTENT_SECURITY_POLICY: Directives = {
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
};

export const DASHBOARD_CONTENT_SECURITY_POLICY: Directives = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameSrc: ["'self'"],
  frameAncestors: ["'self'"],
  baseUri: ["'none'"],
};

export interface SecurityHeaderOptions {
  /** The Content-Security-Policy directives (helmet's form). */
  contentSecurityPolicy?: Directives;
  /** Answers that keep the policy already set (by the root) instead of this one. */
  keepPolicyOf?: (request: FastifyRequest) => boolean;
  referrerPolicy?: 'no-referrer' | 'same-origin';
  /** `Cache-Control: no-store` on every answer (pages with account data). */
  noStore?: boolean;
}

export async function registerSecurityHeaders(app: FastifyInstance, opts: SecurityHeaderOptions = {}): Promise<void> {
  const base = { referrerPolicy: { policy: opts.referrerPolicy ?? 'no-referrer' } } as const;
  const withPolicy = helmet({
    ...base,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: opts.contentSecurityPolicy ?? API_CONTENT_SECURITY_POLICY,
    },
  });
  const withoutPolicy = opts.keepPolicyOf ? helmet({ ...base, contentSecurityPolicy: false }) : withPolicy;
  app.addHook('onRequest', (request, reply, done) => {
    if (opts.noStore) reply.header('Cache-Control', 'no-store');
    const setHeaders = opts.keepPolicyOf?.(request) ? withoutPolicy : withPolicy;
    setHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}
