/**
 * Writes that commit together: each caller's statement is its own unit of work (it writes
 * everything it writes or nothing), and statements that wait while a commit is in flight are
 * run in one transaction by the next turn, so several writes share one commit, one WAL flush.
 *
 * Why: a commit waits for its WAL to reach the disk, and every commit pays its own flush,
 * commit record and round trip. On the issuing path every document commits once; under load
 * PostgreSQL's own group commit merged few of those flushes (0.6–1.0 flushes per document,
 * BENCHMARKS.md), each a wait for the disk (p99 14 ms on this machine, up to 158 ms) and CPU
 * for the backend and the WAL writer. One caller alone is served at once by its own statement,
 * as before; only callers that would have waited anyway are grouped.
 *
 * What a caller is promised does not change: its statement's rows are written and committed
 * (durably: `synchronous_commit` stays on) before its promise resolves, with its own row count.
 * A statement that fails inside a group fails the group's transaction; nothing of it committed,
 * so every statement of that group runs again on its own, and only the failing one's caller
 * sees its error. A failed COMMIT is reported to every caller of the group as it is: like a
 * lost connection during a lone statement, nobody can tell whether it committed.
 */
import type pg from 'pg';

/** At most this many statements per transaction: one turn never holds a connection long. */
const MAX_PER_COMMIT = 16;

interface Pending {
  query: pg.QueryConfig;
  resolve(rowCount: number): void;
  reject(err: unknown): void;
}

interface Queue {
  waiting: Pending[];
  running: boolean;
}

const queues = new WeakMap<pg.Pool, Queue>();

/** Runs `query` (one statement, its own unit of work) and resolves with its row count once committed. */
export function commitTogether(pool: pg.Pool, query: pg.QueryConfig): Promise<number> {
  let queue = queues.get(pool);
  if (!queue) {
    queue = { waiting: [], running: false };
    queues.set(pool, queue);
  }
  const done = new Promise<number>((resolve, reject) => queue.waiting.push({ query, resolve, reject }));
  if (!queue.running) void drain(pool, queue);
  return done;
}

async function drain(pool: pg.Pool, queue: Queue): Promise<void> {
  queue.running = true;
  while (queue.waiting.length > 0) {
    const group = queue.waiting.splice(0, MAX_PER_COMMIT);
    if (group.length === 1) await alone(pool, group[0]!);
    else await together(pool, group);
  }
  queue.running = false;
}

/** One statement, one implicit transaction: exactly what the caller would have run itself. */
async function alone(pool: pg.Pool, p: Pending): Promise<void> {
  try {
    const { rowCount } = await pool.query(p.query);
    p.resolve(rowCount ?? 0);
  } catch (err) {
    p.reject(err);
  }
}

async function together(pool: pg.Pool, group: Pending[]): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    for (const p of group) p.reject(err);
    return;
  }
  const counts: number[] = [];
  let failed = false;
  try {
    await client.query('BEGIN');
    for (const p of group) counts.push((await client.query(p.query)).rowCount ?? 0);
  } catch {
    failed = true;
  }
  if (failed) {
    // Nothing of the group committed: each statement again on its own, so only a statement
    // that fails by itself fails its caller.
    await client.query('ROLLBACK').then(
      () => client.release(),
      (err: Error) => client.release(err),
    );
    await Promise.all(group.map((p) => alone(pool, p)));
    return;
  }
  try {
    await client.query('COMMIT');
    client.release();
  } catch (err) {
    client.release(err as Error);
    for (const p of group) p.reject(err);
    return;
  }
  for (const [i, p] of group.entries()) p.resolve(counts[i]!);
}
