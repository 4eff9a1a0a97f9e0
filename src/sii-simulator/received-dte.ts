import { createHash } from 'node:crypto';
import { at, child, childElements, textOf } from '../dte/dom.ts';
import type { Element } from '@xmldom/xmldom';
import { type ReadTed, readTed } from '../dte/ted-read.ts';
import { parseXml, stripXmlDeclaration } from '../dte/xmldsig.ts';

interface ReceivedReference {
  /** TpoDocRef as written (a type number or a code such as SET). */
  type: string;
  folio: string;
  /** CodRef when numeric. */
  code: number | null;
  /** FchRef as written ('' when absent). */
  date: string;
  /** RUTOtr: the referenced document belongs to another taxpayer. */
  otherRut: string | null;
}

export interface ReceivedDte {
  /** The `<DTE>…</DTE>` text exactly as it stood in the envelope. */
  text: string;
  sha256: string;
  /** `Documento/@ID`, which the DTE signature must reference. */
  documentId: string;
  type: number;
  folio: number;
  date: string;
  issuerRut: string;
  receiverRut: string;
  /** MntTotal as written (the TED's MNT must be byte-identical, docs/sii-reference.md §3.1). */
  total: string;
  refs: ReceivedReference[];
  /** Null when the document carries no TED, or one that cannot be read. */
  ted: ReadTed | null;
}

/** Reads a DTE cut out of an envelope; null when it is not a readable DTE. */
export function readDte(text: string): ReceivedDte | null {
  let root: Element | null;
  try {
    root = parseXml(stripXmlDeclaration(text)).documentElement;
  } catch {
    return null;
  }
  if (root?.localName !== 'DTE') return null;
  // Documento for most types; Liquidacion (43) and Exportaciones (110-112) per DTE_v10.xsd.
  const documento = childElements(root).find((e) =>
    ['Documento', 'Liquidacion', 'Exportaciones'].includes(e.localName ?? ''),
  );
  if (!documento) return null;
  const idDoc = at(documento, 'Encabezado', 'IdDoc');
  const type = Number(textOf(child(idDoc, 'TipoDTE')));
  const folio = Number(textOf(child(idDoc, 'Folio')));
  if (!Number.isInteger(type) || !Number.isInteger(folio) || type <= 0 || folio <= 0) return null;
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
