import { isBoleta } from './model.js';
import { SII_RUT } from './rut.js';
import { escapeXml } from './xml-text.js';
import { encodeLatin1, signXml, stripXmlDeclaration, withXmlDeclaration } from './xmldsig.js';
import { validateXml } from './xsd.js';
export const SET_ID = 'SetDoc';
export function envelopeKindOf(type) {
    return isBoleta(type) ? 'boleta' : 'dte';
}
const ROOTS = {
    dte: { name: 'EnvioDTE', schema: 'EnvioDTE_v10.xsd' },
    boleta: { name: 'EnvioBOLETA', schema: 'EnvioBOLETA_v11.xsd' },
};
/** The signed envelope of one or more DTEs of the same issuer, as ISO-8859-1 bytes. */
export function buildEnvelope(kind, docs, caratula, cert) {
    if (docs.length === 0)
        throw new Error('an envelope needs at least one document');
    for (const d of docs) {
        if (envelopeKindOf(d.type) !== kind)
            throw new Error(`type ${d.type} does not belong in ${ROOTS[kind].name}`);
    }
    const counts = new Map();
    for (const d of docs)
        counts.set(d.type, (counts.get(d.type) ?? 0) + 1);
    const subTotals = [...counts]
        .sort(([a], [b]) => a - b)
        .map(([type, n]) => `<SubTotDTE>\n<TpoDTE>${type}</TpoDTE>\n<NroDTE>${n}</NroDTE>\n</SubTotDTE>\n`)
        .join('');
    const caratulaXml = `<Caratula version="1.0">\n<RutEmisor>${caratula.issuerRut}</RutEmisor>\n` +
        `<RutEnvia>${caratula.senderRut}</RutEnvia>\n<RutReceptor>${escapeXml(caratula.receiverRut ?? SII_RUT)}</RutReceptor>\n` +
        `<FchResol>${caratula.resolutionDate}</FchResol>\n<NroResol>${caratula.resolutionNumber}</NroResol>\n` +
        `<TmstFirmaEnv>${caratula.timestamp}</TmstFirmaEnv>\n${subTotals}</Caratula>\n`;
    // Latin-1 decoding maps each stored byte to one character, so re-encoding the envelope
    // reproduces every DTE byte for byte (their own character references included).
    const dtes = docs.map((d) => `${stripXmlDeclaration(Buffer.from(d.signedXml).toString('latin1')).trim()}\n`).join('');
    const root = ROOTS[kind];
    const unsigned = `<${root.name} xmlns="http://www.sii.cl/SiiDte" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
        `xsi:schemaLocation="http://www.sii.cl/SiiDte ${root.schema}" version="1.0">\n` +
        `<SetDTE ID="${SET_ID}">\n${caratulaXml}${dtes}</SetDTE>\n</${root.name}>`;
    const signed = signXml(unsigned, cert, { referenceId: SET_ID, parentClose: `</${root.name}>` });
    return encodeLatin1(withXmlDeclaration(signed));
}
/**
 * The XSD errors of an envelope's bytes against its official schema (EnvioDTE_v10.xsd or
 * EnvioBOLETA_v11.xsd), each prefixed with the schema's name; none: valid. An envelope that
 * fails is our bug and must never be uploaded (see issuing/submissions.ts).
 */
export function envelopeSchemaErrors(kind, bytes) {
    const { schema } = ROOTS[kind];
    return validateXml(bytes, schema).errors.map((e) => `${schema}: ${e}`);
}
