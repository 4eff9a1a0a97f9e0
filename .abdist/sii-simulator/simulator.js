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
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { isRealDate } from '../dte/calendar-date.js';
import { loadSiiCafKeys } from '../dte/caf.js';
import { normalizeRut } from '../dte/rut.js';
import { dateOfInstantInSantiago, santiagoTimestamp } from '../dte/chile-time.js';
import { checkAec } from './aec-checks.js';
import { AuthStore, DEFAULT_TOKEN_TTL_MS, SEED_TTL_MS } from './auth.js';
import { BOLETA_PREFIX, handleBoletaRest } from './boleta-rest.js';
import { handleControl } from './control.js';
import { sendSupplierDte, standInSupplier } from './supplier.js';
import { handleDteUpload } from './dte-upload.js';
import { handleDtews } from './dtews.js';
import { DEFAULT_SLOW_MS, FaultBoard } from './faults.js';
import { BodyTooLargeError, htmlReply, readBody, textReply } from './http-util.js';
import { formCompanyOf } from './multipart.js';
import { CafIssuer, DEFAULT_MAX_FOLIOS_PER_REQUEST, handleGeneraArchivo, SIMULATOR_CAF_IDK } from './portal.js';
import { Processor } from './processing.js';
import { documentCedibility, handleRegistro, REGISTRO_PATHS } from './registro-reclamo.js';
import { handleAecUpload, handleRpetcConsulta, RPETC_CONSULTA_PATH, RPETC_UPLOAD_PATH } from './rpetc.js';
import { aecEstadoOf, isAecFinal, RpetcRegistry } from './rpetc-store.js';
import { RegistroStore } from './registro-store.js';
import { visibleEstado } from './queries.js';
import { errorText, isFinal } from './state.js';
import { isDtewsPath } from './soap.js';
const DEFAULT_STEP_DELAY_MS = 1_000;
const summarizeCesion = (c) => ({ ...c, at: c.at.toISOString() });
function summarize(u) {
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
function validIssuer(input) {
    const rut = normalizeRut(String(input.rut ?? ''));
    if (!rut)
        throw new Error('issuer rut must be a valid RUT');
    if (!isRealDate(String(input.resolutionDate)))
        throw new Error('resolutionDate must be YYYY-MM-DD');
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
export function createSiiSimulator(options = {}) {
    const clock = options.clock ?? (() => new Date());
    const cafKey = options.cafSigningKey ?? generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    if (cafKey.type !== 'private')
        throw new Error('cafSigningKey must be a private key');
    const cafPublicKey = createPublicKey(cafKey);
    const cafPublicKeyPem = cafPublicKey.export({ type: 'spki', format: 'pem' });
    const issuers = new Map();
    const trustedCafKeys = [
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
    const rpetc = new RpetcRegistry({
        clock,
        today: () => dateOfInstantInSantiago(clock()),
        checkAec,
        document: (issuerRut, type, folio) => {
            const doc = processor.registry.find(issuerRut, type, folio);
            return doc && { sha256: doc.sha256, total: doc.total, date: doc.date, receiverRut: doc.receiverRut };
        },
        cedible: (issuerRut, type, folio) => documentCedibility(ctx, issuerRut, type, folio),
    }, options.stepDelayMs ?? DEFAULT_STEP_DELAY_MS);
    let attention = 0;
    const ctx = {
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
    const pendingTimers = new Map();
    let server = null;
    let url = null;
    /** The stand-in supplier (its certificate costs a key generation: made on first use). */
    let supplier = null;
    const sim = {
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
            if (!valid)
                throw new Error('rut must be a valid RUT');
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
        cesiones: ({ issuerRut, type, folio }) => rpetc.all(normalizeRut(String(issuerRut)) ?? '', Number(type), Number(folio)).map(summarizeCesion),
        registerCesion: (input) => summarizeCesion(rpetc.registerManual(input)),
        aecUploads: () => rpetc.list().map((u) => ({
            trackId: u.trackId,
            companyRut: u.companyRut,
            senderRut: u.senderRut,
            filename: u.filename,
            receivedAt: u.receivedAt.toISOString(),
            estado: aecEstadoOf(u),
            final: isAecFinal(u),
            verdict: isAecFinal(u) ? { estado: u.verdict.estado, glosa: u.verdict.glosa } : null,
        })),
        registroEvents: ({ issuerRut, type, folio }) => ctx.registro.history(normalizeRut(String(issuerRut)) ?? '', Number(type), Number(folio)),
        listen: (port = 0, host = '127.0.0.1') => new Promise((resolve, reject) => {
            if (server)
                throw new Error('the simulator is already listening');
            const s = createServer((req, res) => {
                handle(req, res).catch((e) => {
                    if (!res.headersSent)
                        write(res, textReply(500, `simulator error: ${e.message}`));
                    else
                        res.destroy();
                });
            });
            s.once('error', reject);
            s.listen(port, host, () => {
                const address = s.address();
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
            if (!s)
                return;
            const closed = new Promise((resolve) => s.close(() => resolve()));
            s.closeAllConnections();
            await closed;
        },
    };
    function later(ms, fn) {
        const t = setTimeout(() => {
            pendingTimers.delete(t);
            fn();
        }, ms);
        pendingTimers.set(t, fn);
    }
    async function route(req, requestUrl, body) {
        const path = requestUrl.pathname;
        if (path.startsWith('/sim/'))
            return handleControl(sim, req, requestUrl, body);
        if (isDtewsPath(path))
            return handleDtews(ctx, req, requestUrl, path, body);
        if (REGISTRO_PATHS.includes(path))
            return handleRegistro(ctx, req, requestUrl, path, body);
        if (path === '/cgi_dte/UPL/DTEUpload')
            return handleDteUpload(ctx, req, body);
        if (path === RPETC_UPLOAD_PATH)
            return handleAecUpload(ctx, req, body);
        if (path === RPETC_CONSULTA_PATH)
            return handleRpetcConsulta(ctx, req, requestUrl, body);
        if (path === '/cvc_cgi/dte/of_genera_archivo')
            return handleGeneraArchivo(ctx, req, body);
        if (path.startsWith(`${BOLETA_PREFIX}/`)) {
            return handleBoletaRest(ctx, req, requestUrl, path.slice(BOLETA_PREFIX.length), body);
        }
        return htmlReply(404, 'Not Found', `${path} does not exist`);
    }
    async function handle(req, res) {
        const requestUrl = new URL(req.url ?? '/', 'http://simulator');
        const { pathname } = requestUrl;
        // A fault for one company's uploads is judged on the form's rutCompany: the body comes first.
        const early = faultBoard.needsCompany(pathname) ? await readBodyOr413(req, res) : undefined;
        if (early === null)
            return;
        const companyRut = early ? formCompanyOf(early, req.headers['content-type']) : null;
        const fault = faultBoard.take({ pathname, companyRut });
        if (fault?.kind === 'down') {
            req.socket.destroy();
            return;
        }
        if (fault?.kind === 'slow')
            await new Promise((r) => later(fault.delayMs ?? DEFAULT_SLOW_MS, r));
        const body = early ?? (await readBodyOr413(req, res));
        if (body === null)
            return;
        if (fault?.kind === 'http500') {
            return write(res, htmlReply(500, 'Internal Server Error', 'The server encountered an internal error.'));
        }
        const answer = await route(req, requestUrl, body);
        if (fault?.kind === 'timeout-after-receipt') {
            // Received and processed, but the answer never leaves: the client waits until it gives up.
            if (fault.delayMs !== undefined)
                later(fault.delayMs, () => req.socket.destroy());
            return;
        }
        write(res, answer);
    }
    return sim;
}
/** The request body, or null once a 413 was answered for one above the limit. */
async function readBodyOr413(req, res) {
    try {
        return await readBody(req);
    }
    catch (e) {
        if (!(e instanceof BodyTooLargeError))
            throw e;
        write(res, htmlReply(413, 'Request Entity Too Large', e.message));
        return null;
    }
}
function write(res, answer) {
    if (res.destroyed)
        return;
    res.writeHead(answer.status, { ...answer.headers, 'Content-Length': String(answer.body.length) });
    res.end(answer.body);
}
