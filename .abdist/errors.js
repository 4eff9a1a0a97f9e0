/**
 * The one error catalog. Every failure a caller can see is an `AppError` with a stable code
 * from this table; the HTTP error handler (src/http/error-handler.ts) renders it as
 * `{ ok: false, error, code, request_id, details? }`. Domain modules throw these values and
 * never HTTP errors. Add new codes here (SCREAMING_SNAKE), with a status and a default message.
 */
import { ruleDetail, zodDetails } from './rules.js';
export const ERROR_CATALOG = {
    // 400 — the request itself is wrong
    VALIDATION_FAILED: { status: 400, message: 'The request is invalid.' },
    INVALID_JSON: { status: 400, message: 'The request body is not valid JSON.' },
    UNSUPPORTED_MEDIA_TYPE: { status: 400, message: 'Request bodies must be sent with Content-Type: application/json.' },
    INVALID_RUT: { status: 400, message: 'The RUT is malformed or its check digit is wrong.' },
    TOTALS_MISMATCH: { status: 400, message: 'The document totals do not match the referenced document.' },
    REFERENCE_NOT_FOUND: { status: 400, message: 'The referenced document was not issued by this issuer.' },
    // 401 / 403 / 404 / 405 / 413
    UNAUTHENTICATED: { status: 401, message: 'A valid API key is required: send Authorization: Bearer timbre_…' },
    INVALID_API_KEY: { status: 401, message: 'The API key is invalid or has been revoked.' },
    FORBIDDEN_ISSUER: { status: 403, message: 'This API key has no access to the issuer.' },
    FORBIDDEN_ROLE: { status: 403, message: 'This API key’s role may not perform this operation.' },
    ISSUER_NOT_FOUND: { status: 404, message: 'The issuer does not exist or is inactive.' },
    DOCUMENT_NOT_FOUND: { status: 404, message: 'No document with that type and folio exists for this issuer.' },
    ROUTE_NOT_FOUND: { status: 404, message: 'Unknown endpoint.' },
    METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed for this endpoint.' },
    PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body exceeds the 1 MiB limit.' },
    // 409 / 422 / 429
    IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'This Idempotency-Key was used with a different request body.' },
    IDEMPOTENCY_IN_PROGRESS: { status: 409, message: 'A request with this Idempotency-Key is still being processed.' },
    NO_CERTIFICATE: { status: 422, message: 'The issuer has no digital certificate.' },
    CERTIFICATE_EXPIRED: { status: 422, message: 'The digital certificate has expired.' },
    CERTIFICATE_NOT_YET_VALID: { status: 422, message: 'The digital certificate is not valid yet.' },
    FOLIOS_EXHAUSTED: { status: 422, message: 'No CAF folios are available for this document type.' },
    ISSUER_NOT_CONFIGURED: {
        status: 422,
        message: 'The issuer is not configured for live issuing (SII resolution missing).',
    },
    SANDBOX_NOT_SUBMITTABLE: { status: 422, message: 'Sandbox documents are never sent to the SII.' },
    RATE_LIMITED: { status: 429, message: 'Too many requests.' },
    // Operator (CLI) errors
    ISSUER_EXISTS: { status: 409, message: 'An issuer with that RUT already exists.' },
    ACCOUNT_NOT_FOUND: { status: 404, message: 'No account with that id exists.' },
    KEY_NOT_FOUND: { status: 404, message: 'No API key with that id exists.' },
    KEY_LIMIT_REACHED: { status: 409, message: 'The account already has 5 active API keys; revoke one first.' },
    CAF_ISSUER_MISMATCH: { status: 422, message: 'The CAF was issued to another RUT.' },
    CAF_KEY_MISMATCH: { status: 422, message: 'The CAF private key (RSASK) does not match its public key (RSAPK).' },
    CAF_SIGNATURE_INVALID: { status: 422, message: 'The CAF signature (FRMA) does not verify with any trusted SII key.' },
    CAF_ALREADY_IMPORTED: { status: 409, message: 'This CAF range overlaps a range already imported for the issuer.' },
    CERT_BAD_PASSWORD: {
        status: 422,
        message: 'The .p12 password is wrong (the file’s integrity check does not verify with it).',
    },
    CERT_NO_PRIVATE_KEY: { status: 422, message: 'The .p12 holds no private key; export it together with its key.' },
    CERT_UNREADABLE: { status: 422, message: 'The file is not a readable PKCS#12 (.p12/.pfx) certificate.' },
    CAF_INVALID: { status: 422, message: 'The CAF file is not a valid SII folio authorisation.' },
    CERT_NO_HOLDER_RUT: {
        status: 422,
        message: 'The certificate does not carry the holder RUT (SII OID 1.3.6.1.4.1.8321.1).',
    },
    // 5xx — our side
    INTERNAL: { status: 500, message: 'Internal error. The request id identifies it in our logs.' },
    DOCUMENT_SCHEMA_INVALID: {
        status: 500,
        message: 'The generated document failed XSD validation (a Timbre bug); nothing was stored.',
    },
    SII_UNAVAILABLE: { status: 502, message: 'The SII could not be reached.' },
    SERVICE_UNAVAILABLE: { status: 503, message: 'This instance is shutting down; retry the request.' },
    // Dashboard: users and sessions (src/admin/users.ts, src/web/)
    SIGN_IN_FAILED: { status: 401, message: 'The e-mail or the password is not correct.' },
    SIGN_IN_RATE_LIMITED: { status: 429, message: 'Too many sign-in attempts; wait (Retry-After) and try again.' },
    USER_EXISTS: { status: 409, message: 'A user with that e-mail already exists.' },
    USER_NOT_FOUND: { status: 404, message: 'No user with that e-mail exists.' },
    CSRF_FAILED: { status: 403, message: 'The form expired or did not come from this dashboard; reload and try again.' },
    CURRENT_PASSWORD_WRONG: { status: 400, message: 'The current password is not correct.' },
    // Hostile input and abuse (README "Hostile input and abuse")
    BAD_REQUEST: {
        status: 400,
        message: 'The request was refused (a 4xx other than the codes above; the HTTP status tells which).',
    },
    DOCUMENT_NOT_VERIFIABLE: {
        status: 500,
        message: 'The generated document did not verify as it would be stored (XMLDSig or TED; a Timbre bug); nothing was stored and no folio was used.',
    },
    // Events, webhooks and e-mail (src/events/, docs/design.md §9)
    EVENT_NOT_FOUND: { status: 404, message: 'No event with that id exists for this issuer.' },
    WEBHOOK_NOT_FOUND: { status: 404, message: 'No webhook endpoint with that id exists for this issuer.' },
    RECEIVED_DOCUMENT_NOT_FOUND: { status: 404, message: 'No received document with that issuer, type and folio.' },
    RECEIVED_ENVELOPE_NOT_FOUND: { status: 404, message: 'No received envelope with that number, or it has no answer.' },
    DECISION_NOT_FOUND: { status: 404, message: 'No decision with that number, or it has no such answer.' },
    RECEIVED_TYPE_NOT_DECIDABLE: {
        status: 422,
        message: 'Only facturas (33, 34) and liquidaciones-factura (43) are accepted or claimed at the SII.',
    },
    DECISION_ALREADY_REGISTERED: { status: 409, message: 'That decision is already recorded for this document.' },
    DECISION_NOT_ALLOWED: {
        status: 409,
        message: 'The SII does not allow this decision after the one already recorded for the document.',
    },
    DECISION_DEADLINE_PASSED: {
        status: 422,
        message: 'The 8 days to accept or claim have passed: the document is accepted by law.',
    },
    WEBHOOK_LIMIT_REACHED: { status: 409, message: 'The issuer already has 10 webhook endpoints; delete one first.' },
    WEBHOOK_URL_BLOCKED: {
        status: 422,
        message: 'The webhook URL resolves to a private, loopback or link-local address, or is not https in live.',
    },
    EMAIL_DISABLED: { status: 422, message: 'E-mail is off: the server has no SMTP_URL configured.' },
    EMAIL_DOCUMENT_REJECTED: {
        status: 422,
        message: 'The SII rejected this document; it is not e-mailed to the receiver.',
    },
    EMAIL_NO_RECIPIENT: { status: 422, message: 'The document has no receiver e-mail; send "to" with the addresses.' },
    // Cesión (factoring) of issued facturas at the SII's RPETC (src/cession/)
    DOCUMENT_NOT_CEDIBLE: {
        status: 422,
        message: "The document cannot be ceded (type, state or the SII's consultarDocDteCedible says why).",
    },
    CESSION_IN_PROGRESS: { status: 409, message: 'A cesión of this document is already on its way to the SII.' },
    DOCUMENT_CEDED: {
        status: 422,
        message: 'The factura is ceded: it belongs to the cesionario now, and the debtor pays them.',
    },
    CESSION_NOT_FOUND: { status: 404, message: 'No cesión with that id exists for this issuer.' },
    // The intercambio mailbox (src/receiving/mailbox-settings.ts)
    MAILBOX_NOT_FOUND: { status: 404, message: 'The issuer has no mailbox settings.' },
    MAILBOX_PASSWORD_REQUIRED: { status: 400, message: 'A new mailbox needs its password.' },
};
export class AppError extends Error {
    code;
    status;
    details;
    headers;
    constructor(code, message, extra = {}) {
        super(message ?? ERROR_CATALOG[code].message, extra.cause === undefined ? undefined : { cause: extra.cause });
        this.name = 'AppError';
        this.code = code;
        this.status = ERROR_CATALOG[code].status;
        if (extra.details)
            this.details = extra.details;
        if (extra.headers)
            this.headers = extra.headers;
    }
}
/** Shorthand for a 400 naming one field and the rule it breaks. */
export function validationError(path, rule, ...args) {
    const detail = ruleDetail(path, rule, ...args);
    return new AppError('VALIDATION_FAILED', `${path}: ${detail.message}`, { details: [detail] });
}
/** A 400 for every broken field; its message names the first ("items[0].qty: … (and 2 more)"). */
function validationFailed(details) {
    const first = details[0];
    const summary = first ? `${first.path}: ${first.message}` : undefined;
    const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
    return new AppError('VALIDATION_FAILED', summary && `${summary}${more}`, { details });
}
/** A 400 for the issues of a failed zod parse (src/rules.ts `zodDetails`). */
export function zodError(issues, root) {
    return validationFailed(zodDetails(issues, root));
}
