/**
 * CPU time read from /proc (Linux): what a process, or PostgreSQL with all its backends, has
 * used so far. The bench takes a reading before and after a timed run and divides the
 * difference by the documents issued, so the figure counts every process that worked for them,
 * whatever else the machine was doing (unlike a throughput, which a busy machine lowers).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux build in use). */
const TICKS_PER_SECOND = 100;

interface ProcTimes {
  ppid: number;
  /** utime + stime of the process itself, in ms. */
  own: number;
  /** cutime + cstime: children it has waited for (exited backends, for the postmaster). */
  children: number;
}

function procTimes(pid: number): ProcTimes | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const n = (i: number) => Number(fields[i - 3]);
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return { ppid: n(4), own: ms(n(14) + n(15)), children: ms(n(16) + n(17)) };
}

/** CPU ms used so far by one process (its threads included). */
export function processCpuMs(pid: number): number {
  return procTimes(pid)?.own ?? 0;
}

/** The postmaster of the embedded cluster under `dataDir` (src/db/embedded.ts), if running here. */
export function embeddedPostmasterPid(dataDir: string): number | null {
  const state = join(dataDir, 'postgres.json');
  if (!existsSync(state)) return null;
  const { clusterDir } = JSON.parse(readFileSync(state, 'utf8')) as { clusterDir: string };
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * CPU ms used so far by a PostgreSQL server, split: `backends` are the live client connections (what runs the statements, their
 * commits included), `background` everything else — the postmaster, the WAL writer, checkpointer,
 * background writer, I/O workers, autovacuum, and children that already exited.
 */
export function postgresCpuSplit(postmasterPid: number): { backends: number; background: number } {
  const root = procTimes(postmasterPid);
  if (!root) return { backends: 0, background: 0 };
  const split = { backends: 0, background: root.own + root.children };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const t = procTimes(Number(entry));
    if (!t || t.ppid !== postmasterPid) continue;
    // A backend's process title: "postgres: <user> <database> <host>(<port>) <state>".
    let title = '';
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {}
    if (/\(\d+\)/.test(title)) split.backends += t.own;
    else split.background += t.own;
  }
  return split;
}

/** CPU ms of one process split by thread and by mode: what its main thread did, and the rest. */
export interface ThreadSplit {
  /** The main thread (the event loop): user and system (kernel) time. */
  main: { user: number; system: number };
  /** Every other thread: the signing workers, libuv's pool, V8's GC and compiler helpers. */
  others: { user: number; system: number };
}

/**
 * The split of a live process's CPU by thread (/proc/PID/task): the thread whose id is the
 * process id is the main thread. Threads that already exited are not counted (the signing
 * workers live as long as the process).
 */
export function threadSplit(pid: number): ThreadSplit {
  const split: ThreadSplit = { main: { user: 0, system: 0 }, others: { user: 0, system: 0 } };
  for (const [tid, t] of taskTimes(pid)) {
    const part = tid === pid ? split.main : split.others;
    part.user += t.user;
    part.system += t.system;
  }
  return split;
}

/** User and system CPU ms of each live thread of a process (/proc/PID/task), by thread id. */
function taskTimes(pid: number): Map<number, { user: number; system: number }> {
  const times = new Map<number, { user: number; system: number }>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return times;
  }
  for (const tid of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    times.set(Number(tid), {
      user: (Number(fields[14 - 3]) * 1000) / TICKS_PER_SECOND,
      system: (Number(fields[15 - 3]) * 1000) / TICKS_PER_SECOND,
    });
  }
  return times;
}

/** `after - before`, per document. */
export function splitPerDoc(before: ThreadSplit, after: ThreadSplit, docs: number): ThreadSplit {
  const d = (a: number, b: number) => (a - b) / docs;
  return {
    main: { user: d(after.main.user, before.main.user), system: d(after.main.system, before.main.system) },
    others: { user: d(after.others.user, before.others.user), system: d(after.others.system, before.others.system) },
  };
}

/** Splits added up (several instances). */
export function sumSplits(splits: ThreadSplit[]): ThreadSplit {
  const sum: ThreadSplit = { main: { user: 0, system: 0 }, others: { user: 0, system: 0 } };
  for (const s of splits) {
    sum.main.user += s.main.user;
    sum.main.system += s.main.system;
    sum.others.user += s.others.user;
    sum.others.system += s.others.system;
  }
  return sum;
}

/** CPU ms used so far by each live thread of a process (user + system), by thread id. */
export function threadTimes(pid: number): Map<number, number> {
  return new Map([...taskTimes(pid)].map(([tid, t]) => [tid, t.user + t.system]));
}

/** The name of each live thread of a process (/proc/PID/task/TID/comm: "node", "V8 Worker", "libuv-worker"…). */
export function threadNames(pid: number): Map<number, string> {
  const names = new Map<number, string>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return names;
  }
  for (const tid of tasks) {
    try {
      names.set(Number(tid), readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim());
    } catch {}
  }
  return names;
}
