import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, ERROR_CATALOG, zodError } from '../errors.js';
export function errorBody(request, code, message, details) {
    return {
        ok: false,
        error: message ?? ERROR_CATALOG[code].message,
        code,
        request_id: String(request.id),
        ...(details?.length ? { details } : {}),
    };
}
export function sendError(request, reply, err) {
    if (err.headers)
        reply.headers(err.headers);
    return reply.status(err.status).send(errorBody(request, err.code, err.message, err.details));
}
const CONTEXT_NAMES = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };
function fromFastifyError(err) {
    if (hasZodFastifySchemaValidationErrors(err)) {
        const context = CONTEXT_NAMES[err.validationContext ?? 'body'] ?? 'body';
        // fastify-type-provider-zod hands each zod issue over as { keyword: code, instancePath,
        // message, params: the rest of the issue }: put it back together for the one conversion.
        const issues = err.validation.map((v) => ({
            ...v.params,
            code: v.keyword,
            path: v.instancePath.split('/').filter(Boolean),
            message: v.message ?? 'is invalid',
        }));
        return zodError(issues, context);
    }
    switch (err.code) {
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
            return new AppError('PAYLOAD_TOO_LARGE');
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
            return new AppError('UNSUPPORTED_MEDIA_TYPE');
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
            return new AppError('INVALID_JSON', 'The request body is empty; send a JSON object.');
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
            return new AppError('INVALID_JSON');
        default:
            break;
    }
    if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
        return new AppError('INVALID_JSON');
    }
    if (err.statusCode === 413)
        return new AppError('PAYLOAD_TOO_LARGE');
    if (err.statusCode === 415)
        return new AppError('UNSUPPORTED_MEDIA_TYPE');
    return null;
}
export function registerErrorHandler(app) {
    app.setErrorHandler((error, request, reply) => {
        const appError = error instanceof AppError ? error : fromFastifyError(error);
        if (appError) {
            if (appError.status >= 500)
                request.log.error({ err: error, code: appError.code }, 'request failed');
            return sendError(request, reply, appError);
        }
        // A plugin's own 4xx (@fastify/static under /docs answering a bad path, say) keeps its
        // status: the client asked for something wrong, which is not our failure.
        const status = error.statusCode;
        if (typeof status === 'number' && status >= 400 && status < 500) {
            request.log.info({ err: error, status }, 'request refused by a plugin');
            return reply.status(status).send(errorBody(request, clientErrorCode(status), clientErrorMessage(status)));
        }
        request.log.error({ err: error }, 'unhandled error');
        return reply.status(500).send(errorBody(request, 'INTERNAL'));
    });
}
/** The catalog code a plugin's bare 4xx is reported under (the status itself is kept). */
function clientErrorCode(status) {
    if (status === 401)
        return 'UNAUTHENTICATED';
    if (status === 404)
        return 'ROUTE_NOT_FOUND';
    if (status === 405)
        return 'METHOD_NOT_ALLOWED';
    if (status === 413)
        return 'PAYLOAD_TOO_LARGE';
    if (status === 429)
        return 'RATE_LIMITED';
    return 'BAD_REQUEST';
}
function clientErrorMessage(status) {
    if (status === 404)
        return 'Not found.';
    if (status === 403)
        return 'Forbidden.';
    if (status === 408)
        return 'The request took too long to arrive.';
    return 'The request was refused.';
}
