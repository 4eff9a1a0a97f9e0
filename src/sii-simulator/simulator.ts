/**
 * The local SII simulator: one node:http server answering the SII's own protocols at the SII's
 * own paths (DTEWS SOAP, DTEUpload, the boleta REST API, the folio portal), strict like the SII,
 * with in-memory state and injectable faults. README.md lists every rule it applies; in short:
 *
 * - authentication: signed seed → token per service (auth.ts); uploads need Cookie TOKEN and a
 *   `PROG 1.0` User-Agent; identical bytes within 900 s → STATUS 99 (dte-upload.ts);
 * - the claims registry RegistroReclamoDTE at its two paths (registro-reclamo.ts): the matrix
 *   of actions within 8 days of the reception, events, cedibility, the reception date;
 * - processing: schema → SetDTE signature (RFR) → Carátula (RCT) → per document: folio already
 *   received → CAF expired → TED/CAF → DTE signature → references (processing.ts,
 *   document-checks.ts);
 * - magic receivers: RUTRecep 11111111-1 → rejected (RCH), 22222222-2 → accepted with light
 *   objections (RLV), 33333333-3 → accepted with objections (RPR) (magic.ts).
 *
 * `createSiiSimulator(options)` builds one; `listen()` starts it. Several can run in one
 * process (tests); nothing is module-level state.
 */
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRealDate } from '../dte/calendar-date.ts';
import { loadSiiCafKeys, type TrustedCafKey } from '../dte/caf.ts';
import { normalizeRut } from '../dte/rut.ts';
import { dateOfInstantInSantiago, santiagoTimestamp } from '../dte/chile-time.ts';
import { checkAec } from './aec-checks.ts';
import { AuthStore, DEFAULT_TOKEN_TTL_MS, SEED_TTL_MS } from './auth.ts';
import { BOLETA_PREFIX, handleBoletaRest } from './boleta-rest.ts';
import type { SimContext } from './context.ts';
import { handleControl } from './control.ts';
import { type Supplier, type SupplierDelivery, sendSupplierDte, standInSupplier } from './supplier.ts';
import { handleDteUpload } from './dte-upload.ts';
import { handleDtews } from './dtews.ts';
import { DEFAULT_SLOW_MS, FaultBoard, type FaultSpec, soapOperationOf } from './faults.ts';
import { BodyTooLargeError, htmlReply, type Reply, readBody, textReply } from './http-util.ts';
import { formCompanyOf } from './multipart.ts';
import { CafIssuer, DEFAULT_MAX_FOLIOS_PER_REQUEST, handleGeneraArchivo, SIMULATOR_CAF_IDK } from './portal.ts';
import { Processor } from './processing.ts';
import { documentCedibility, handleRegistro, REGISTRO_PATHS } from './registro-reclamo.ts';
import { handleAecUpload, handleRpetcConsulta, RPETC_CONSULTA_PATH, RPETC_UPLOAD_PATH } from './rpetc.ts';
import { aecEstadoOf, type CesionRecord, isAecFinal, type ManualCesionInput, RpetcRegistry } from './rpetc-store.ts';
import { type ReceivedDocumentInput, RegistroStore } from './registro-store.ts';
import { visibleEstado } from './queries.ts';
import { errorText, isFinal, type RegisteredIssuer, type UploadRecord } from './state.ts';
import { isDtewsPath } from './soap.ts';

const DEFAULT_STEP_DELAY_MS = 1_000;

export interface SiiSimulatorOptions {
  /** Delay of each processing step (REC → SOK → … → EPR), ms. Default 1 000. */
  stepDelayMs?: number;
  /** Lifetime of a token, ms. Default 30 minutes. */
  tokenTtlMs?: number;
  /** Lifetime of a seed, ms. Default 2 minutes ([AUTH]). */
  seedTtlMs?: number;
  /** The simulator's notion of now (timestamps, token and seed expiry, CAF dates, STATUS 99 window). */
  clock?: () => Date;
  /** The key that signs the simulator's CAFs (FRMA); a fresh RSA-1024 key when absent. */
  cafSigningKey?: KeyObject;
  /** Upper bound of CANT_DOCTOS per CAF request. Default 10 000. */
  maxFoliosPerRequest?: number;
}

/** An upload as the simulator shows it to tests and to `GET /sim/uploads`. */
interface UploadSummary {
  trackId: string;
  channel: 'dteupload' | 'boleta-rest';
  filename: string;
  senderRut: string;
  companyRut: string;
  sha256: string;
  size: number;
  /** ISO 8601. */
  receivedAt: string;
  /** 1 + the identical re-uploads answered with STATUS 99. */
  timesSent: number;
  kind: 'dte' | 'boleta' | null;
  /** The estado the status services show now (REST spells PDR as PRD). */
  estado: string;
  final: boolean;
  rejection: { estado: string; glosa: string; detail: string[] } | null;
  documents: { type: number; folio: number; estado: string; errors: string[] }[];
}

