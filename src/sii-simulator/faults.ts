/**
 * Injected failures, so tests can reproduce what the real SII does to clients on a bad day
 * (docs/sii-reference.md §7.1: certification is slow and flaky, TLS hiccups and 5xx):
 *
 * - `down`: the connection is destroyed before anything is read or answered, as an
 *   unreachable server looks to a client (reset / "socket hang up"). Nothing is processed.
 * - `slow`: the request is handled normally, but only after `delayMs`.
 * - `http500`: the body is read and an HTTP 500 page comes back. Nothing is processed.
 * - `timeout-after-receipt`: the request is handled completely (an upload is received,
 *   processed and gets its track id) but the answer is never written: the socket is held
 *   open until the client gives up, or destroyed after `delayMs` when given. This is the
 *   ambiguous failure of docs/design.md §6: the client cannot know whether the SII has the file.
 *
 * A fault applies to `count` requests (unlimited when absent) whose path matches `paths`
 * (exact paths; a trailing `*` matches a prefix). Without `paths`, `timeout-after-receipt`
 * applies to the two upload endpoints and the other kinds to every SII path. The simulator's
 * own control API (`/sim/…`) is never affected.
 */

type FaultKind = 'down' | 'slow' | 'http500' | 'timeout-after-receipt';

const FAULT_KINDS: readonly FaultKind[] = ['down', 'slow', 'http500', 'timeout-after-receipt'];

export interface FaultSpec {
  kind: FaultKind;
  /** How many matching requests it affects; unlimited when absent. */
  count?: number;
  /** `slow`: the delay (default 5 000 ms). `timeout-after-receipt`: destroy the socket after it (default: never). */
  delayMs?: number;
  /** Paths it applies to (exact, or a prefix ending in `*`). */
  paths?: string[];
}

const UPLOAD_PATHS = [
  '/cgi_dte/UPL/DTEUpload',
  '/recursos/v1/boleta.electronica.envio',
  '/cgi_rtc/RTC/RTCAnotEnvio.cgi',
];

export const DEFAULT_SLOW_MS = 5_000;

interface ActiveFault {
  spec: FaultSpec;
  remaining: number;
}

function pathMatches(patterns: readonly string[], pathname: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? pathname.startsWith(p.slice(0, -1)) : pathname === p));
}

export class FaultBoard {
  private faults: ActiveFault[] = [];

  add(spec: FaultSpec): void {
    if (!FAULT_KINDS.includes(spec.kind)) throw new Error(`unknown fault kind ${String(spec.kind)}`);
    if (spec.count !== undefined && (!Number.isInteger(spec.count) || spec.count < 1)) {
      throw new Error('count must be a positive integer');
    }
    if (spec.delayMs !== undefined && (!Number.isFinite(spec.delayMs) || spec.delayMs < 0)) {
      throw new Error('delayMs must be a non-negative number');
    }
    this.faults.push({ spec: { ...spec }, remaining: spec.count ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.faults = [];
  }

  /** The fault that applies to this request, if any (consuming one of its `count`). */
  take(pathname: string): FaultSpec | null {
    if (pathname.startsWith('/sim/')) return null;
    for (const fault of this.faults) {
      const patterns = fault.spec.paths ?? (fault.spec.kind === 'timeout-after-receipt' ? UPLOAD_PATHS : ['*']);
      if (fault.remaining <= 0 || !pathMatches(patterns, pathname)) continue;
      fault.remaining--;
      this.faults = this.faults.filter((f) => f.remaining > 0);
      return fault.spec;
    }
    return null;
  }

  list(): FaultSpec[] {
    return this.faults.map((f) => ({ ...f.spec, ...(Number.isFinite(f.remaining) && { count: f.remaining }) }));
  }
}
