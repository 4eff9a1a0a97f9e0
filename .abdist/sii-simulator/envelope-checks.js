/**
 * The SII's checks on a whole envelope (EnvioDTE / EnvioBOLETA, docs/sii-reference.md §6, §7.7):
 *
 * 1. screening (at upload): the root names a known schema, no physical line longer than the
 *    gateway reads (docs/sii-reference.md §7.3: `CHR-00002 Line too long (4090)`), and the XSD
 *    (EnvioDTE_v10.xsd / EnvioBOLETA_v11.xsd) → DTEUpload STATUS 7, REST RSC;
 * 2. the SetDTE signature, verified in the envelope's context → RFR;
 * 3. the Carátula → RCT.
 */
import { child, childElements, textOf } from '../dte/dom.js';
import { SII_RUT } from '../dte/rut.js';
import { decodeXmlBytes } from '../dte/xml-text.js';
import { parseXml, stripXmlDeclaration, verifyRootSignature } from '../dte/xmldsig.js';
import { validateXml } from '../dte/xsd.js';
/** The gateway reads lines of at most this many bytes (docs/sii-reference.md §7.3). */
const MAX_LINE_BYTES = 4090;
const ROOTS = { EnvioDTE: 'dte', EnvioBOLETA: 'boleta' };
const SCHEMAS = { dte: 'EnvioDTE_v10.xsd', boleta: 'EnvioBOLETA_v11.xsd' };
function rootName(bytes) {
    const head = bytes.subarray(0, 4096).toString('latin1');
    const body = head.replace(/^\uFEFF?\s*(<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*)*/, '');
    return /^<(?:[\w.-]+:)?([\w.-]+)/.exec(body)?.[1] ?? null;
}
function longestLine(bytes) {
    let longest = 0;
    let start = 0;
    for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, start)) {
        longest = Math.max(longest, i - start);
        start = i + 1;
    }
    return Math.max(longest, bytes.length - start);
}
/** Step 1: schema name, line length and XSD validation. `accepted` are the envelopes this channel takes. */
export function screenEnvelope(bytes, accepted) {
    const root = rootName(bytes);
    const kind = root ? (ROOTS[root] ?? null) : null;
    if (!kind || !accepted.includes(kind)) {
        return { kind: null, errors: [`SCH-00001: Invalid Schema Name${root ? ` (${root})` : ''}`] };
    }
    if (longestLine(bytes) > MAX_LINE_BYTES)
        return { kind, errors: [`CHR-00002: Line too long (${MAX_LINE_BYTES})`] };
    const result = validateXml(bytes, SCHEMAS[kind]);
    return { kind, errors: result.errors };
}
/** The envelope as text: its bytes decoded by their declaration (ISO-8859-1 as a rule). */
export function envelopeText(bytes) {
    return decodeXmlBytes(bytes);
}
/** SetDTE/@ID and the Carátula of a schema-valid envelope. */
export function readCaratula(text) {
    let root;
    try {
        root = parseXml(stripXmlDeclaration(text)).documentElement;
    }
    catch {
        return null;
    }
    const setDte = child(root, 'SetDTE');
    const caratula = child(setDte, 'Caratula');
    if (!setDte || !caratula)
        return null;
    return {
        setId: setDte.getAttribute('ID') ?? '',
        rutEmisor: textOf(child(caratula, 'RutEmisor')),
        rutEnvia: textOf(child(caratula, 'RutEnvia')),
        rutReceptor: textOf(child(caratula, 'RutReceptor')),
        fchResol: textOf(child(caratula, 'FchResol')),
        nroResol: textOf(child(caratula, 'NroResol')),
        subTotals: childElements(caratula)
            .filter((e) => e.localName === 'SubTotDTE')
            .map((s) => ({ type: Number(textOf(child(s, 'TpoDTE'))), count: Number(textOf(child(s, 'NroDTE'))) })),
    };
}
/** Step 2: the SetDTE signature, in context, referencing the SetDTE (docs/sii-reference.md §5.1 step 4). */
export function setSignatureValid(text, setId) {
    const check = verifyRootSignature(text);
    return check.valid && setId !== '' && check.referenceUri === `#${setId}`;
}
/**
 * Step 3: the Carátula rules (docs/sii-reference.md §6, §7.7). Returns the RCT glosa of the first broken
 * rule, or null. Only CRT-3-19 is a documented code; the other glosas are the simulator's.
 */
export function caratulaError(caratula, dtes, ctx) {
    if (caratula.rutEmisor !== ctx.companyRut) {
        return `RutEmisor ${caratula.rutEmisor} de la Caratula no corresponde a la empresa ${ctx.companyRut}`;
    }
    const foreign = dtes.find((d) => d.issuerRut !== caratula.rutEmisor);
    if (foreign) {
        return `RUTEmisor ${foreign.issuerRut} del DTE T${foreign.type}F${foreign.folio} distinto del RutEmisor de la Caratula`;
    }
    if (caratula.rutReceptor !== SII_RUT)
        return `RutReceptor ${caratula.rutReceptor} debe ser ${SII_RUT}`;
    if (caratula.rutEnvia !== ctx.senderRut) {
        return `RutEnvia ${caratula.rutEnvia} no corresponde al usuario autenticado ${ctx.senderRut}`;
    }
    const counted = new Map();
    for (const d of dtes)
        counted.set(d.type, (counted.get(d.type) ?? 0) + 1);
    const declared = new Map(caratula.subTotals.map((s) => [s.type, s.count]));
    const sameTypes = counted.size === declared.size && [...counted].every(([t, n]) => declared.get(t) === n);
    if (!sameTypes)
        return 'SubTotDTE no cuadra con los DTE del envio';
    const issuer = ctx.issuer;
    if (issuer &&
        (caratula.fchResol !== issuer.resolutionDate || caratula.nroResol !== String(issuer.resolutionNumber))) {
        return '(CRT-3-19) Fecha/Numero Resolucion Invalido';
    }
    return null;
}
