import { generateCaf } from '../dte/caf.js';
import { todayInSantiago } from '../dte/chile-time.js';
/** IDK of the simulator's CAFs: the certification key id (docs/sii-reference.md §2). */
export const SIMULATOR_CAF_IDK = 100;
export const DEFAULT_MAX_FOLIOS_PER_REQUEST = 10_000;
/** Document types the portal stamps (DTE_v10.xsd DOCType and the boletas). */
export const STAMPABLE_TYPES = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112];
export class CafIssuer {
    signerKey;
    clock;
    issuers;
    maxPerRequest;
    lastFolio = new Map();
    issuedCafs = [];
    constructor(signerKey, clock, issuers, maxPerRequest = DEFAULT_MAX_FOLIOS_PER_REQUEST) {
        this.signerKey = signerKey;
        this.clock = clock;
        this.issuers = issuers;
        this.maxPerRequest = maxPerRequest;
    }
    /** Stamps `count` new folios of `type` for `rut`, right after the last range handed out. */
    issue(rut, type, count) {
        if (!STAMPABLE_TYPES.includes(type))
            throw new Error(`type ${type} cannot be stamped`);
        if (!Number.isInteger(count) || count < 1 || count > this.maxPerRequest) {
            throw new Error(`the quantity must be between 1 and ${this.maxPerRequest}`);
        }
        const key = `${rut}|${type}`;
        const from = (this.lastFolio.get(key) ?? 0) + 1;
        const to = from + count - 1;
        const authorisedAt = todayInSantiago(this.clock);
        const xml = generateCaf({
            rut,
            name: this.issuers.get(rut)?.name ?? `CONTRIBUYENTE ${rut}`,
            type,
            from,
            to,
            authorisedAt,
            signerKey: this.signerKey,
            idk: SIMULATOR_CAF_IDK,
        });
        this.lastFolio.set(key, to);
        const caf = { rut, type, from, to, authorisedAt, file: Buffer.from(xml, 'latin1') };
        this.issuedCafs.push(caf);
        return caf;
    }
    issued() {
        return this.issuedCafs;
    }
}
