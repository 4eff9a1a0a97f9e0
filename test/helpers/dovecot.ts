/**
 * A real IMAP server for the mailbox tests: Debian's Dovecot (`dovecot-imapd`, installed by
 * .ci/run) started with a throwaway configuration in a temporary directory — its own base_dir,
 * users from a static passwd-file (plain passwords), maildirs under the directory, plain IMAP on
 * a free loopback port, no TLS — in the foreground (`-F`) as a child process, stopped after.
 * Stopping and starting again keeps the mail (the "mailbox is down" test).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const DOVECOT = '/usr/sbin/dovecot';

export interface Dovecot {
  host: string;
  port: number;
  user: string;
  password: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The uid/gid Dovecot runs mail processes as: its own user as root (it refuses uid 0), else ours. */
function mailOwner(): { user: string; uid: number; gid: number } {
  const me = userInfo();
  if (me.uid !== 0) return { user: me.username, uid: me.uid, gid: me.gid };
  const id = (flag: string) => Number(execFileSync('id', [flag, 'dovecot']).toString().trim());
  return { user: 'dovecot', uid: id('-u'), gid: id('-g') };
}

export async function startDovecot(): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), 'timbre-dovecot-'));
  chmodSync(dir, 0o755);
  const owner = mailOwner();
  const root = userInfo().uid === 0;
  for (const d of ['run', 'state', 'mail']) mkdirSync(join(dir, d));
  chownSync(join(dir, 'mail'), owner.uid, owner.gid);
  const port = await freePort();
  const user = 'dte@empresa.test';
  const password = 'secreto-de-prueba';
  writeFileSync(join(dir, 'users'), `${user}:{PLAIN}${password}::::::\n`);
  writeFileSync(
    join(dir, 'dovecot.conf'),
    [
      `base_dir = ${dir}/run`,
      `state_dir = ${dir}/state`,
      `log_path = ${dir}/log`,
      'protocols = imap',
      'listen = 127.0.0.1',
      'ssl = no',
      'disable_plaintext_auth = no',
      'auth_mechanisms = plain login',
      `first_valid_uid = ${owner.uid}`,
      `first_valid_gid = ${owner.gid}`,
      ...(root ? [] : [`default_login_user = ${owner.user}`, `default_internal_user = ${owner.user}`]),
      `mail_location = maildir:${dir}/mail/%u`,
      'passdb {',
      '  driver = passwd-file',
      `  args = scheme=PLAIN ${dir}/users`,
      '}',
      'userdb {',
      '  driver = passwd-file',
      `  args = ${dir}/users`,
      `  default_fields = uid=${owner.uid} gid=${owner.gid} home=${dir}/mail/%u`,
      '}',
      'service imap-login {',
      '  inet_listener imap {',
      `    port = ${port}`,
      '  }',
      '  inet_listener imaps {',
      '    port = 0',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  const server: Dovecot = {
    host: '127.0.0.1',
    port,
    user,
    password,
    async start() {
      if (child) return;
      const c = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore' });
      child = c;
      for (let i = 0; i < 100; i++) {
        if (await listening(port)) return;
        if (c.exitCode !== null) throw new Error(`dovecot exited with ${c.exitCode}; see ${dir}/log`);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`dovecot did not listen on ${port}; see ${dir}/log`);
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGTERM');
      await exited;
      // Its children (imap, auth) leave with it; wait until the port is free.
      for (let i = 0; i < 100 && (await listening(port)); i++) await new Promise((r) => setTimeout(r, 50));
    },
  };
  await server.start();
  process.once('exit', () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return server;
}
