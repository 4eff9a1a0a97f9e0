/**
 * The embedded PostgreSQL between real processes (README, "The embedded PostgreSQL" and
 * "Operator CLI"): a server left behind by a killed service is detected and reused by the next
 * start, and the CLI reaches the same database while the service runs without pulling it from
 * under the service. Every test starts real `src/server.ts` / `src/cli.ts` processes with no
 * DATABASE_URL, on a data directory of its own (mode 0755, so that as root the `postgres` user
 * can keep its cluster inside it; when it cannot, the cleanup removes the cluster where it went).
 * Whatever happens, `finally` stops the processes, then the PostgreSQL server, then removes the files.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { configSchema } from '../../src/config.ts';
import { bearer } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { envWithoutSettings, type ServerProcess, startProcess } from '../helpers/server.ts';
import { waitFor } from '../helpers/time.ts';

const SETTINGS = Object.keys(configSchema.shape);
/** Real processes (initdb, tsc, tsx) on a machine that may be busy: generous, not a speed check. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Where `dataDir`'s cluster is, as recorded in its postgres.json. */
function clusterDirOf(dataDir: string): string | null {
  const state = join(dataDir, 'postgres.json');
  if (!existsSync(state)) return null;
  return (JSON.parse(readFileSync(state, 'utf8')) as { clusterDir: string }).clusterDir;
}

/** The pid of the PostgreSQL server running on `dataDir`'s cluster, if any. */
function postgresPid(dataDir: string): number | null {
  const clusterDir = clusterDirOf(dataDir);
  if (!clusterDir) return null;
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return pid && alive(pid) ? pid : null;
}

/** Cleanups not yet run (a test that timed out may not have reached its `finally`). */
const pendingCleanups = new Set<() => Promise<void>>();
afterAll(async () => {
  for (const cleanup of [...pendingCleanups]) await cleanup();
});

/** A data directory, the environment of a zero-setup start on it, and the cleanup of both. */
function zeroSetup(extra: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'timbre-zero-'));
  chmodSync(dir, 0o755);
  const env = envWithoutSettings(SETTINGS, {
    TIMBRE_DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: '0',
    JOBS_ENABLED: 'false',
    LOG_LEVEL: 'info',
    ...extra,
  });
  const servers: ServerProcess[] = [];
  const cleanup = async () => {
    pendingCleanups.delete(cleanup);
    const cluster = clusterDirOf(dir);
    for (const s of servers) await s.kill();
    const pid = postgresPid(dir);
    if (pid) {
      process.kill(pid, 'SIGINT');
      await waitFor(() => !alive(pid), { timeoutMs: 30_000, what: `PostgreSQL ${pid} to stop` }).catch(() =>
        process.kill(pid, 'SIGKILL'),
      );
    }
    // As root with a data directory the postgres user cannot reach, the cluster lives in
    // /var/lib/timbre-pg/data-<hash>/pg (src/db/embedded.ts): remove that home too.
    if (cluster && !cluster.startsWith(`${dir}/`)) rmSync(dirname(cluster), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  pendingCleanups.add(cleanup);
  return {
    dir,
    env,
    async start(): Promise<ServerProcess> {
      const s = await startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env });
      servers.push(s);
      return s;
    },
    cleanup,
  };
}

/** `npm run cli -- …` as a separate process (node + tsx, as the npm script runs it). */
function cli(
  env: NodeJS.ProcessEnv,
  ...argv: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...argv], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += String(c);
    });
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

it(
  'a PostgreSQL left by a killed service is reused by the next start, which serves the same data',
  async () => {
    const z = zeroSetup({ TIMBRE_DEMO: 'true' });
    try {
      const first = await z.start();
      expect(first.output()).toMatch(/embedded PostgreSQL started on 127\.0\.0\.1:\d+/);
      const key = /Owner key\s+: (timbre_[0-9A-Za-z]{40})/.exec(
        await waitFor(() => (first.output().includes('Owner key') ? first.output() : null), { what: 'the banner' }),
      )?.[1];
      expect(key).toBeDefined();
      const issued = await fetch(`${first.url}/api/76086428-5/emitir`, {
        method: 'POST',
        headers: { ...bearer(key!), 'content-type': 'application/json' },
        body: JSON.stringify(factura()),
      });
      expect(issued.status).toBe(200);
      const { folio } = (await issued.json()) as { folio: number };
      const pg = postgresPid(z.dir);
      expect(pg).not.toBeNull();
      // How to reach it is recorded for the owner only (it holds the password).
      expect(statSync(join(z.dir, 'postgres.json')).mode & 0o777).toBe(0o600);

      // SIGKILL to the service alone, as the OOM killer or `kill -9` would: no shutdown runs.
      process.kill(first.proc.pid as number, 'SIGKILL');
      await waitFor(() => first.proc.exitCode !== null || first.proc.signalCode !== null, { what: 'the kill' });
      expect(alive(pg!)).toBe(true);

      const second = await z.start();
      expect(second.output()).toContain(`reusing embedded PostgreSQL (pid ${pg}`);
      expect(second.output()).not.toMatch(/embedded PostgreSQL started/);
      await waitFor(() => second.output().includes('already exists'), { what: 'the second-start notice' });
      const list = await fetch(`${second.url}/api/76086428-5/emisiones`, { headers: bearer(key!) });
      expect(list.status).toBe(200);
      expect(await list.json()).toMatchObject({ total: 1, data: [{ folio }] });

      // The last one out stops it.
      await second.stop();
      await waitFor(() => !alive(pg!), { timeoutMs: 30_000, what: 'PostgreSQL stopped by the last service' }).catch(
        (e: Error) => {
          // Why it stayed up is in the service's own log (src/db/embedded.ts says it).
          throw new Error(`${e.message}; the last service logged:\n${second.output().slice(-4000)}`);
        },
      );
    } finally {
      await z.cleanup();
    }
  },
  PROCESS_TEST_TIMEOUT_MS,
);

it(
  'the CLI works on the same embedded PostgreSQL while the service runs, and leaves it running',
  async () => {
    const z = zeroSetup({ TIMBRE_DEMO: 'false' });
    try {
      const service = await z.start();
      const pg = postgresPid(z.dir);
      expect(pg).not.toBeNull();

      const rut = '76354771-K';
      const created = await cli(
        z.env,
        ...['issuer', 'create', '--rut', rut, '--name', 'Mi Empresa SpA', '--giro', 'Servicios'],
        ...['--acteco', '620200', '--address', 'Av. Apoquindo 100', '--comuna', 'Las Condes', '--json'],
      );
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ rut });
      const keyed = await cli(z.env, 'key', 'create', '--rut', rut, '--role', 'owner', '--json');
      expect(keyed.code, keyed.stderr).toBe(0);
      const { key } = JSON.parse(keyed.stdout) as { key: string };
      // Both CLI runs reused the service's server and left it running.
      expect(`${created.stderr}${keyed.stderr}`).not.toMatch(/embedded PostgreSQL (started|stopped)/);
      expect(postgresPid(z.dir)).toBe(pg);

      // The running service sees what the CLI wrote, and still has its database.
      const issued = await fetch(`${service.url}/api/${rut}/emitir`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify(factura()),
      });
      expect(issued.status, await issued.clone().text()).toBe(200);
      const listed = await cli(z.env, 'issuer', 'list', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(rut);
      const after = await fetch(`${service.url}/api/${rut}/emisiones`, { headers: bearer(key) });
      expect(after.status).toBe(200);
      expect(await after.json()).toMatchObject({ total: 1 });
    } finally {
      await z.cleanup();
    }
  },
  PROCESS_TEST_TIMEOUT_MS,
);
