/**
 * `npm run db:migration -- <name>` (scripts/migrate-wasm.mjs): on the committed schema it finds
 * nothing to write (the migrations are the schema), and after a schema change it writes the
 * next migration folder with the SQL of the change. Run on a copy of `prisma/`, so the
 * repository's own migrations are never touched.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const script = resolve('scripts/migrate-wasm.mjs');
const work = mkdtempSync(join(tmpdir(), 'timbre-db-migration-'));
cpSync(resolve('prisma'), join(work, 'prisma'), { recursive: true });

afterAll(() => rmSync(work, { recursive: true, force: true }));

const migrations = () => readdirSync(join(work, 'prisma/migrations')).filter((n) => /^\d{14}_/.test(n));

it('finds no change on the committed schema, and writes the next migration after one', async () => {
  const before = migrations();
  const same = await run(process.execPath, [script, 'dev', 'nothing'], { cwd: work, timeout: 120_000 });
  expect(same.stdout).toContain('No schema changes.');
  expect(migrations()).toEqual(before);

  const schemaFile = join(work, 'prisma/schema.prisma');
  const schema = readFileSync(schemaFile, 'utf8');
  const changed = schema.replace('model Setting {\n', 'model Setting {\n  note      String?\n');
  expect(changed).not.toBe(schema);
  writeFileSync(schemaFile, changed);
  const next = await run(process.execPath, [script, 'dev', 'setting_note'], { cwd: work, timeout: 120_000 });
  expect(next.stdout).toContain('created');
  const added = migrations().filter((n) => !before.includes(n));
  expect(added).toHaveLength(1);
  expect(added[0]).toMatch(/^\d{14}_setting_note$/);
  expect(added[0]! > before.sort().at(-1)!).toBe(true);
  const sql = readFileSync(join(work, 'prisma/migrations', added[0]!, 'migration.sql'), 'utf8');
  expect(sql).toMatch(/ALTER TABLE "settings" ADD COLUMN\s+"note" TEXT/);
}, 300_000);
