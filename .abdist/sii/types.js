/**
 * The SII could not be reached and certainly did not receive the request (connection refused,
 * DNS, TLS, a refusal before the body was sent, or a 5xx on a read-only query): safe to retry.
 */
export class SiiUnavailableError extends Error {
    name = 'SiiUnavailableError';
}
/**
 * The request was sent but no usable answer came back (timeout or reset after sending, a 5xx
 * to an upload): the SII may have received it. Ask before sending again (docs/design.md §6).
 */
export class SiiAmbiguousError extends Error {
    name = 'SiiAmbiguousError';
}
/** The SII answered, but refused to authenticate (bad signature, unknown certificate …). */
export class SiiAuthError extends Error {
    name = 'SiiAuthError';
}
/** The SII answered something we cannot read (not the documented shape). */
export class SiiProtocolError extends Error {
    name = 'SiiProtocolError';
}