export interface SiiSimulator {
  /** Starts listening (port 0 = any free port; host default 127.0.0.1). */
  listen(port?: number, host?: string): Promise<{ url: string }>;
  /** Stops the server, drops held connections and pending processing timers. */
  close(): Promise<void>;
  /** `http://host:port` once listening, else null. */
  readonly url: string | null;
  /** The public half of the CAF-signing key (SPKI PEM), for TIMBRE_EXTRA_CAF_KEYS. */
  readonly cafPublicKeyPem: string;
  setFault(fault: FaultSpec): void;
  clearFaults(): void;
  faults(): FaultSpec[];
  /** Makes the simulator check Carátulas of this issuer against its resolution (CRT-3-19). */
  registerIssuer(issuer: RegisteredIssuer): void;
  uploads(): UploadSummary[];
  setProcessingDelay(ms: number): void;
  /** Every token issued so far expires now. */
  expireTokens(): void;
  /** A CAF file for `count` new folios, as of_genera_archivo hands it out (ISO-8859-1 bytes). */
  issueCaf(input: { rut: string; type: number; count: number }): Buffer;
  /** Plays a supplier: its EnvioDTE of one factura, e-mailed into a company's IMAP mailbox (supplier.ts). */
  sendSupplierDte(input: SupplierDelivery): Promise<{ uid: number | null; file_name: string; folio: number }>;
  /** Resolves once every upload received so far has reached its final state. */
  settled(): Promise<void>;
  /**
   * Claims registry: another issuer's document the SII received at `receivedAt` (default now),
   * addressed to `receiverRut` — a supplier's factura, for tests of receiving.
   */
  registerReceivedDocument(input: ReceivedDocumentInput): void;
  /** Claims registry: moves the SII's reception of a known document (day 7, day 9). */
  setReceptionDate(input: { issuerRut: string; type: number; folio: number; receivedAt: Date | string }): void;
  /** Claims registry: the certificate holder may act for the company (then only for those registered). */
  authorizeUser(input: { holderRut: string; companyRut: string }): void;
  /** Registry of cesiones: the cesiones of a document, in order (those whose envío is still walking too). */
  cesiones(input: { issuerRut: string; type: number; folio: number }): CesionSummary[];
  /** Registry of cesiones: records a cesión by hand (the next seq; from the current holder unless told). */
  registerCesion(input: ManualCesionInput): CesionSummary;
  /** Registry of cesiones: the AECs received, with the state getEstEnvio shows now. */
  aecUploads(): AecUploadSummary[];
  /** Claims registry: a document's events as listarEventosHistDoc lists them. */
  registroEvents(input: {
    issuerRut: string;
    type: number;
    folio: number;
  }): { codEvento: string; rutResponsable: string; at: string }[];
}

/** A cesión as the simulator shows it to tests and to `GET /sim/rpetc/cesiones`: `at` in ISO 8601. */
type CesionSummary = Omit<CesionRecord, 'at'> & { at: string };

/** An AEC upload as the simulator shows it to tests and to `GET /sim/rpetc/uploads`. */
interface AecUploadSummary {
  trackId: string;
  companyRut: string;
  senderRut: string;
  filename: string;
  receivedAt: string;
  estado: string;
  final: boolean;
  /** The verdict of the checks (estado and glosa), shown once final. */
  verdict: { estado: string; glosa: string } | null;
}

const summarizeCesion = (c: CesionRecord): CesionSummary => ({ ...c, at: c.at.toISOString() });

function summarize(u: UploadRecord): UploadSummary {
  return {
    trackId: u.trackId,
    channel: u.channel,
    filename: u.filename,
    senderRut: u.senderRut,
    companyRut: u.companyRut,
    sha256: u.sha256,
    size: u.size,
    receivedAt: u.receivedAt.toISOString(),
    timesSent: u.timesSent,
    kind: u.kind,
    estado: visibleEstado(u),
    final: isFinal(u),
    rejection: isFinal(u) && u.rejection ? { ...u.rejection, detail: [...u.rejection.detail] } : null,
    documents: u.documents.map((d) => ({
      type: d.type,
      folio: d.folio,
      estado: d.estado,
      errors: d.errors.map(errorText),
    })),
  };
}

