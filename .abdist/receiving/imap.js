/** How long to wait for the connection, the greeting and any answer, ms. */
const CONNECT_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;
/** A connected client; the caller logs out (or closes) it. */
export async function connectImap(s, opts = {}) {
    const options = {
        host: s.host,
        port: s.port,
        secure: s.tls === 'implicit',
        // STARTTLS is required when asked for, never attempted with `none`.
        doSTARTTLS: s.tls === 'starttls' ? true : s.tls === 'none' ? false : undefined,
        auth: { user: s.user, pass: s.password },
        logger: false,
        disableAutoIdle: true,
        connectionTimeout: CONNECT_TIMEOUT_MS,
        greetingTimeout: CONNECT_TIMEOUT_MS,
        socketTimeout: SOCKET_TIMEOUT_MS,
        ...(opts.maxMessageBytes && {
            maxLiteralSize: opts.maxMessageBytes * 2,
            maxResponseSize: opts.maxMessageBytes * 2 + 1024 * 1024,
        }),
    };
    // Loaded on first use: the CLI and an instance without mailboxes never pay for it.
    const { ImapFlow: Client } = await import('imapflow');
    const client = new Client(options);
    // An error after connecting (a dropped socket) is reported by the pending command; without a
    // listener the emitter would throw it at the process.
    client.on('error', () => { });
    await client.connect();
    return client;
}
/** An imapflow or socket error as one line for last_error and the "Probar conexión" answer. */
export function imapErrorText(err) {
    const e = err;
    if (e.authenticationFailed)
        return 'Autenticación rechazada: revise el usuario y la contraseña.';
    const detail = e.responseText || e.message || String(err);
    return `${e.code ? `${e.code}: ` : ''}${detail}`.slice(0, 500);
}
