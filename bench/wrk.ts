/**
 * The issuing rows' load generator from outside the bench process: wrk (a C load generator,
 * Debian package `wrk`), so that what drives the load takes as little as possible of the 2 cores
 * the server is measured on (node:http inside the bench process spent 0.3–0.5 ms of CPU per
 * document). One wrk process per row, driven by a generated Lua script:
 *
 * - **A fixed number of documents per row, from one shared queue**, as the node:http client
 *   did, not a duration: every connection is its own wrk thread, and before each request its
 *   `delay` hook takes the next document from a counter the threads share (a C struct with a
 *   pthread mutex, through LuaJIT's FFI; wrk gives each thread its own Lua state). A thread that
 *   finds the queue empty has had all its answers: it stops. When every thread has stopped, the
 *   bench interrupts wrk (SIGINT) and its `done` hook prints what the threads measured. So no
 *   request is sent beyond the row's count, and a connection that is done early does not leave
 *   the others with its share.
 * - **Two instances from the same wrk process**: thread i connects to instance i mod 2
 *   (`thread.addr`, set in `setup`), so each instance gets half the connections, and both take
 *   from the one queue, as a client whose connections stick to one backend each would.
 * - **Latency of every request, timed in Lua.** wrk's own histogram is "corrected" for
 *   coordinated omission (it adds made-up samples for every latency over twice the mean), so its
 *   percentiles are not those of the requests sent. With one connection per thread, a thread's
 *   `request` and `response` hooks belong to the same request: each reads CLOCK_MONOTONIC, and
 *   p50 and p99 are those of all the samples of all threads. The rate is the documents over the
 *   time from the first request sent to the last answer.
 * - **Failures**: an answer is a document only if it is a 200 carrying a folio (the Lua hook
 *   reads the status and the folio, as the node:http client did); socket errors (connect, read,
 *   write: a request without an answer) count as failures too. wrk's own "timeout" count does
 *   not: it counts answers slower than its histogram's 2 s limit, which did arrive.
 * - **Duplicate folios** over every answer.
 * - **The load generator's CPU**: the wrk process's user + system time from /proc, read when
 *   its last thread stopped (before the `done` hook prints the samples).
 *
 * What that costs (2026-11-27, 3000 requests at concurrency 16 against a stand-in server that
 * answers after 50 ms, ~300 requests/s): wrk with this script 0.08–0.09 ms of CPU per request,
 * node:http 0.29–0.40; plain wrk with a static request and no hooks 0.04 (16 threads) or 0.02 ms
 * (1 thread). A thread per connection and the Lua hooks are the price of exact counts and of
 * each request's own latency.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processCpuMs } from './cpu.ts';
import { load, percentile, tenLineFactura } from './harness.ts';

/** What one issuing row's load produced, whichever client drove it. */
export interface LoadResult {
  docsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
  firstFailure: string | undefined;
  duplicates: number;
  /** CPU ms the load generator spent per document, on the same cores as the server. */
  clientMsPerDoc: number;
  /** Where the answers' time went, from their Server-Timing (wrk only; null when none said). */
  stages?: StageSplit | null;
}

const STAGE_NAMES = ['folio', 'sign', 'store'] as const;
type StageName = (typeof STAGE_NAMES)[number];
/** Milliseconds per stage; `rest` is the latency the stages do not account for (HTTP, validation, queues). */
export type StageMs = Record<StageName | 'rest', number>;

/** The stage split of one row's answers. */
export interface StageSplit {
  /** The median of each stage, over all answers. */
  p50: StageMs;
  /** The slowest 1 % of the answers by latency: their mean latency, and its mean split by stage. */
  slowest: StageMs & { latency: number };
}

/** The load generator of the issuing rows: `wrk`, or node:http inside the bench process. */
export interface LoadGenerator {
  name: 'wrk' | 'node';
  /** What the report says drove the load. */
  description: string;
  /** Issues `docs` facturas over `concurrency` connections spread over the ports. */
  run(ports: number[], key: string, rut: string, docs: number, concurrency: number): Promise<LoadResult>;
}

/** What one wrk thread (one connection) reported in the `done` hook. */
interface ThreadReport {
  /** CLOCK_MONOTONIC µs when its first request was sent and its last answer read (0: none). */
  start: number;
  end: number;
  latencies: number[];
  /** Per answer, in the order of `latencies`: its Server-Timing stages in ms (-1: not named). */
  stages: Record<StageName, number[]>;
  folios: number[];
  failures: number;
  firstFailure: string | null;
}

/** What the wrk process reported: each thread, and its socket errors (connect, read, write). */
interface WrkReport {
  threads: ThreadReport[];
  socketErrors: number;
}

