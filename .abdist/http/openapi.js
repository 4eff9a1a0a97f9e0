/**
 * OpenAPI 3.1, generated from the same zod schemas the routes validate with, served at
 * `/openapi.json`, with a browsable page at `/docs` (swagger-ui assets ship in the npm package:
 * nothing is fetched from the internet). CI lints it with Redocly's recommended rules
 * (`npm run lint:openapi`) and a test drives a client generated from it (test/http/openapi-client.test.ts).
 *
 * How a route is documented — apply this to every new route:
 *
 *   schema: {
 *     ...routeDoc({
 *       operationId: 'listDocuments',            // camelCase, stable: generated clients are named by it
 *       summary: 'List issued documents',
 *       description: 'Newest first. …',
 *       tags: ['documents'],
 *       success: 'A page of documents',          // the 200 answer's description
 *       errors: ['DOCUMENT_NOT_FOUND'],          // codes the use case itself can answer
 *       example: { response: {...}, request: {...} },  // checked against the schemas by the lint
 *     }),
 *     params, querystring, body,                 // zod, as before
 *     response: { 200: okSchema, ...commonErrors },
 *   }
 *
 * The rest is derived, so the description follows the behaviour: the route's `config.auth`
 * gives the security (bearer key; bearer or the `tk` document token for `auth: 'file'`) and the
 * 401/403/404/429 codes, `config.idempotent` the `Idempotency-Key` header, the 409 codes and
 * `Idempotent-Replayed`, a body (or a POST/PUT/PATCH/DELETE method, whose body Fastify parses
 * even when the route declares none) the 400/413 parsing codes. Every error status is documented as
 * the one `Error` schema of `components` narrowed to the codes the operation can answer, and
 * every answer carries the response headers that the hooks really set (`X-Request-Id`
 * everywhere; `RateLimit-*` once the request passed the authentication hook, so not on its 401/403).
 * `test/http/openapi.test.ts` checks that every code a route's tests provoke is in its list.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ERROR_CATALOG } from '../errors.js';
import { errorDetailSchema } from './schemas.js';
const META = 'x-timbre-doc';
/** Methods whose request body Fastify parses (GET and HEAD bodies are ignored). */
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
/** The documentation fields of a route's `schema` (see the comment at the top of this file). */
export function routeDoc(input) {
    const { operationId, summary, description, tags, ...meta } = input;
    return { operationId, summary, description, tags, [META]: meta };
}
/**
 * Codes answered before the rate-limit hook (the draining check and the authentication hook),
 * so without `RateLimit-*` headers — unless the route also answers the code later itself (it
 * is then in the route's own `errors`, e.g. FORBIDDEN_ROLE of emision_reenviar).
 */
