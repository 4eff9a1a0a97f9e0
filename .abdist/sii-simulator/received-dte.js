import { createHash } from 'node:crypto';
import { at, child, childElements, textOf } from '../dte/dom.js';
import { readTed } from '../dte/ted-read.js';
import { parseXml, stripXmlDeclaration } from '../dte/xmldsig.js';
/** Reads a DTE cut out of an envelope; null when it is not a readable DTE. */
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
    // Documento for most types; Liquidacion (43) and Exportaciones (110-112) per DTE_v10.xsd.
    const documento = childElements(root).find((e) => ['Documento', 'Liquidacion', 'Exportaciones'].includes(e.localName ?? ''));
    if (!documento)
        return null;
    const idDoc = at(documento, 'Encabezado', 'IdDoc');
    const type = Number(textOf(child(idDoc, 'TipoDTE')));
    const folio = Number(textOf(child(idDoc, 'Folio')));
    if (!Number.isInteger(type) || !Number.isInteger(folio) || type <= 0 || folio <= 0)
        return null;
    const refs = childElements(documento)
        .filter((e) => e.localName === 'Referencia')
        .map((r) => {
        const code = textOf(child(r, 'CodRef'));
        return {
            type: textOf(child(r, 'TpoDocRef')),
            folio: textOf(child(r, 'FolioRef')),
            code: /^\d+$/.test(code) ? Number(code) : null,
            date: textOf(child(r, 'FchRef')),
            otherRut: textOf(child(r, 'RUTOtr')) || null,
        };
    });
    return {
        text,
        sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
        documentId: documento.getAttribute('ID') ?? '',
        type,
        folio,
        date: textOf(child(idDoc, 'FchEmis')),
        issuerRut: textOf(at(documento, 'Encabezado', 'Emisor', 'RUTEmisor')),
        receiverRut: textOf(at(documento, 'Encabezado', 'Receptor', 'RUTRecep')),
        total: textOf(at(documento, 'Encabezado', 'Totales', 'MntTotal')),
        refs,
        ted: readTed(text),
    };
}
