/**
 * "Migrations are applied at start without the Prisma CLI, recording Prisma's own
 * `_prisma_migrations` history, so `npx prisma migrate deploy` stays valid" (README): every
 * folder of prisma/migrations is recorded as finished, with the checksum Prisma computes (the
 * SHA-256 of migration.sql).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

it('every migration folder is recorded in _prisma_migrations, finished, with its checksum', async () => {
  const folders = readdirSync('prisma/migrations', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  expect(folders.length).toBeGreaterThan(0);
  const rows = await t.ctx.db.prisma.$queryRaw<
    { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }[]
  >`SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY migration_name`;
  expect(rows.map((r) => r.migration_name)).toEqual(folders);
  for (const r of rows) {
    expect(r.finished_at, r.migration_name).not.toBeNull();
    expect(r.rolled_back_at, r.migration_name).toBeNull();
    const sql = readFileSync(join('prisma/migrations', r.migration_name, 'migration.sql'));
    expect(r.checksum, r.migration_name).toBe(createHash('sha256').update(sql).digest('hex'));
  }
});