/** `wrk` on the PATH? (`wrk --version` exits 1 after printing its usage: only ENOENT says no.) */
function wrkInstalled(): boolean {
  const r = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  return !(r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT');
}

/**
 * BENCH_LOAD=wrk requires wrk, BENCH_LOAD=node forces the bench's own node:http client;
 * unset: wrk when it is installed.
 */
export function loadGenerator(choice = process.env.BENCH_LOAD): LoadGenerator {
  if (choice !== undefined && choice !== '' && choice !== 'wrk' && choice !== 'node') {
    throw new Error(`BENCH_LOAD must be "wrk" or "node", not "${choice}"`);
  }
  const useWrk = choice === 'wrk' || (choice !== 'node' && wrkInstalled());
  if (useWrk && !wrkInstalled()) throw new Error('BENCH_LOAD=wrk but wrk is not on the PATH (apt-get install wrk)');
  return useWrk ? WRK : NODE_HTTP;
}

const WRK: LoadGenerator = {
  name: 'wrk',
  description:
    "wrk (C, a process of its own started by the bench: one keep-alive connection per wrk thread, the connections taking the row's documents from one shared queue, every request timed in wrk's Lua hooks; with two instances, half the connections to each; bench/wrk.ts)",
  run: wrkLoad,
};

const NODE_HTTP: LoadGenerator = {
  name: 'node',
  description: 'the bench process itself (node:http with keep-alive connections)',
  async run(ports, key, rut, docs, concurrency) {
    const c0 = process.cpuUsage();
    const r = await load(ports, key, rut, docs, concurrency);
    const c = process.cpuUsage(c0);
    return { ...r, clientMsPerDoc: (c.user + c.system) / 1000 / docs };
  },
};

/** A Lua string literal of any text (decimal escapes: no quoting rule to get wrong). */
function luaString(s: string): string {
  return `"${[...Buffer.from(s, 'utf8')].map((b) => `\\${b}`).join('')}"`;
}

/**
 * The wrk script of one row: `docs` requests from one queue shared by the threads (one
 * connection each), thread i to `ports[i mod ports.length]`. Marker lines on standard output:
 * `BENCH-DONE` when a thread stops, then from `done` one `BENCH-THREAD <json>` per thread and
 * `BENCH-ERRORS <connect> <read> <write>`.
 */
function wrkScript(docs: number, ports: number[], path: string, headers: Record<string, string>, body: string) {
  const headerLines = Object.entries(headers)
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join('\n');
  return `-- Generated by bench/wrk.ts: ${docs} requests, one connection per thread, one shared queue.
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock_id, bench_timespec *tp);
typedef struct { char mutex[128]; int taken; } bench_queue;
int pthread_mutex_init(void *mutex, const void *attr);
int pthread_mutex_lock(void *mutex);
int pthread_mutex_unlock(void *mutex);
void *calloc(size_t count, size_t size);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("bench_timespec")
local function now_us()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) * 1000000 + tonumber(ts.tv_nsec) / 1000
end

wrk.method = "POST"
wrk.path = ${luaString(path)}
wrk.body = ${luaString(body)}
${headerLines}

local DOCS = ${docs}
local PORTS = { ${ports.map((p) => luaString(String(p))).join(', ')} }

-- Main state. The queue lives in C memory (never freed: wrk exits after the row), so that
-- every thread's Lua state can reach it by its address.
-- (Its address reaches each thread as the global queue_address: not a local of this chunk,
-- which every thread state runs too, and whose local would hide the global.)
local threads, shared_queue = {}, nil
function setup(thread)
  if not shared_queue then
    shared_queue = ffi.cast("bench_queue *", ffi.C.calloc(1, ffi.sizeof("bench_queue")))
    ffi.C.pthread_mutex_init(shared_queue.mutex, nil)
  end
  local port = PORTS[(#threads % #PORTS) + 1]
  thread.addr = wrk.lookup("127.0.0.1", port)[1]
  thread:set("queue_address", tonumber(ffi.cast("uintptr_t", shared_queue)))
  table.insert(threads, thread)
end

-- Thread states: one connection each, so a response answers the last request sent.
local queue, req, sent_at
latencies, folios, failures, first_failure, first_start, last_end = {}, {}, 0, nil, nil, nil
-- One list per stage (<name>_ms): wrk copies a thread's flat tables, not nested ones.
STAGES = { ${STAGE_NAMES.map(luaString).join(', ')} }
for _, name in ipairs(STAGES) do _G[name .. "_ms"] = {} end

function init(args)
  queue = ffi.cast("bench_queue *", queue_address)
  req = wrk.format()
end

-- Called before each request: take the next document, or stop (every answer is in).
function delay()
  ffi.C.pthread_mutex_lock(queue.mutex)
  local mine = queue.taken < DOCS
  if mine then queue.taken = queue.taken + 1 end
  ffi.C.pthread_mutex_unlock(queue.mutex)
  if mine then return 0 end
  io.write("BENCH-DONE\\n")
  io.flush()
  wrk.thread:stop()
  return 3600000
end

function request()
  sent_at = now_us()
  return req
end

-- The stages the answer's Server-Timing names (src/http/server-timing.ts); -1 when absent.
local function stage(timing, name)
  local ms = timing and timing:match(name .. ";dur=([%d.]+)")
  return ms and tonumber(ms) or -1
end

function response(status, headers, body)
  local t = now_us()
  latencies[#latencies + 1] = (t - sent_at) / 1000
  local timing = headers["Server-Timing"] or headers["server-timing"]
  for _, name in ipairs(STAGES) do
    local list = _G[name .. "_ms"]
    list[#list + 1] = stage(timing, name)
  end
  first_start = first_start or sent_at
  last_end = t
  local folio = status == 200 and body:match('"folio"%s*:%s*(%d+)')
  if folio then
    folios[#folios + 1] = tonumber(folio)
  else
    failures = failures + 1
    first_failure = first_failure or (status .. " " .. body:sub(1, 300))
  end
end

local function json_string(s)
  return '"' .. (s:gsub('[%c"\\\\]', function(c) return string.format("\\\\u%04x", c:byte()) end)) .. '"'
end

local function json_numbers(xs, format)
  local out = {}
  for i, x in ipairs(xs) do out[i] = string.format(format, x) end
  return "[" .. table.concat(out, ",") .. "]"
end

local function json_stages(thread)
  local out = {}
  for _, name in ipairs(STAGES) do
    out[#out + 1] = json_string(name) .. ":" .. json_numbers(thread:get(name .. "_ms"), "%.1f")
  end
  return "{" .. table.concat(out, ",") .. "}"
end

function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    local ff = t:get("first_failure")
    io.write("BENCH-THREAD {",
      '"start":', string.format("%.0f", t:get("first_start") or 0),
      ',"end":', string.format("%.0f", t:get("last_end") or 0),
      ',"failures":', t:get("failures"),
      ',"firstFailure":', ff and json_string(ff) or "null",
      ',"latencies":', json_numbers(t:get("latencies"), "%.3f"),
      ',"stages":', json_stages(t),
      ',"folios":', json_numbers(t:get("folios"), "%d"),
      "}\\n")
  end
  io.write(string.format("BENCH-ERRORS %d %d %d\\n", summary.errors.connect, summary.errors.read, summary.errors.write))
  -- wrk's own histogram, corrected for coordinated omission: printed for comparison only.
  io.write(string.format("BENCH-WRK-HISTOGRAM %.0f %.0f\\n", latency:percentile(50), latency:percentile(99)))
  io.flush()
end
`;
}

/**
 * Runs the script with one thread (and connection) per `connections`; resolves with the
 * wrk process's output and its CPU ms, read when its last thread stopped.
 */
function runWrk(script: string, port: number, connections: number, docs: number) {
  // The duration is only a safety limit: the row ends when the queue is empty.
  const limitSeconds = Math.max(600, Math.ceil(docs / 5));
  const proc = spawn(
    'wrk',
    [`-t${connections}`, `-c${connections}`, `-d${limitSeconds}s`, '-s', script, `http://127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  let cpuMs = Number.NaN;
  let interrupt: NodeJS.Timeout | undefined;
  proc.stderr.on('data', (c) => {
    err += String(c);
  });
  proc.stdout.on('data', (c) => {
    out += String(c);
    if (interrupt === undefined && out.split('BENCH-DONE').length - 1 === connections) {
      cpuMs = processCpuMs(proc.pid!);
      interrupt = stopWrk(proc);
    }
  });
  return new Promise<{ out: string; cpuMs: number }>((resolveRun, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => {
      clearInterval(interrupt);
      if (code === 0 && interrupt !== undefined) resolveRun({ out, cpuMs });
      else reject(new Error(`wrk exited with ${code} before its queue was empty: ${err}\n${out.slice(0, 2000)}`));
    });
  });
}

/**
 * SIGINT ends wrk's wait for its duration; it is sent again every second in case it arrived
 * before wrk set up its handler (which it does after starting its threads).
 */
function stopWrk(proc: ChildProcess): NodeJS.Timeout {
  proc.kill('SIGINT');
  return setInterval(() => proc.kill('SIGINT'), 1000);
}

/** The `done` hook's lines, checked: one report per thread, `docs` answers in all. */
function parseWrkOutput(out: string, connections: number, docs: number): WrkReport {
  const threads = [...out.matchAll(/^BENCH-THREAD (.*)$/gm)].map((m) => JSON.parse(m[1]!) as ThreadReport);
  const errors = /^BENCH-ERRORS (\d+) (\d+) (\d+)$/m.exec(out);
  if (threads.length !== connections || !errors) {
    throw new Error(`wrk printed ${threads.length} of ${connections} thread reports:\n${out.slice(0, 2000)}`);
  }
  const answers = threads.reduce((n, t) => n + t.latencies.length, 0);
  const socketErrors = Number(errors[1]) + Number(errors[2]) + Number(errors[3]);
  // A request lost to a socket error has no answer; any other shortfall is a bug here.
  if (answers + socketErrors < docs)
    throw new Error(`wrk got ${answers} answers and ${socketErrors} socket errors for ${docs} requests`);
  return { threads, socketErrors };
}

/**
 * Issues `docs` 10-line facturas with one wrk process over `concurrency` keep-alive
 * connections, thread i to `ports[i mod ports.length]`.
 */
async function wrkLoad(ports: number[], key: string, rut: string, docs: number, concurrency: number) {
  const body = JSON.stringify(tenLineFactura());
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const dir = mkdtempSync(join(tmpdir(), 'timbre-wrk-'));
  try {
    const script = join(dir, 'issue.lua');
    writeFileSync(script, wrkScript(docs, ports, `/api/${rut}/emitir`, headers, body));
    const { out, cpuMs } = await runWrk(script, ports[0]!, concurrency, docs);
    const report = parseWrkOutput(out, concurrency, docs);
    // Thread i served ports[i mod n]: how the shared queue split the documents.
    const served = ports.map((_, p) =>
      report.threads.filter((_, i) => i % ports.length === p).reduce((n, t) => n + t.latencies.length, 0),
    );
    if (ports.length > 1) console.log(`documents per instance: ${served.join(', ')}`);
    const own = /^BENCH-WRK-HISTOGRAM (\d+) (\d+)$/m.exec(out);
    if (own)
      console.log(`wrk's own (corrected) histogram: p50 ${Number(own[1]) / 1000} ms, p99 ${Number(own[2]) / 1000} ms`);
    return rowFigures(report, docs, cpuMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The row's figures over every thread's samples. */
function rowFigures(report: WrkReport, docs: number, cpuMs: number): LoadResult {
  const threads = report.threads.filter((t) => t.latencies.length > 0);
  const latencies = threads.flatMap((t) => t.latencies).sort((a, b) => a - b);
  const folios = threads.flatMap((t) => t.folios);
  const seconds = (Math.max(...threads.map((t) => t.end)) - Math.min(...threads.map((t) => t.start))) / 1e6;
  const { socketErrors } = report;
  const firstFailure =
    threads.find((t) => t.firstFailure)?.firstFailure ??
    (socketErrors ? `${socketErrors} socket errors (connect, read, write)` : undefined);
  return {
    stages: stageSplit(threads),
    docsPerSecond: docs / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: threads.reduce((n, t) => n + t.failures, 0) + socketErrors,
    firstFailure,
    duplicates: folios.length - new Set(folios).size,
    clientMsPerDoc: cpuMs / docs,
  };
}

/**
 * The stage split of the answers that named their stages (every 200 of an instance that sends
 * Server-Timing); null when none did.
 */
export function stageSplit(threads: Pick<ThreadReport, 'latencies' | 'stages'>[]): StageSplit | null {
  const answers = threads.flatMap((t) =>
    t.latencies.map((latency, i) => {
      const ms = Object.fromEntries(STAGE_NAMES.map((n) => [n, t.stages[n][i] ?? -1])) as Record<StageName, number>;
      const named = STAGE_NAMES.every((n) => ms[n] >= 0);
      return named ? { latency, ...ms, rest: latency - STAGE_NAMES.reduce((sum, n) => sum + ms[n], 0) } : null;
    }),
  );
  const timed = answers.filter((a) => a !== null);
  if (timed.length === 0) return null;
  const keys = [...STAGE_NAMES, 'rest'] as const;
  const median = Object.fromEntries(
    keys.map((k) => [
      k,
      percentile(
        timed.map((a) => a[k]).sort((x, y) => x - y),
        50,
      ),
    ]),
  ) as StageMs;
  const slow = [...timed].sort((a, b) => b.latency - a.latency).slice(0, Math.max(1, Math.round(timed.length / 100)));
  const mean = (k: keyof (typeof slow)[number]) => slow.reduce((sum, a) => sum + a[k], 0) / slow.length;
  return {
    p50: median,
    slowest: { latency: mean('latency'), ...(Object.fromEntries(keys.map((k) => [k, mean(k)])) as StageMs) },
  };
}
