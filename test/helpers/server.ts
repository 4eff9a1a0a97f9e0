/**
 * The real server (`src/server.ts`) as a child process, for tests that kill it. It listens on
 * a port the OS picks (PORT=0: no port is freed first and then hoped to be still free); the
 * port is read from its "listening" log line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll } from 'vitest';
import { TEST_MASTER_KEY, type TestApp } from './app.ts';
import { waitFor } from './time.ts';

export interface ServerProcess {
  proc: ChildProcess;
  port: number;
  url: string;
  /** Everything the server wrote on stdout so far (its log lines and the first-start banner). */
  output(): string;
  /** SIGKILL, as a crash: nothing is cleaned up. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/** Starts the server on `t`'s database and data directory, with `env` on top. */
export async function startServer(t: TestApp, env: Record<string, string> = {}): Promise<ServerProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: t.db.url,
      TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
      TIMBRE_DATA_DIR: t.config.dataDir,
      HOST: '127.0.0.1',
      TIMBRE_DEMO: 'false',
      JOBS_ENABLED: 'false',
      ...env,
      PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += String(chunk);
  };
  proc.stdout?.on('data', collect);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const port = await waitFor(
    () => {
      if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}): ${out.slice(-2000)}`);
      return Number(/listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    },
    { timeoutMs: 60_000, what: 'the server listening' },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/health`)).ok, { timeoutMs: 60_000, what: 'the server healthy' });
  const end = async (signal: NodeJS.Signals) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    await exited;
  };
  return { proc, port, url, output: () => out, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

/** Process trees started by `startProcess` and not yet ended: killed after the file's tests. */
const running = new Set<ServerProcess>();
afterAll(async () => {
  // A test that timed out may not have reached its own `finally` yet.
  for (const s of [...running]) await s.kill();
});

/**
 * Any command that ends up running the service (`npm start`, `npm run dev`, the server from
 * another directory), in a process group of its own so that `kill`/`stop` reach the whole tree
 * (npm → sh → node, tsx watch → node). `env` is the complete environment (nothing of the test's
 * own is added). Resolves once the service logs its port and answers /health; if it never does,
 * the tree is killed before the error is thrown.
 */
export async function startProcess(
  command: string,
  args: string[],
  opts: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ServerProcess> {
  const proc = spawn(command, args, {
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += String(chunk);
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-(proc.pid as number), signal);
    } catch {
      // the group is gone already
    }
  };
  let server: ServerProcess | undefined;
  const end = async (signal: NodeJS.Signals) => {
    if (server) running.delete(server);
    group(signal);
    await exited;
    // The group leader may exit before its children (npm does): wait for the whole group.
    await waitFor(
      () => {
        try {
          process.kill(-(proc.pid as number), 0);
          if (signal === 'SIGKILL') group('SIGKILL');
          return false;
        } catch {
          return true;
        }
      },
      { timeoutMs: 30_000, what: `process group ${proc.pid} to exit` },
    ).catch(() => group('SIGKILL'));
  };
  const timeoutMs = opts.timeoutMs ?? 120_000;
  try {
    const port = await waitFor(
      () => {
        if (proc.exitCode !== null) throw new Error(`${command} exited (${proc.exitCode}): ${out.slice(-2000)}`);
        return Number(/listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
      },
      { timeoutMs, what: `${command} ${args.join(' ')} listening` },
    );
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/health`)).ok, { timeoutMs, what: 'the service healthy' });
    server = { proc, port, url, output: () => out, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
    running.add(server);
    return server;
  } catch (e) {
    await end('SIGKILL');
    throw e;
  }
}

/**
 * The test process's environment without any of Timbre's settings (so a spawned service reads
 * only what the test gives it, through `extra` or a `.env`), plus `extra`.
 */
export function envWithoutSettings(keys: string[], extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of keys) delete env[k];
  return { ...env, ...extra };
}
