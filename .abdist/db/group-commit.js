/** At most this many statements per transaction: one turn never holds a connection long. */
const MAX_PER_COMMIT = 16;
const queues = new WeakMap();
/** Runs `query` (one statement, its own unit of work) and resolves with its row count once committed. */
export function commitTogether(pool, query) {
    let queue = queues.get(pool);
    if (!queue) {
        queue = { waiting: [], running: false };
        queues.set(pool, queue);
    }
    const done = new Promise((resolve, reject) => queue.waiting.push({ query, resolve, reject }));
    if (!queue.running)
        void drain(pool, queue);
    return done;
}
async function drain(pool, queue) {
    queue.running = true;
    while (queue.waiting.length > 0) {
        const group = queue.waiting.splice(0, MAX_PER_COMMIT);
        if (group.length === 1)
            await alone(pool, group[0]);
        else
            await together(pool, group);
    }
    queue.running = false;
}
/** One statement, one implicit transaction: exactly what the caller would have run itself. */
async function alone(pool, p) {
    try {
        const { rowCount } = await pool.query(p.query);
        p.resolve(rowCount ?? 0);
    }
    catch (err) {
        p.reject(err);
    }
}
async function together(pool, group) {
    let client;
    try {
        client = await pool.connect();
    }
    catch (err) {
        for (const p of group)
            p.reject(err);
        return;
    }
    const counts = [];
    let failed = false;
    try {
        await client.query('BEGIN');
        for (const p of group)
            counts.push((await client.query(p.query)).rowCount ?? 0);
    }
    catch {
        failed = true;
    }
    if (failed) {
        // Nothing of the group committed: each statement again on its own, so only a statement
        // that fails by itself fails its caller.
        await client.query('ROLLBACK').then(() => client.release(), (err) => client.release(err));
        await Promise.all(group.map((p) => alone(pool, p)));
        return;
    }
    try {
        await client.query('COMMIT');
        client.release();
    }
    catch (err) {
        client.release(err);
        for (const p of group)
            p.reject(err);
        return;
    }
    for (const [i, p] of group.entries())
        p.resolve(counts[i]);
}
