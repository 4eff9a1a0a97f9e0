import { validationError } from '../errors.js';
import { claimIdempotencyKey, completeIdempotencyKey, finishIdempotencyKey, isReplayable, requestFingerprint, } from '../issuing/idempotency.js';
const KEY = /^[\x21-\x7e]{1,255}$/;
export function registerIdempotency(app, ctx) {
    app.decorateRequest('idempotencyId', null);
    app.addHook('preHandler', async (request, reply) => {
        const config = request.routeOptions.config;
        if (!config?.idempotent)
            return;
        const header = request.headers['idempotency-key'];
        if (header === undefined)
            return;
        const key = Array.isArray(header) ? header[0] : header;
        if (!key || !KEY.test(key)) {
            throw validationError('Idempotency-Key', 'idempotency.key_format');
        }
        const issuerId = request.auth?.issuer.id;
        if (!issuerId)
            return;
        const endpoint = `${request.method} ${request.routeOptions.url}`;
        const claim = await claimIdempotencyKey(ctx, {
            issuerId,
            key,
            endpoint,
            requestHash: requestFingerprint(`${endpoint} ${JSON.stringify(request.params)}`, request.body),
        });
        if (claim.kind === 'replay') {
            reply.header('Idempotent-Replayed', 'true');
            return reply.code(claim.status).send(claim.body);
        }
        if (claim.kind === 'recovered' && config.idempotencyRecover) {
            const body = await config.idempotencyRecover(request, claim.documentId);
            await completeIdempotencyKey(ctx, claim.record.id, 200, body);
            reply.header('Idempotent-Replayed', 'true');
            return reply.code(200).send(body);
        }
        request.idempotencyId = claim.record.id;
    });
    app.addHook('onSend', async (request, reply, payload) => {
        const id = request.idempotencyId;
        if (!id)
            return payload;
        request.idempotencyId = null;
        const status = reply.statusCode;
        try {
            const body = isReplayable(status) && typeof payload === 'string' ? JSON.parse(payload) : payload;
            await finishIdempotencyKey(ctx, id, status, body);
        }
        catch (err) {
            request.log.error({ err }, 'could not record the idempotent response');
        }
        return payload;
    });
}
