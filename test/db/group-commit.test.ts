/**
 * Writes that commit together (src/db/group-commit.ts): statements that wait while a commit is
 * in flight share the next transaction, each caller still gets its own row count, and a
 * statement that fails inside a group fails only its own caller.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { commitTogether } from '../../src/db/group-commit.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
  await t.ctx.db.pool.query(
    'CREATE TABLE group_commit_probe (run text, n int CHECK (n > 0), tx bigint DEFAULT txid_current())',
  );
});

const insert = (run: string, n: number) => ({
  text: 'INSERT INTO group_commit_probe (run, n) VALUES ($1, $2)',
  values: [run, n],
});

async function rowsOf(run: string): Promise<{ n: number; tx: string }[]> {
  const { rows } = await t.ctx.db.pool.query<{ n: number; tx: string }>(
    'SELECT n, tx::text FROM group_commit_probe WHERE run = $1 ORDER BY n',
    [run],
  );
  return rows;
}

describe('commitTogether', () => {
  it('serves a lone write at once, and the writes that waited meanwhile in one transaction', async () => {
    const counts = await Promise.all(
      Array.from({ length: 10 }, (_, i) => commitTogether(t.ctx.db.pool, insert('a', i + 1))),
    );
    expect(counts).toEqual(Array(10).fill(1));
    const rows = await rowsOf('a');
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The first ran alone; the nine that arrived while it committed shared one transaction.
    expect(new Set(rows.map((r) => r.tx)).size).toBe(2);
    expect(rows[0]!.tx).not.toBe(rows[1]!.tx);
  });

  it('a statement that fails inside a group fails its caller only; the others are written', async () => {
    const outcomes = await Promise.allSettled(
      [1, 2, -3, 4, 5].map((n) => commitTogether(t.ctx.db.pool, insert('b', n))),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/check constraint/);
    expect((await rowsOf('b')).map((r) => r.n)).toEqual([1, 2, 4, 5]);
  });

  it('each caller gets its own row count', async () => {
    await Promise.all([1, 2, 3].map((n) => commitTogether(t.ctx.db.pool, insert('c', n))));
    const counts = await Promise.all([
      commitTogether(t.ctx.db.pool, { text: "UPDATE group_commit_probe SET n = n WHERE run = 'c' AND n = 2" }),
      commitTogether(t.ctx.db.pool, { text: "UPDATE group_commit_probe SET n = n WHERE run = 'nobody'" }),
      commitTogether(t.ctx.db.pool, { text: "UPDATE group_commit_probe SET n = n WHERE run = 'c'" }),
    ]);
    expect(counts).toEqual([1, 0, 3]);
  });
});
