import helmet from 'helmet';
const API_CONTENT_SECURITY_POLICY = {
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
export const DASHBOARD_CONTENT_SECURITY_POLICY = {
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
export async function registerSecurityHeaders(app, opts = {}) {
    const base = { referrerPolicy: { policy: opts.referrerPolicy ?? 'no-referrer' } };
    const withPolicy = helmet({
        ...base,
        contentSecurityPolicy: {
            useDefaults: false,
            directives: opts.contentSecurityPolicy ?? API_CONTENT_SECURITY_POLICY,
        },
    });
    const withoutPolicy = opts.keepPolicyOf ? helmet({ ...base, contentSecurityPolicy: false }) : withPolicy;
    app.addHook('onRequest', (request, reply, done) => {
        if (opts.noStore)
            reply.header('Cache-Control', 'no-store');
        const setHeaders = opts.keepPolicyOf?.(request) ? withoutPolicy : withPolicy;
        setHeaders(request.raw, reply.raw, (err) => done(err));
    });
}
