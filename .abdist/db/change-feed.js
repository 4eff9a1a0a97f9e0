/**
 * The operator change feed: PostgreSQL LISTEN/NOTIFY on one channel. Operator use cases (the
 * CLI, another instance, later the dashboard) announce a change inside the transaction that
 * makes it, so the notice is delivered exactly when the change commits and never for a
 * rollback. Every service process keeps one dedicated connection listening and drops the
 * matching cache entries on each notice (src/caches.ts), so the next request anywhere sees the
 * change.
 *
 * A listening connection can drop (server restart, network): while it is down the caches are
 * told not to trust themselves (they read through to the database), and when it comes back
 * they start empty, since notices sent meanwhile are lost. Reconnection backs off from 100 ms
 * to 5 s and never gives up while the process runs.
 */
import pg from 'pg';
const CHANGE_CHANNEL = 'timbre_operator_changes';
/** Announces `change` to every process; delivered when the caller's transaction commits. */
export async function notifyChange(tx, change) {
    await tx.$executeRaw `SELECT pg_notify(${CHANGE_CHANNEL}, ${JSON.stringify(change)})`;
}
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;
export function listenForChanges(url, handlers, log) {
    let client = null;
    let closed = false;
    let backoff = MIN_BACKOFF_MS;
    let timer = null;
    let markReady = () => { };
    const ready = new Promise((resolve) => {
        markReady = resolve;
    });
    const lost = (c, err) => {
        if (client !== c)
            return; // already handled
        client = null;
        handlers.onListening(false);
        c.end().catch(() => { });
        if (closed)
            return;
        log.warn({ err, retry_ms: backoff }, 'operator change feed lost; caches bypassed until it is back');
        timer = setTimeout(connect, backoff);
        timer.unref();
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    };
    async function connect() {
        timer = null;
        if (closed)
            return;
        const c = new pg.Client({ connectionString: url, application_name: 'timbre-change-feed' });
        client = c;
        c.on('error', (err) => lost(c, err));
        c.on('end', () => lost(c));
        c.on('notification', (msg) => {
            if (msg.channel !== CHANGE_CHANNEL || !msg.payload)
                return;
            try {
                handlers.onChange(JSON.parse(msg.payload));
            }
            catch (err) {
                // An unreadable notice could be any change: forget everything it might concern.
                log.warn({ err }, 'unreadable operator change notice; caches reset');
                handlers.onListening(true);
            }
        });
        try {
            await c.connect();
            await c.query(`LISTEN ${CHANGE_CHANNEL}`);
            if (client !== c)
                return;
            backoff = MIN_BACKOFF_MS;
            handlers.onListening(true);
        }
        catch (err) {
            lost(c, err);
        }
        finally {
            markReady();
        }
    }
    void connect();
    return {
        ready,
        async close() {
            closed = true;
            if (timer)
                clearTimeout(timer);
            const c = client;
            client = null;
            handlers.onListening(false);
            await c?.end().catch(() => { });
        },
    };
}
