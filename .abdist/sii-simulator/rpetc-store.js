/**
 * The registry of cesiones (RPETC) in the simulator: the AECs received by RTCAnotEnvio.cgi, the
 * states each walks (one per processing step), and the cesiones registered per document.
 *
 * As with DTE uploads (processing.ts), an AEC is judged once, at receipt, in arrival order
 * (`checkAec`, aec-checks.ts), and an accepted cesión is recorded then, so that the next AEC
 * of the same document is judged against it; what the delay paces is what getEstEnvio shows,
 * and getEstCesion shows a cesión once its envío reached EOK. The states:
 *
 *   RCP → SOK → FSO → COK → VDC → VCS → EOK, or stopping at RSC (schema), RFS (signature of
 *   the AEC), RCR (Carátula), RDC (the ceded document) or RCS (a cesión).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { normalizeRut } from '../dte/rut.js';
import { StepEvents } from './step-events.js';
/** DESC_ESTADO as the simulator writes it (the manual's wording, ws_rpetc_consulta §3.2.1). */
export const DESC_ESTADO = {
    RCP: 'Envio Recibido',
    SOK: 'Schema Validado',
    FSO: 'Firma de Sobre Validada',
    COK: 'Caratula OK',
    VDC: 'Validacion de Documento',
    VCS: 'Validacion de Cesiones',
    EOK: 'Envio Aceptado',
    RSC: 'Rechazado por Error en Schema',
    RFS: 'Rechazado por Firma de Sobre',
    RCR: 'Error en Caratula',
    RDC: 'Documento Invalido',
    RCS: 'Cesion Invalida',
};
const ACCEPTED_PATH = ['RCP', 'SOK', 'FSO', 'COK', 'VDC', 'VCS', 'EOK'];
/** How far each verdict lets the envío walk before its final state. */
const STOP_AFTER = { RSC: 1, RFS: 2, RCR: 3, RDC: 5, RCS: 6, EOK: 6 };
function pathOf(verdict) {
    return [...ACCEPTED_PATH.slice(0, STOP_AFTER[verdict]), verdict];
}
export const aecEstadoOf = (u) => u.path[Math.min(u.step, u.path.length - 1)];
export const isAecFinal = (u) => u.step >= u.path.length - 1;
const docKey = (issuerRut, type, folio) => `${issuerRut}|${type}|${folio}`;
/** IdCesion: 1–20 alphanumeric characters (ws_rpetc_consulta §3.1.2). */
function newIdCesion() {
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    return [...randomBytes(12)].map((b) => alphabet[b % alphabet.length]).join('');
}
export class RpetcRegistry {
    sources;
    stepDelayMs;
    uploads = new Map();
    cesionesByDoc = new Map();
    timers = new Set();
    events = new StepEvents();
    nextTrackId = 40_000 + randomInt(0, 900_000);
    constructor(sources, stepDelayMs) {
        this.sources = sources;
        this.stepDelayMs = stepDelayMs;
    }
    setStepDelay(ms) {
        this.stepDelayMs = ms;
    }
    /** The view checkAec judges against: every cesión recorded so far, in order. */
    view = {
        document: (issuerRut, type, folio) => this.sources.document(issuerRut, type, folio),
        cedible: (issuerRut, type, folio) => this.sources.cedible(issuerRut, type, folio),
        cesiones: (issuerRut, type, folio) => this.all(issuerRut, type, folio).map((c) => ({
            seq: c.seq,
            cedenteRut: c.cedenteRut,
            cesionarioRut: c.cesionarioRut,
            declaracionJurada: c.declaracionJurada,
        })),
    };
    /** Receives an AEC: a track id, the verdict, the cesión recorded when accepted, the walk started. */
    receive(input) {
        const verdict = this.sources.checkAec(input.bytes, this.view, this.sources.today());
        const upload = {
            trackId: String(this.nextTrackId++).padStart(10, '0'),
            companyRut: input.companyRut,
            senderRut: input.senderRut,
            email: input.email,
            filename: input.filename,
            receivedAt: this.sources.clock(),
            verdict,
            path: pathOf(verdict.estado),
            step: 0,
        };
        this.uploads.set(upload.trackId, upload);
        if (verdict.estado === 'EOK' && verdict.cesion) {
            const c = verdict.cesion;
            this.record({ ...c, at: upload.receivedAt, trackId: upload.trackId });
        }
        this.schedule(upload);
        return upload;
    }
    find(trackId) {
        return this.uploads.get(trackId.trim().padStart(10, '0'));
    }
    list() {
        return [...this.uploads.values()];
    }
    /** Every cesión of a document, in order, including those whose envío is still walking. */
    all(issuerRut, type, folio) {
        return this.cesionesByDoc.get(docKey(issuerRut, type, folio)) ?? [];
    }
    /** The cesiones the registry shows: those registered by hand and those whose envío reached EOK. */
    visible(issuerRut, type, folio) {
        return this.all(issuerRut, type, folio).filter((c) => {
            const upload = c.trackId ? this.uploads.get(c.trackId) : undefined;
            return !upload || isAecFinal(upload);
        });
    }
    /** A cesión registered by hand: the next seq, from the current holder unless told. */
    registerManual(input) {
        const issuerRut = normalizeRut(String(input.issuerRut ?? ''));
        const cesionarioRut = normalizeRut(String(input.cesionarioRut ?? ''));
        if (!issuerRut || !cesionarioRut)
            throw new Error('issuerRut and cesionarioRut must be valid RUTs');
        const type = Number(input.type);
        const folio = Number(input.folio);
        if (!Number.isInteger(type) || !Number.isInteger(folio) || folio < 1)
            throw new Error('bad type or folio');
        const earlier = this.all(issuerRut, type, folio);
        const holder = earlier.at(-1)?.cesionarioRut ?? issuerRut;
        const cedenteRut = input.cedenteRut === undefined ? holder : normalizeRut(String(input.cedenteRut));
        if (!cedenteRut)
            throw new Error('cedenteRut must be a valid RUT');
        const total = Number(this.sources.document(issuerRut, type, folio)?.total ?? 1);
        return this.record({
            issuerRut,
            type,
            folio,
            seq: earlier.length + 1,
            cedenteRut,
            cesionarioRut,
            monto: input.monto === undefined ? total : Number(input.monto),
            ultimoVencimiento: input.ultimoVencimiento ?? this.sources.today(),
            declaracionJurada: input.declaracionJurada ?? true,
            at: this.sources.clock(),
            trackId: null,
        });
    }
    record(c) {
        const key = docKey(c.issuerRut, c.type, c.folio);
        const list = this.cesionesByDoc.get(key) ?? [];
        const record = { ...c, idCesion: newIdCesion() };
        list.push(record);
        this.cesionesByDoc.set(key, list);
        return record;
    }
    schedule(upload) {
        if (isAecFinal(upload)) {
            this.events.stepped();
            return;
        }
        const timer = setTimeout(() => {
            this.timers.delete(timer);
            upload.step++;
            this.schedule(upload);
        }, this.stepDelayMs);
        timer.unref();
        this.timers.add(timer);
    }
    /** Resolves once every AEC received so far has reached its final state. */
    settled() {
        return this.events.settled(() => [...this.uploads.values()].every(isAecFinal));
    }
    stop() {
        for (const t of this.timers)
            clearTimeout(t);
        this.timers.clear();
    }
}