const EARLY_CODES = [
    'SERVICE_UNAVAILABLE',
    'UNAUTHENTICATED',
    'INVALID_API_KEY',
    'FORBIDDEN_ISSUER',
    'FORBIDDEN_ROLE',
    'ISSUER_NOT_FOUND',
];
/** Codes the HTTP layer itself answers for a route of this shape. */
function mechanismCodes(meta) {
    const codes = ['INTERNAL', 'SERVICE_UNAVAILABLE'];
    if (meta.hasInput || meta.hasBody || meta.idempotent)
        codes.push('VALIDATION_FAILED');
    if (meta.hasBody)
        codes.push('INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE');
    if (meta.auth && meta.auth !== 'none') {
        codes.push('UNAUTHENTICATED', 'INVALID_API_KEY', 'ISSUER_NOT_FOUND', 'RATE_LIMITED');
        if (meta.rutInPath)
            codes.push('FORBIDDEN_ISSUER');
    }
    if (meta.auth === 'write')
        codes.push('FORBIDDEN_ROLE');
    if (meta.idempotent)
        codes.push('IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS');
    return codes;
}
/** The error codes an operation documents: the mechanism's and the route's own. */
function operationErrorCodes(meta) {
    const all = new Set([...mechanismCodes(meta), ...meta.errors]);
    return Object.keys(ERROR_CATALOG).filter((c) => all.has(c));
}
const STATUS_TEXT = {
    400: 'The request is invalid; `details` names the fields',
    401: 'No valid API key (or document token)',
    403: 'The key or token may not do this',
    404: 'Not found',
    409: 'Conflicts with an earlier request',
    413: 'The request body is larger than 1 MiB',
    422: 'Valid, but it cannot be done now',
    429: 'Too many requests; retry after `Retry-After` seconds',
    500: 'Our failure; the request id finds it in the logs',
    502: 'The SII could not be reached or refused; nothing was changed',
    503: 'This instance is shutting down; retry (another instance answers)',
};
const ref = (kind, name) => ({ $ref: `#/components/${kind}/${name}` });
function components() {
    const detail = z.toJSONSchema(errorDetailSchema, { target: 'draft-2020-12' });
    delete detail.$schema;
    const header = (description, schema) => ({ description, schema });
    return {
        securitySchemes: {
            bearer: {
                type: 'http',
                scheme: 'bearer',
                bearerFormat: 'timbre_…',
                description: '`Authorization: Bearer timbre_…`: an API key, bound to one issuer and one role.',
            },
            documentToken: {
                type: 'apiKey',
                in: 'query',
                name: 'tk',
                description: "A document's public token, as carried by its `pdf_url` / `xml_url`: opens that document's files only.",
            },
        },
        schemas: {
            Error: {
                type: 'object',
                description: 'Every error answer.',
                required: ['ok', 'error', 'code', 'request_id'],
                properties: {
                    ok: { type: 'boolean', const: false },
                    error: { type: 'string', description: 'A human message (may change; match on `code`).' },
                    code: {
                        type: 'string',
                        description: 'A stable code. Each operation lists the codes it can answer; new codes may be added.',
                    },
                    request_id: { type: 'string', description: 'The `X-Request-Id` of the request.' },
                    details: {
                        type: 'array',
                        description: 'For VALIDATION_FAILED (and the 4xx codes that name a field): one entry per invalid field, each with the stable `rule` id it breaks.',
                        items: ref('schemas', 'ErrorDetail'),
                    },
                },
            },
            ErrorDetail: detail,
        },
        parameters: {
            IdempotencyKey: {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                description: 'Makes a retry safe: for 24 h the same key with the same body answers the stored result (no second document, folio or upload; `Idempotent-Replayed: true`); with another body, 409.',
                schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
            },
        },
        headers: {
            XRequestId: {
                ...header('Identifies the request (yours when you sent a sane `X-Request-Id`).', { type: 'string' }),
                required: true,
            },
            RateLimitLimit: header('Requests allowed per minute (per API key; per address for token downloads).', {
                type: 'integer',
            }),
            RateLimitRemaining: header('Requests left in the current one-minute window.', { type: 'integer' }),
            RateLimitReset: header('Seconds until the window resets.', { type: 'integer' }),
            RetryAfter: { ...header('Seconds to wait before retrying.', { type: 'integer' }), required: true },
            ServerTiming: header('Where the request spent its time inside Timbre, in milliseconds of wall time per stage, waits included (W3C Server Timing): `folio` (reserving the folio), `sign` (TED, XML, signature and the final check of the signed bytes), `store` (the write and its commit), and `sii` for a live document (its first upload). Absent from a replayed answer.', { type: 'string', example: 'folio;dur=4.1, sign;dur=16.4, store;dur=9.2' }),
            IdempotentReplayed: header('`true` when this is the stored answer of an earlier request with the same key.', {
                type: 'string',
                enum: ['true'],
            }),
        },
    };
}
function headersFor(status, meta, codes = []) {
    const h = { 'X-Request-Id': ref('headers', 'XRequestId') };
    // The rate-limit hook runs after authentication: a status only the auth hook answers
    // (401, most 403) carries no RateLimit-* headers.
    const afterRateLimit = codes.length === 0 || codes.some((c) => !EARLY_CODES.includes(c) || meta.errors.includes(c));
    if (afterRateLimit && meta.auth && meta.auth !== 'none') {
        h['RateLimit-Limit'] = ref('headers', 'RateLimitLimit');
        h['RateLimit-Remaining'] = ref('headers', 'RateLimitRemaining');
        h['RateLimit-Reset'] = ref('headers', 'RateLimitReset');
    }
    if (status === 429 || status === 503)
        h['Retry-After'] = ref('headers', 'RetryAfter');
    if (meta.serverTiming && status === 200)
        h['Server-Timing'] = ref('headers', 'ServerTiming');
    if (meta.idempotent && (status < 300 || [400, 404, 409, 422].includes(status))) {
        h['Idempotent-Replayed'] = ref('headers', 'IdempotentReplayed');
    }
    return h;
}
function errorResponses(meta, requestId) {
    const byStatus = new Map();
    for (const code of operationErrorCodes(meta)) {
        const status = ERROR_CATALOG[code].status;
        byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const out = {};
    for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
        const first = codes[0];
        out[String(status)] = {
            description: [
                STATUS_TEXT[status] ?? 'Error',
                '',
                ...codes.map((c) => `- \`${c}\`: ${ERROR_CATALOG[c].message}`),
            ].join('\n'),
            headers: headersFor(status, meta, codes),
            content: {
                'application/json': {
                    schema: {
                        allOf: [ref('schemas', 'Error'), { type: 'object', properties: { code: { type: 'string', enum: codes } } }],
                    },
                    example: {
                        ok: false,
                        error: ERROR_CATALOG[first].message,
                        code: first,
                        request_id: requestId,
                        ...(first === 'VALIDATION_FAILED' && {
                            details: [
                                {
                                    path: 'items[0].qty',
                                    rule: 'value.wrong_type',
                                    message: 'Invalid input: expected number, received string',
                                    params: { expected: 'number' },
                                },
                            ],
                        }),
                    },
                },
            },
        };
    }
    return out;
}
/** Parameter schemas: zod cannot carry `default` on an input that it transforms (see queryInt). */
function fixParameters(parameters) {
    for (const p of parameters ?? []) {
        const schema = p.schema;
        if (schema && 'x-default' in schema) {
            schema.default = schema['x-default'];
            delete schema['x-default'];
        }
        if (!p.description && typeof schema?.description === 'string')
            p.description = schema.description;
    }
}
function finishOperation(op) {
    const meta = op[META];
    delete op[META];
    if (!meta)
        return;
    const requestId = 'req_3kTqB8mZ1vYc2Lw9Xa0Pn4Hd';
    fixParameters(op.parameters);
    if (meta.auth === 'file')
        op.security = [{ bearer: [] }, { documentToken: [] }];
    if (meta.idempotent)
        op.parameters = [...(op.parameters ?? []), ref('parameters', 'IdempotencyKey')];
    const body = op.requestBody?.content;
    if (body?.['application/json'] && meta.example.request !== undefined) {
        body['application/json'].example = meta.example.request;
    }
    const responses = op.responses;
    const ok = responses['200'] ?? {};
    const okContent = (ok.content ?? {});
    const success = { description: meta.success, headers: headersFor(200, meta) };
    if (meta.file) {
        success.headers['Content-Disposition'] = {
            description: '`inline` (or `attachment` with `download=1`) and the file name, `DTE_<rut>_T<type>_F<folio>.<ext>`.',
            schema: { type: 'string' },
        };
        success.content = {
            [meta.file.mediaType]: { schema: { type: 'string', format: 'binary', description: meta.file.description } },
            'application/json': { ...okContent['application/json'], example: meta.example.response },
        };
    }
    else {
        success.content = { 'application/json': { ...okContent['application/json'], example: meta.example.response } };
    }
    op.responses = { '200': success, ...errorResponses(meta, requestId) };
}
/**
 * Turns what @fastify/swagger built from the routes into the published description.
 * `servers`: PUBLIC_BASE_URL when configured, else the server that serves the description.
 */
