/**
 * The only file that listens. Boot: config → database (embedded PostgreSQL unless
 * DATABASE_URL) with migrations → demo issuer on first start → HTTP. SIGTERM/SIGINT: stop
 * accepting, let in-flight requests finish (bounded by SHUTDOWN_TIMEOUT_MS), close the pool,
 * stop the embedded PostgreSQL if no one else uses it.
 */
import { ensureDemo } from './admin/demo.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { createLogger } from './logger.js';
async function main() {
    let config;
    try {
        config = loadConfig();
    }
    catch (e) {
        if (e instanceof ConfigError) {
            process.stderr.write(`${e.message}\n`);
            process.exit(78);
        }
        throw e;
    }
    const logger = createLogger(config.LOG_LEVEL);
    const started = Date.now();
    const db = await openDatabase(config, { log: (msg) => logger.info(msg) });
    const app = await buildApp({ config, db, logger });
    let stopping = false;
    const shutdown = async (signal) => {
        if (stopping)
            return;
        stopping = true;
        logger.info({ signal }, 'shutting down: finishing in-flight requests');
        const timer = setTimeout(() => {
            logger.error('shutdown timed out; exiting');
            process.exit(1);
        }, config.SHUTDOWN_TIMEOUT_MS);
        timer.unref();
        try {
            await app.close();
            await db.close();
            logger.info('shutdown complete');
            process.exit(0);
        }
        catch (err) {
            logger.error({ err }, 'error during shutdown');
            process.exit(1);
        }
    };
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
    process.on('SIGINT', () => void shutdown('SIGINT'));
    // The signing workers boot now, beside the listening socket, instead of during the first
    // document (which then waited ~0.4 s for a worker to start and compile the DTE schema).
    if (config.SIGN_WORKERS > 0) {
        const warming = Date.now();
        app.ctx.signer
            .start()
            .then(() => logger.info({ workers: config.SIGN_WORKERS, ms: Date.now() - warming }, 'signing workers ready'))
            .catch((err) => logger.warn({ err }, 'the signing workers did not start; the first document starts one'));
    }
    await app.listen({ port: config.PORT, host: config.HOST });
    logger.info({ port: config.PORT, ms: Date.now() - started }, 'Timbre is listening');
    if (config.TIMBRE_DEMO) {
        const demo = await ensureDemo(app.ctx);
        const base = config.publicBaseUrl;
        if (demo.key) {
            process.stdout.write([
                '',
                '  Timbre is running with a demo sandbox issuer.',
                `  Issuer RUT : ${demo.rut}`,
                `  Owner key  : ${demo.key}   (shown once; store it now)`,
                '',
                '  Try it:',
                `  curl -H "Authorization: Bearer ${demo.key}" ${base}/api/${demo.rut}/emisiones`,
                '',
                `  Dashboard  : ${base}/dashboard`,
                `  Sign in    : ${base}/dashboard/enlace/${demo.signInToken}`,
                '               (one-time link for the owner user demo@timbre.local, valid 24 h)',
                '',
            ].join('\n') + '\n');
        }
        else {
            process.stdout.write(`\n  Demo sandbox issuer ${demo.rut} already exists (its key was printed on first start).\n` +
                `  New key: npm run cli -- key create --rut ${demo.rut} --role owner\n` +
                `  Dashboard: ${base}/dashboard  (a sign-in password: npm run cli -- user reset-password --email demo@timbre.local)\n\n`);
        }
    }
}
main().catch((err) => {
    process.stderr.write(`Timbre failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
});
