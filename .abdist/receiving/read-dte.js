/**
 * A received DTE read leniently into what Timbre shows and checks: identity (type, folio,
 * issuer, receiver, date), totals, lines, references and the TED. Suppliers' XML differs from
 * Timbre's own (docs/receiving.md §1): no namespace on `<DTE>`, `windows-1252` declarations,
 * CRLF, comments, types Timbre does not issue, fields Timbre does not write. Nothing here
 * refuses a document for a field it does not know; the XML itself is kept byte-exact, so
 * whatever is not read here is not lost.
 *
 * The text read is the DTE as cut out of its envelope (the SII's rule, docs/sii-reference.md
 * §5.1), the same text whose signature `verifyDte` checks: the fields shown are the fields
 * that were signed.
 */
import { at, child, childElements, textOf } from '../dte/dom.js';
import { readTed } from '../dte/ted-read.js';
import { parseXml, stripXmlDeclaration } from '../dte/xmldsig.js';
const DOCUMENT_ELEMENTS = ['Documento', 'Liquidacion', 'Exportaciones'];
const orNull = (s) => (s === '' ? null : s);
const amount = (s) => (/^-?\d+(\.\d+)?$/.test(s) ? Math.round(Number(s)) : 0);
function countIds(el, id) {
    let n = el.getAttribute('ID') === id ? 1 : 0;
    for (const c of childElements(el))
        n += countIds(c, id);
    return n;
}
/** Reads a DTE cut out of an envelope (or uploaded alone); null when it is not a readable DTE. */
export function readDte(text) {
    let root;
    try {
        root = parseXml(stripXmlDeclaration(text)).documentElement;
    }
    catch {
        return null;
    }
    if (root?.localName !== 'DTE')
        return null;
    const documento = childElements(root).find((e) => DOCUMENT_ELEMENTS.includes(e.localName ?? ''));
    if (!documento)
        return null;
    const idDoc = at(documento, 'Encabezado', 'IdDoc');
    const type = Number(textOf(child(idDoc, 'TipoDTE')));
    const folio = Number(textOf(child(idDoc, 'Folio')));
    if (!Number.isSafeInteger(type) || !Number.isSafeInteger(folio) || type <= 0 || folio <= 0)
        return null;
    const emisor = at(documento, 'Encabezado', 'Emisor');
    const receptor = at(documento, 'Encabezado', 'Receptor');
    const totales = at(documento, 'Encabezado', 'Totales');
    const documentId = documento.getAttribute('ID') ?? '';
    const totalText = textOf(child(totales, 'MntTotal'));
    return {
        documentId,
        idCount: documentId ? countIds(root, documentId) : 0,
        type,
        folio,
        date: textOf(child(idDoc, 'FchEmis')),
        issuerRut: textOf(child(emisor, 'RUTEmisor')),
        // RznSoc on facturas, RznSocEmisor on boletas (DTE_v10.xsd Emisor).
        issuerName: textOf(child(emisor, 'RznSoc')) || textOf(child(emisor, 'RznSocEmisor')),
        issuerEmail: textOf(child(emisor, 'CorreoEmisor')) || null,
        receiverRut: textOf(child(receptor, 'RUTRecep')),
        receiverName: textOf(child(receptor, 'RznSocRecep')),
        net: amount(textOf(child(totales, 'MntNeto'))),
        exempt: amount(textOf(child(totales, 'MntExe'))),
        vat: amount(textOf(child(totales, 'IVA'))),
        total: amount(totalText),
        totalText,
        lines: childElements(documento)
            .filter((e) => e.localName === 'Detalle')
            .map((d, i) => ({
            line: Number(textOf(child(d, 'NroLinDet'))) || i + 1,
            name: textOf(child(d, 'NmbItem')),
            qty: orNull(textOf(child(d, 'QtyItem'))),
            price: orNull(textOf(child(d, 'PrcItem'))),
            amount: textOf(child(d, 'MontoItem')),
            exempt: textOf(child(d, 'IndExe')) !== '',
        })),
        refs: childElements(documento)
            .filter((e) => e.localName === 'Referencia')
            .map((r) => ({
            type: textOf(child(r, 'TpoDocRef')),
            folio: textOf(child(r, 'FolioRef')),
            date: textOf(child(r, 'FchRef')),
            code: orNull(textOf(child(r, 'CodRef'))),
            reason: orNull(textOf(child(r, 'RazonRef'))),
        })),
        ted: readTed(text),
    };
}
