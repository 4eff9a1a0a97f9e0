/**
 * Opening the database: DATABASE_URL when configured, otherwise the embedded PostgreSQL;
 * migrations applied; one pg pool shared by Prisma. Prisma error codes are translated here
 * and nowhere else (docs/style.md §5).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { applyMigrations } from './migrate.js';
import { createSecretBox, resolveMasterKey } from './secrets.js';
export { Prisma };
export async function openDatabase(config, opts = {}) {
    const log = opts.log ?? (() => { });
    let embedded = null;
    let url = opts.url ?? config.DATABASE_URL;
    if (!url) {
        // Loaded only when needed: the PostgreSQL binaries are an optional dependency that
        // production images, which always set DATABASE_URL, do not install (embedded.ts imports
        // them only when it starts a server).
        const { ensureEmbeddedPostgres } = await import('./embedded.js');
        embedded = await ensureEmbeddedPostgres(config.dataDir, { log });
        url = embedded.url;
    }
    const directUrl = config.DATABASE_DIRECT_URL ? directUrlFor(config.DATABASE_DIRECT_URL, url) : url;
    if (opts.migrate !== false) {
        // Through a direct connection: the migrations hold a session-level advisory lock, which a
        // transaction-pooling PgBouncer would take on one server connection and release on another.
        const { applied } = await applyMigrations(directUrl);
        if (applied.length)
            log(`applied migrations: ${applied.join(', ')}`);
    }
    const pool = new pg.Pool({ connectionString: url, max: opts.poolMax ?? config.DB_POOL_MAX });
    pool.on('error', () => { }); // idle-client errors (server restarts) surface on the next query instead
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    const { key } = resolveMasterKey(config.TIMBRE_MASTER_KEY, config.dataDir);
    const secrets = createSecretBox(key);
    try {
        await checkMasterKey(prisma, secrets);
    }
    catch (e) {
        await prisma.$disconnect();
        await pool.end();
        throw e;
    }
    return {
        prisma,
        pool,
        url,
        directUrl,
        statement: (name, text, ...rest) => {
            const [call, values] = rest.length === 2 ? rest : [text, rest[0]];
            return config.DB_NAMED_STATEMENTS ? { name, text, values } : { text: call, values };
        },
        secrets,
        embedded,
        async close() {
            await prisma.$disconnect();
            await pool.end();
            if (embedded)
                await embedded.release();
        },
    };
}
/** DATABASE_DIRECT_URL, with the database of `url` when it names none (`postgres://h:5432`). */
export function directUrlFor(direct, url) {
    const d = new URL(direct);
    if (d.pathname === '' || d.pathname === '/')
        d.pathname = new URL(url).pathname;
    return d.toString();
}
/**
 * Refuses to start with a master key other than the one that encrypted the stored secrets:
 * a wrong key would otherwise only show up later as undecryptable certificates.
 */
async function checkMasterKey(prisma, secrets) {
    const row = await prisma.setting.findUnique({ where: { key: 'master_key_check' } });
    if (!row) {
        await prisma.setting
            .create({ data: { key: 'master_key_check', value: new Uint8Array(secrets.seal('timbre')) } })
            .catch((e) => {
            if (!isUniqueViolation(e))
                throw e;
        });
        return;
    }
    try {
        secrets.open(Buffer.from(row.value));
    }
    catch {
        throw new Error('The master key does not match the one this database was encrypted with (TIMBRE_MASTER_KEY).');
    }
}
export function isUniqueViolation(e) {
    return e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002';
}
