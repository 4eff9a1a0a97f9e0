/**
 * The real server (`src/server.ts`) as a child process, for tests that kill it. It listens on
 * a port the OS picks (PORT=0: no port is freed first and then hoped to be still free); the
 * port is read from its "listening" log line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
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
