/**
 * Applies the committed Prisma migrations (prisma/migrations/<name>/migration.sql) at start,
 * without the Prisma CLI (its native schema engine is a download from
 * binaries.prisma.sh, which an offline or locked-down machine cannot reach). History is recorded in Prisma's own `_prisma_migrations` table with the same checksum
 * (SHA-256 of the file) so that `prisma migrate deploy` and `migrate status` keep working
 * for operators. A Postgres advisory lock serialises concurrent starts of several instances.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'prisma', 'migrations');
const LOCK_ID = 727_466_100; // arbitrary constant shared by every Timbre instance
export async function applyMigrations(url, dir = MIGRATIONS_DIR) {
    const names = existsSync(dir)
        ? readdirSync(dir, { withFileTypes: true })
            .filter((d) => d.isDirectory())
            .map((d) => d.name)
            .sort()
        : [];
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const applied = [];
    try {
        await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
        await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
        const done = await client.query('SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL');
        const doneNames = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
        for (const name of names) {
            const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
            const checksum = createHash('sha256').update(sql).digest('hex');
            const previous = doneNames.get(name);
            if (previous !== undefined) {
                if (previous !== checksum) {
                    throw new Error(`Migration ${name} was modified after it was applied (checksum mismatch). Restore it.`);
                }
                continue;
            }
            await client.query('BEGIN');
            try {
                await client.query(sql);
                await client.query(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
           VALUES ($1, $2, now(), $3, 1, now())`, [randomUUID(), checksum, name]);
                await client.query('COMMIT');
            }
            catch (e) {
                await client.query('ROLLBACK');
                throw new Error(`Migration ${name} failed: ${e.message}`);
            }
            applied.push(name);
        }
    }
    finally {
        await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => { });
        await client.end();
    }
    return { applied };
}
