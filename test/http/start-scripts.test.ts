/**
 * How the service is started, as the README says it (first lines, "Development",
 * "Configuration"): `npm start` compiles to `dist/` and runs it with plain Node and a 192 MB
 * old-generation heap; `npm run dev` runs the sources with tsx and restarts on changes; a `.env`
 * file in the directory the service starts from is read. Each runs the real commands as child
 * processes (in a process group of their own, killed in `finally` whatever happens) on this
 * file's database.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { configSchema } from '../../src/config.ts';
import { bearer, buildTestApp, createTestTenant, TEST_MASTER_KEY, type TestApp } from '../helpers/app.ts';
import { envWithoutSettings, type ServerProcess, startProcess } from '../helpers/server.ts';
import { waitFor } from '../helpers/time.ts';

const SETTINGS = Object.keys(configSchema.shape);
/** Real processes (initdb, tsc, tsx) on a machine that may be busy: generous, not a speed check. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

/** The settings a started service needs to run on this file's database, quietly. */
function serviceSettings(): Record<string, string> {
  return {
    DATABASE_URL: t.db.url,
    TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
    TIMBRE_DATA_DIR: t.config.dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    TIMBRE_DEMO: 'false',
    JOBS_ENABLED: 'false',
    LOG_LEVEL: 'info',
  };
}

/** The processes of a process group, with their command lines. */
function groupMembers(pgid: number): Array<{ pid: number; argv: string[] }> {
  const found: Array<{ pid: number; argv: string[] }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      found.push({ pid: Number(name), argv });
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

async function withService(start: () => Promise<ServerProcess>, use: (s: ServerProcess) => Promise<void>) {
  const s = await start();
  try {
    await use(s);
  } finally {
    await s.stop();
  }
}

it(
  'npm start compiles to dist/ and runs it with plain node, --max-old-space-size=192 and MALLOC_ARENA_MAX=2',
  async () => {
    const env = envWithoutSettings(SETTINGS, serviceSettings());
    await withService(
      () => startProcess('npm', ['start'], { env, timeoutMs: 180_000 }),
      async (s) => {
        const node = groupMembers(s.proc.pid as number).find((p) => p.argv.includes('dist/server.js'));
        expect(node, JSON.stringify(groupMembers(s.proc.pid as number))).toBeDefined();
        // Plain node (no TypeScript loader), with the heap flag before the script.
        expect(node!.argv.slice(1)).toEqual(['--max-old-space-size=192', 'dist/server.js']);
        expect(node!.argv.join(' ')).not.toMatch(/tsx/);
        // Two malloc arenas instead of one per thread: ~40 MB less resident under load (README).
        const environ = readFileSync(`/proc/${node!.pid}/environ`, 'utf8').split('\0');
        expect(environ).toContain('MALLOC_ARENA_MAX=2');
        expect((await fetch(`${s.url}/health`)).status).toBe(200);
        const { rut, key } = await createTestTenant(t, { role: 'viewer' });
        const res = await fetch(`${s.url}/api/${rut}/emisiones`, { headers: bearer(key) });
        expect(res.status).toBe(200);
      },
    );
  },
  PROCESS_TEST_TIMEOUT_MS,
);

it(
  'npm run dev runs the sources with tsx and restarts on a change',
  async () => {
    const env = envWithoutSettings(SETTINGS, serviceSettings());
    await withService(
      () => startProcess('npm', ['run', 'dev'], { env, timeoutMs: 180_000 }),
      async (s) => {
        const members = groupMembers(s.proc.pid as number);
        expect(
          members.some((p) => p.argv.some((a) => a.endsWith('src/server.ts'))),
          JSON.stringify(members),
        ).toBe(true);
        expect(members.some((p) => p.argv.some((a) => a.includes('tsx')))).toBe(true);
        const listening = () => s.output().match(/listening at http:\/\/127\.0\.0\.1:\d+/g)?.length ?? 0;
        expect(listening()).toBe(1);
        // A change to a source file (its modification time; the contents stay as they are).
        const now = new Date();
        utimesSync('src/server.ts', now, now);
        await waitFor(() => listening() >= 2, { timeoutMs: 120_000, what: 'the restart after a change' });
        const port = Number([...s.output().matchAll(/listening at http:\/\/127\.0\.0\.1:(\d+)/g)].at(-1)?.[1]);
        await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, {
          timeoutMs: 60_000,
          what: 'the restarted service healthy',
        });
      },
    );
  },
  PROCESS_TEST_TIMEOUT_MS,
);

it(
  'a .env file in the directory the service starts from is read; the environment wins over it',
  async () => {
    // A checkout of its own: the repository's parts linked into a fresh directory, with a .env.
    const dir = mkdtempSync(join(tmpdir(), 'timbre-dotenv-'));
    try {
      for (const part of ['node_modules', 'src', 'resources', 'prisma', 'package.json', 'tsconfig.json']) {
        symlinkSync(resolve(part), join(dir, part));
      }
      const settings = { ...serviceSettings(), PUBLIC_BASE_URL: 'http://from-dotenv.test', RATE_LIMIT_PER_MINUTE: '7' };
      const lines = Object.entries({ ...settings, LOG_LEVEL: 'silent' }).map(([k, v]) => `${k}=${v}`);
      writeFileSync(join(dir, '.env'), `# written by start-scripts.test.ts\n${lines.join('\n')}\n`);
      // Only LOG_LEVEL comes from the environment (and must win: with .env's "silent" the
      // service would never log that it listens).
      const env = envWithoutSettings(SETTINGS, { LOG_LEVEL: 'info' });
      await withService(
        () => startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: dir, env }),
        async (s) => {
          const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { servers: Array<{ url: string }> };
          expect(doc.servers[0]?.url).toBe('http://from-dotenv.test');
          const { rut, key } = await createTestTenant(t, { role: 'viewer' });
          const res = await fetch(`${s.url}/api/${rut}/emisiones`, { headers: bearer(key) });
          expect(res.status).toBe(200);
          expect(res.headers.get('ratelimit-limit')).toBe('7');
          // Not a terminal: the logs are JSON lines, one object per line (README, "Development").
          const lines = s.output().trim().split('\n');
          expect(lines.length).toBeGreaterThan(1);
          for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  PROCESS_TEST_TIMEOUT_MS,
);
