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
 * (exact paths; a trailing `*` matches a prefix) and, with `companyRut`, only to uploads for
 * that company (the form's rutCompany-dvCompany): on a simulator shared by several issuers,
 * another issuer's upload in flight cannot use the fault up. With `operations`, only to SOAP
 * calls of those operations (the element under the SOAP Body, by local name): one web service
 * path serves several operations, and a background job's other call on it (the registry's
 * consultarFechaRecepcionSii while a test faults ingresarAceptacionReclamoDoc) cannot use the
 * fault up either. For both, the request's body is read before the fault is chosen. Without `paths`,
 * `timeout-after-receipt` and a fault with `companyRut` apply to the upload endpoints, the
 * other kinds to every SII path. The simulator's own control API (`/sim/…`) is never affected.
 */
import { normalizeRut } from '../dte/rut.ts';
import { parseSoapCall } from './soap.ts';

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
  /** Only uploads for this company (rutCompany-dvCompany of the form). */
  companyRut?: string;
  /** Only SOAP calls of these operations (local name of the SOAP Body's element). */
  operations?: string[];
}

/** What a fault is matched against: the path and, for an upload whose body was read, its company. */
interface FaultRequest {
  pathname: string;
  /** The upload's company (canonical RUT); null or absent when unknown or not an upload. */
  companyRut?: string | null;
  /** The SOAP operation called; null or absent when unknown or not a SOAP call. */
  operation?: string | null;
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

/** Whether `spec` covers this path (whatever the company). */
function coversPath(spec: FaultSpec, pathname: string): boolean {
  const uploadsOnly = spec.kind === 'timeout-after-receipt' || spec.companyRut !== undefined;
  return pathMatches(spec.paths ?? (uploadsOnly ? UPLOAD_PATHS : ['*']), pathname);
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
    const companyRut = spec.companyRut === undefined ? undefined : normalizeRut(String(spec.companyRut));
    if (companyRut === null) throw new Error('companyRut must be a valid RUT');
    if (
      spec.operations !== undefined &&
      (!Array.isArray(spec.operations) ||
        spec.operations.length === 0 ||
        !spec.operations.every((o) => typeof o === 'string' && o.length > 0))
    ) {
      throw new Error('operations must be a non-empty list of operation names');
    }
    this.faults.push({
      spec: { ...spec, ...(companyRut && { companyRut }) },
      remaining: spec.count ?? Number.POSITIVE_INFINITY,
    });
  }

  clear(): void {
    this.faults = [];
  }

  /**
   * Whether a fault for one company or for some operations may apply to this path: the
   * request's body must then be read before `take`, to learn the upload's company or the call.
   */
  needsBody(pathname: string): boolean {
    if (pathname.startsWith('/sim/')) return false;
    return this.faults.some(
      (f) => (f.spec.companyRut !== undefined || f.spec.operations !== undefined) && coversPath(f.spec, pathname),
    );
  }

  /** The fault that applies to this request, if any (consuming one of its `count`). */
  take(request: FaultRequest): FaultSpec | null {
    const { pathname } = request;
    if (pathname.startsWith('/sim/')) return null;
    for (const fault of this.faults) {
      if (fault.remaining <= 0 || !coversPath(fault.spec, pathname)) continue;
      if (fault.spec.companyRut !== undefined && fault.spec.companyRut !== request.companyRut) continue;
      if (fault.spec.operations !== undefined && !fault.spec.operations.includes(request.operation ?? '')) continue;
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

/**
 * The operation a SOAP request calls (the element under the Body, by local name, as the
 * services read it: `parseSoapCall`); null when the body is no SOAP call. Only read when a fault
 * scoped to operations covers the path.
 */
export function soapOperationOf(body: Buffer): string | null {
  try {
    return parseSoapCall(body.toString('utf8')).operation;
  } catch {
    return null;
  }
}
