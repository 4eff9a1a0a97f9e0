/**
 * Timbre's real SII client: the SiiClient of src/sii/types.ts over the SII's services
 * (docs/sii-reference.md §7, §8), one adapter per service the SII runs:
 * - dtews.ts: facturas, notas, guías — the DTEWS SOAP services, the DTEUpload CGI and the
 *   folio portal;
 * - boleta.ts: boletas — the boleta REST API;
 * - registro-reclamo.ts: the claims registry (RegistroReclamoDTE), with the DTEWS token;
 * - rpetc.ts: the registry of cesiones (RPETC: AEC upload, wsRPETCConsulta), with the DTEWS token.
 *
 * Layers, bottom up:
 * - src/sii/http.ts: one HTTP exchange with a timeout, failures classified as unavailable
 *   (safe to repeat) or ambiguous (the SII may have the request);
 * - src/sii/soap.ts, multipart.ts: the request bodies, in the shapes of the SII's manuals;
 * - src/sii/answers.ts: the SII's answers read into our types;
 * - session.ts: what both adapters share — the token cache per certificate and service, one
 *   re-authentication when the SII refuses a token, the signed seed, the upload form;
 * - dtews.ts, boleta.ts: the operations; here: the choice between them.
 *
 * Nothing here logs tokens, certificates or XML payloads: debug lines carry the operation,
 * the service, the track id and the time taken.
 */
import { pino } from 'pino';
import { createBoletaAdapter } from './boleta.js';
import { createDtewsAdapter } from './dtews.js';
import { createRegistroAdapter } from './registro-reclamo.js';
import { createRpetcAdapter } from './rpetc.js';
import { createSession } from './session.js';
import { TokenCache } from './token-cache.js';
/**
 * 20 minutes: long enough that a busy issuer authenticates a few times an hour, and safely
 * inside the lifetime the local simulator gives a token (30 minutes by default); the SII
 * publishes none. A token that dies earlier costs one round trip: the first refusal makes
 * the client authenticate again.
 */
const TOKEN_REUSE_MS = 20 * 60_000;
export function createSiiClient(opts) {
    const clock = opts.clock ?? (() => new Date());
    const log = opts.log ?? pino({ level: 'silent' });
    const tokens = new TokenCache(opts.tokenTtlMs ?? TOKEN_REUSE_MS, () => clock().getTime());
    const session = createSession(opts.config, log, tokens);
    const dte = createDtewsAdapter(session);
    const boleta = createBoletaAdapter(session);
    return {
        upload: (input) => (input.service === 'boleta' ? boleta : dte).upload(input),
        uploadStatus: (input) => (input.service === 'boleta' ? boleta : dte).uploadStatus(input),
        documentStatus: (input) => (input.service === 'boleta' ? boleta : dte).documentStatus(input),
        // Folios come from the portal, which takes the DTEWS session for every document type.
        requestCaf: (input) => dte.requestCaf(input),
        registro: createRegistroAdapter(session, (cert) => dte.authenticate(cert)),
        rpetc: createRpetcAdapter(session, (cert) => dte.authenticate(cert)),
    };
}
