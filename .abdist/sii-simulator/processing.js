/**
 * What happens to a file after the SII received it (docs/sii-reference.md §7.4, §7.7): the envelope walks
 * REC → SOK → FOK → PDR → CRT → EPR, one step per processing delay, or stops at the step
 * where it is rejected as a whole (RSC schema, RFR SetDTE signature, RCT Carátula, RPT
 * repeated file on the REST API). At EPR every document has its verdict.
 *
 * The checks themselves run once, at receipt, in the order the files arrived, so duplicate
 * folios are judged in arrival order; what the delay paces is only what the query services
 * reveal. Documents become visible to QueryEstDte when their envelope reaches EPR.
 */
import { createHash, randomInt } from 'node:crypto';
import { extractDtes } from '../dte/xmldsig.js';
import { checkDocument, unreadableDocument } from './document-checks.js';
import { caratulaError, envelopeText, readCaratula, setSignatureValid } from './envelope-checks.js';
import { readDte } from './received-dte.js';
import { DocumentRegistry, ENVELOPE_GLOSAS, isFinal, } from './state.js';
import { StepEvents } from './step-events.js';
/** The SII refuses the same bytes again for 900 s with STATUS 99 ([RURAL], docs/sii-reference.md §7.3). */
export const DUPLICATE_WINDOW_MS = 900_000;
const ACCEPTED_PATH = ['REC', 'SOK', 'FOK', 'PDR', 'CRT', 'EPR'];
const rejected = (at, rejection) => ({
    path: [...ACCEPTED_PATH.slice(0, at), rejection.estado],
    rejection,
    documents: [],
});
const normalizeTrackId = (trackId) => trackId.trim().replace(/^0+(?=\d)/, '');
export class Processor {
    opts;
    registry = new DocumentRegistry();
    uploads = [];
    byTrackId = new Map();
    timers = new Set();
    events = new StepEvents();
    stepDelayMs;
    nextDteTrackId = 250_000_000 + randomInt(0, 9_000_000);
    nextBoletaTrackId = 100_000_000_000_000 + randomInt(0, 1_000_000_000);
    constructor(opts) {
        this.opts = opts;
        this.stepDelayMs = opts.stepDelayMs;
    }
    setStepDelay(ms) {
        if (!Number.isFinite(ms) || ms < 0)
            throw new Error('the processing delay must be a non-negative number of ms');
        this.stepDelayMs = ms;
    }
    all() {
        return this.uploads;
    }
    find(channel, trackId) {
        return this.byTrackId.get(`${channel}:${normalizeTrackId(trackId)}`);
    }
    /** The earlier upload of the same bytes on this channel within the duplicate window. */
    findRepeat(channel, bytes) {
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const since = this.opts.clock().getTime() - DUPLICATE_WINDOW_MS;
        return this.uploads.findLast((u) => u.channel === channel && u.sha256 === sha256 && u.receivedAt.getTime() >= since && u.path[1] !== 'RPT');
    }
    /** Receives a file: gives it a track id, judges it, and starts walking its states. */
    receive(input) {
        const repeat = input.channel === 'boleta-rest' ? this.findRepeat(input.channel, input.bytes) : undefined;
        const upload = {
            trackId: this.newTrackId(input.channel),
            channel: input.channel,
            filename: input.filename,
            senderRut: input.senderRut,
            companyRut: input.companyRut,
            sha256: createHash('sha256').update(input.bytes).digest('hex'),
            size: input.bytes.length,
            receivedAt: this.opts.clock(),
            kind: input.screening.kind,
            path: ['REC'],
            step: 0,
            rejection: null,
            documents: [],
            timesSent: 1,
        };
        const outcome = repeat
            ? rejected(1, {
                estado: 'RPT',
                glosa: ENVELOPE_GLOSAS.RPT,
                detail: [`Envio repetido del Trackid ${repeat.trackId}`],
            })
            : this.judge(upload, input);
        Object.assign(upload, outcome);
        this.uploads.push(upload);
        this.byTrackId.set(`${upload.channel}:${normalizeTrackId(upload.trackId)}`, upload);
        this.schedule(upload);
        return upload;
    }
    newTrackId(channel) {
        // DTEUpload track ids have 10 positions, the boleta REST ones 15 digits ([BOLT], docs/sii-reference.md §7.3).
        if (channel === 'dteupload')
            return String(this.nextDteTrackId++).padStart(10, '0');
        return String(this.nextBoletaTrackId++);
    }
    judge(upload, input) {
        if (input.screening.errors.length > 0) {
            return rejected(1, { estado: 'RSC', glosa: ENVELOPE_GLOSAS.RSC, detail: input.screening.errors });
        }
        const text = envelopeText(input.bytes);
        const caratula = readCaratula(text);
        if (!caratula)
            return rejected(1, { estado: 'RSC', glosa: ENVELOPE_GLOSAS.RSC, detail: ['SetDTE/Caratula'] });
        if (!setSignatureValid(text, caratula.setId)) {
            return rejected(2, { estado: 'RFR', glosa: ENVELOPE_GLOSAS.RFR, detail: ['Firma del SetDTE invalida'] });
        }
        const dtes = extractDtes(text).map(readDte);
        const readable = dtes.filter((d) => d !== null);
        const crt = caratulaError(caratula, readable, {
            companyRut: input.companyRut,
            senderRut: input.senderRut,
            issuer: this.opts.issuers.get(caratula.rutEmisor),
        });
        if (crt) {
            const glosa = `${ENVELOPE_GLOSAS.RCT}${crt.startsWith('(') ? ' ' : ': '}${crt}`;
            return rejected(4, { estado: 'RCT', glosa, detail: [crt] });
        }
        const documents = dtes.map((dte) => (dte ? this.judgeDocument(dte, upload) : unreadableDocument()));
        return { path: [...ACCEPTED_PATH], rejection: null, documents };
    }
    /** Checks one document and, when accepted, records it (and what a note does to its target). */
    judgeDocument(dte, upload) {
        const result = checkDocument(dte, { registry: this.registry, trustedCafKeys: this.opts.trustedCafKeys });
        if (result.estado === 'RCH')
            return result;
        this.registry.add({
            issuerRut: dte.issuerRut,
            type: dte.type,
            folio: dte.folio,
            date: dte.date,
            receiverRut: dte.receiverRut,
            total: dte.total,
            sha256: dte.sha256,
            estado: result.estado,
            upload,
            modifications: [],
        });
        if (dte.type === 56 || dte.type === 61) {
            for (const ref of dte.refs) {
                if (ref.otherRut || (ref.code !== 1 && ref.code !== 2 && ref.code !== 3))
                    continue;
                const target = this.registry.find(dte.issuerRut, Number(ref.type), Number(ref.folio));
                target?.modifications.push({ noteType: dte.type, codRef: ref.code, upload });
            }
        }
        return result;
    }
    schedule(upload) {
        if (isFinal(upload)) {
            this.events.stepped();
            return;
        }
        const timer = setTimeout(() => {
            this.timers.delete(timer);
            upload.step++;
            this.events.stepped();
            this.schedule(upload);
        }, this.stepDelayMs);
        timer.unref();
        this.timers.add(timer);
    }
    /** Resolves once every upload received so far has reached its final state. */
    settled() {
        return this.events.settled(() => this.uploads.every(isFinal));
    }
    stop() {
        for (const t of this.timers)
            clearTimeout(t);
        this.timers.clear();
    }
}