function finishDocument(doc, publicBaseUrl) {
    const paths = doc.paths;
    const used = new Set(['ROUTE_NOT_FOUND', 'METHOD_NOT_ALLOWED']);
    for (const item of Object.values(paths)) {
        for (const op of Object.values(item)) {
            const meta = op[META];
            if (meta)
                for (const c of operationErrorCodes(meta))
                    used.add(c);
            finishOperation(op);
        }
    }
    const codes = Object.entries(ERROR_CATALOG)
        .filter(([code]) => used.has(code))
        .map(([code, v]) => ({ code, status: v.status, message: v.message }));
    const info = doc.info;
    info.description = [
        info.description,
        '',
        'Every error is `{ ok: false, error, code, request_id, details? }` with a stable `code`; each operation lists the codes it can answer. An unknown path answers 404 `ROUTE_NOT_FOUND`; a known path with another method, 405 `METHOD_NOT_ALLOWED` with `Allow`.',
        '',
        '| code | HTTP | meaning |',
        '|---|---|---|',
        ...codes.map((c) => `| \`${c.code}\` | ${c.status} | ${c.message} |`),
    ].join('\n');
    const existing = (doc.components ?? {});
    return {
        ...doc,
        servers: [
            publicBaseUrl
                ? { url: publicBaseUrl.replace(/\/+$/, ''), description: 'This Timbre instance (PUBLIC_BASE_URL)' }
                : { url: '/', description: 'The server that serves this description (PUBLIC_BASE_URL is not set)' },
        ],
        components: { ...existing, ...components() },
        'x-error-codes': codes,
    };
}
export async function registerOpenApi(app) {
    const publicBaseUrl = app.ctx.config.PUBLIC_BASE_URL;
    await app.register(swagger, {
        openapi: {
            openapi: '3.1.0',
            info: {
                title: 'Timbre API',
                version: '1.0.0',
                description: [
                    'Issue Chilean electronic tax documents (DTE) to the SII with JSON.',
                    '',
                    'Authenticate with `Authorization: Bearer timbre_…`; PDF and XML downloads also open with the document token `tk` of their `pdf_url` / `xml_url`. Each key has a per-minute limit: answers to authenticated requests carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (401 and 403 answers do not), and a 429 adds `Retry-After`.',
                ].join('\n'),
                license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
            },
            tags: [
                { name: 'documents', description: 'Issue, list, download and follow tax documents.' },
                { name: 'folios', description: 'CAF folio ranges.' },
                {
                    name: 'received',
                    description: "Documents suppliers send to the issuer: the receiver's checks, the answer, the files.",
                },
                {
                    name: 'events',
                    description: 'What happened to documents, folios, the certificate and e-mails, newest first; each event is the body its webhook deliveries carry.',
                },
                {
                    name: 'webhooks',
                    description: 'Endpoints that receive events, signed per Standard Webhooks and retried on failure (owner keys manage them).',
                },
            ],
            // Here already: the generator reads the security schemes.
            components: { securitySchemes: components().securitySchemes },
            security: [{ bearer: [] }],
        },
        transform: (args) => {
            const out = jsonSchemaTransform(args);
            const schema = out.schema;
            const meta = schema?.[META];
            if (schema && meta) {
                const config = args.route.config;
                schema[META] = {
                    ...meta,
                    auth: config?.auth ?? 'none',
                    idempotent: config?.idempotent === true,
                    // Fastify parses a body sent to any of these methods, declared or not (a POST
                    // without one still answers 413 / INVALID_JSON / UNSUPPORTED_MEDIA_TYPE to one).
                    hasBody: schema.body !== undefined || [args.route.method].flat().some((m) => BODY_METHODS.includes(m)),
                    hasInput: schema.querystring !== undefined || schema.params !== undefined,
                    rutInPath: args.url.includes(':rut'),
                };
            }
            return out;
        },
        transformObject: (doc) => finishDocument(doc.openapiObject, publicBaseUrl),
    });
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
    app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
}