function validIssuer(input: RegisteredIssuer): RegisteredIssuer {
  const rut = normalizeRut(String(input.rut ?? ''));
  if (!rut) throw new Error('issuer rut must be a valid RUT');
  if (!isRealDate(String(input.resolutionDate))) throw new Error('resolutionDate must be YYYY-MM-DD');
  if (!Number.isInteger(input.resolutionNumber) || input.resolutionNumber < 0) {
    throw new Error('resolutionNumber must be a non-negative integer');
  }
  return {
    rut,
    resolutionDate: input.resolutionDate,
    resolutionNumber: input.resolutionNumber,
    ...(input.name !== undefined && { name: String(input.name).slice(0, 40) }),
  };
}

export function createSiiSimulator(options: SiiSimulatorOptions = {}): SiiSimulator {
  const clock = options.clock ?? (() => new Date());
  const cafKey = options.cafSigningKey ?? generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  if (cafKey.type !== 'private') throw new Error('cafSigningKey must be a private key');
  const cafPublicKey = createPublicKey(cafKey);
  const cafPublicKeyPem = cafPublicKey.export({ type: 'spki', format: 'pem' }) as string;
  const issuers = new Map<string, RegisteredIssuer>();
  const trustedCafKeys: TrustedCafKey[] = [
    ...loadSiiCafKeys(),
    { label: 'SII simulator', idk: SIMULATOR_CAF_IDK, key: cafPublicKey },
  ];
  const processor = new Processor({
    clock,
    stepDelayMs: options.stepDelayMs ?? DEFAULT_STEP_DELAY_MS,
    issuers,
    trustedCafKeys,
  });
  // Judges AECs against the accepted documents and the claims registry's cedibility (ctx below).
  const rpetc = new RpetcRegistry(
    {
      clock,
      today: () => dateOfInstantInSantiago(clock()),
      checkAec,
      document: (issuerRut, type, folio) => {
        const doc = processor.registry.find(issuerRut, type, folio);
        return doc && { sha256: doc.sha256, total: doc.total, date: doc.date, receiverRut: doc.receiverRut };
      },
      cedible: (issuerRut, type, folio) => documentCedibility(ctx, issuerRut, type, folio),
    },
    options.stepDelayMs ?? DEFAULT_STEP_DELAY_MS,
  );
  let attention = 0;
  const ctx: SimContext = {
    clock,
    auth: new AuthStore(clock, options.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS, options.seedTtlMs ?? SEED_TTL_MS),
    processor,
    issuers,
    cafs: new CafIssuer(cafKey, clock, issuers, options.maxFoliosPerRequest ?? DEFAULT_MAX_FOLIOS_PER_REQUEST),
    registro: new RegistroStore(clock, processor.registry),
    rpetc,
    nextAttentionNumber: () => `${++attention} ( ${santiagoTimestamp(clock()).replace('T', ' ').replace(/-/g, '/')})`,
  };
  const faultBoard = new FaultBoard();
  /** Fault delays in flight; on close they fire at once so no handler is left hanging. */
  const pendingTimers = new Map<NodeJS.Timeout, () => void>();
  let server: Server | null = null;
  let url: string | null = null;
  /** The stand-in supplier (its certificate costs a key generation: made on first use). */
  let supplier: Supplier | null = null;

  const sim: SiiSimulator = {
    get url() {
      return url;
    },
    cafPublicKeyPem,
    setFault: (fault) => faultBoard.add(fault),
    clearFaults: () => faultBoard.clear(),
    faults: () => faultBoard.list(),
    registerIssuer: (issuer) => {
      const valid = validIssuer(issuer);
      issuers.set(valid.rut, valid);
    },
    uploads: () => processor.all().map(summarize),
    setProcessingDelay: (ms) => {
      processor.setStepDelay(ms);
      rpetc.setStepDelay(ms);
    },
    expireTokens: () => ctx.auth.expireAll(),
    issueCaf: ({ rut, type, count }) => {
      const valid = normalizeRut(rut);
      if (!valid) throw new Error('rut must be a valid RUT');
      return ctx.cafs.issue(valid, type, count).file;
    },
    sendSupplierDte: (input) => {
      supplier ??= standInSupplier({ cafKey });
      return sendSupplierDte(supplier, input);
    },
    settled: async () => {
      await processor.settled();
      await rpetc.settled();
    },
    registerReceivedDocument: (input) => ctx.registro.registerReceived(input),
    setReceptionDate: (input) => ctx.registro.setReception(input),
    authorizeUser: ({ holderRut, companyRut }) => ctx.registro.authorize(holderRut, companyRut),
    cesiones: ({ issuerRut, type, folio }) =>
      rpetc.all(normalizeRut(String(issuerRut)) ?? '', Number(type), Number(folio)).map(summarizeCesion),
    registerCesion: (input) => summarizeCesion(rpetc.registerManual(input)),
    aecUploads: () =>
      rpetc.list().map((u) => ({
        trackId: u.trackId,
        companyRut: u.companyRut,
        senderRut: u.senderRut,
        filename: u.filename,
        receivedAt: u.receivedAt.toISOString(),
        estado: aecEstadoOf(u),
        final: isAecFinal(u),
        verdict: isAecFinal(u) ? { estado: u.verdict.estado, glosa: u.verdict.glosa } : null,
      })),
    registroEvents: ({ issuerRut, type, folio }) =>
      ctx.registro.history(normalizeRut(String(issuerRut)) ?? '', Number(type), Number(folio)),
    listen: (port = 0, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        if (server) throw new Error('the simulator is already listening');
        const s = createServer((req, res) => {
          handle(req, res).catch((e: unknown) => {
            if (!res.headersSent) write(res, textReply(500, `simulator error: ${(e as Error).message}`));
            else res.destroy();
          });
        });
        s.once('error', reject);
        s.listen(port, host, () => {
          const address = s.address() as AddressInfo;
          server = s;
          url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
          resolve({ url });
        });
      }),
    close: async () => {
      processor.stop();
      rpetc.stop();
      for (const [t, fn] of pendingTimers) {
        clearTimeout(t);
        fn();
      }
      pendingTimers.clear();
      const s = server;
      server = null;
      url = null;
      if (!s) return;
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      s.closeAllConnections();
      await closed;
    },
  };

  function later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      pendingTimers.delete(t);
      fn();
    }, ms);
    pendingTimers.set(t, fn);
  }

  async function route(req: IncomingMessage, requestUrl: URL, body: Buffer): Promise<Reply> {
    const path = requestUrl.pathname;
    if (path.startsWith('/sim/')) return handleControl(sim, req, requestUrl, body);
    if (isDtewsPath(path)) return handleDtews(ctx, req, requestUrl, path, body);
    if ((REGISTRO_PATHS as readonly string[]).includes(path)) return handleRegistro(ctx, req, requestUrl, path, body);
    if (path === '/cgi_dte/UPL/DTEUpload') return handleDteUpload(ctx, req, body);
    if (path === RPETC_UPLOAD_PATH) return handleAecUpload(ctx, req, body);
    if (path === RPETC_CONSULTA_PATH) return handleRpetcConsulta(ctx, req, requestUrl, body);
    if (path === '/cvc_cgi/dte/of_genera_archivo') return handleGeneraArchivo(ctx, req, body);
    if (path.startsWith(`${BOLETA_PREFIX}/`)) {
      return handleBoletaRest(ctx, req, requestUrl, path.slice(BOLETA_PREFIX.length), body);
    }
    return htmlReply(404, 'Not Found', `${path} does not exist`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestUrl = new URL(req.url ?? '/', 'http://simulator');
    const { pathname } = requestUrl;
    // A fault for one company's uploads is judged on the form's rutCompany, one for some SOAP
    // operations on the call: the body comes first.
    const early = faultBoard.needsBody(pathname) ? await readBodyOr413(req, res) : undefined;
    if (early === null) return;
    const companyRut = early ? formCompanyOf(early, req.headers['content-type']) : null;
    const operation = early ? soapOperationOf(early) : null;
    const fault = faultBoard.take({ pathname, companyRut, operation });
    if (fault?.kind === 'down') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'slow') await new Promise<void>((r) => later(fault.delayMs ?? DEFAULT_SLOW_MS, r));
    const body = early ?? (await readBodyOr413(req, res));
    if (body === null) return;
    if (fault?.kind === 'http500') {
      return write(res, htmlReply(500, 'Internal Server Error', 'The server encountered an internal error.'));
    }
    const answer = await route(req, requestUrl, body);
    if (fault?.kind === 'timeout-after-receipt') {
      // Received and processed, but the answer never leaves: the client waits until it gives up.
      if (fault.delayMs !== undefined) later(fault.delayMs, () => req.socket.destroy());
      return;
    }
    write(res, answer);
  }

  return sim;
}

/** The request body, or null once a 413 was answered for one above the limit. */
async function readBodyOr413(req: IncomingMessage, res: ServerResponse): Promise<Buffer | null> {
  try {
    return await readBody(req);
  } catch (e) {
    if (!(e instanceof BodyTooLargeError)) throw e;
    write(res, htmlReply(413, 'Request Entity Too Large', e.message));
    return null;
  }
}

function write(res: ServerResponse, answer: Reply): void {
  if (res.destroyed) return;
  res.writeHead(answer.status, { ...answer.headers, 'Content-Length': String(answer.body.length) });
  res.end(answer.body);
}
