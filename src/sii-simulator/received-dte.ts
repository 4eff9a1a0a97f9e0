/**
 * A DTE as the SII reads it out of an envelope: cut out verbatim (docs/sii-reference.md §5.1) and parsed
 * alone, with the fields the checks compare (IdDoc, Emisor, Receptor, Totales, Referencia, TED).
 */
import type { Caf } from '../dte/caf.ts';
import { createHash } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { extractDd } from '../dte/ted.ts';
import { flatten, unescapeXml } from '../dte/xml-text.ts';
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

/**
 * The CAF element a TED carries (DD/CAF), as the SII re-reads it: a CAF without its keys, its
 * FA as written (the checks judge it).
 */
export type TedCaf = Omit<Caf, 'rs' | 'privateKeyPem' | 'fa'> & { fa: string };

export interface ReceivedTed {
  /** The flattened DD, what FRMT signs. */
  dd: string;
  re: string;
  td: string;
  f: string;
  fe: string;
  rr: string;
  mnt: string;
  frmt: string;
  caf: TedCaf | null;
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
  ted: ReceivedTed | null;
}

function childElements(el: Element): Element[] {
  const out: Element[] = [];
  for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) out.push(c as Element);
  return out;
}

function child(el: Element | null | undefined, name: string): Element | null {
  return el ? (childElements(el).find((c) => c.localName === name) ?? null) : null;
}

function at(el: Element | null, ...path: string[]): Element | null {
  let node = el;
  for (const name of path) node = child(node, name);
  return node;
}

const textOf = (el: Element | null): string => (el?.textContent ?? '').trim();

/** The first `<name>…</name>` of a flattened fragment, entities kept as written. */
function raw(fragment: string, name: string): string | null {
  return new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(fragment)?.[1] ?? null;
}

function parseTedCaf(dd: string): TedCaf | null {
  const cafXml = /<CAF\b[^>]*>[\s\S]*<\/CAF>/.exec(dd)?.[0];
  const daXml = cafXml ? /<DA>[\s\S]*<\/DA>/.exec(cafXml)?.[0] : undefined;
  if (!cafXml || !daXml) return null;
  const values = {
    re: raw(daXml, 'RE'),
    td: raw(daXml, 'TD'),
    from: raw(daXml, 'D'),
    to: raw(daXml, 'H'),
    fa: raw(daXml, 'FA'),
    idk: raw(daXml, 'IDK'),
    modulus: raw(daXml, 'M'),
    exponent: raw(daXml, 'E'),
    frma: raw(cafXml.slice(cafXml.indexOf('</DA>')), 'FRMA'),
  };
  if (Object.values(values).some((v) => v === null)) return null;
  const v = values as Record<keyof typeof values, string>;
  return {
    re: unescapeXml(v.re).trim(),
    td: Number(v.td),
    from: Number(v.from),
    to: Number(v.to),
    fa: v.fa.trim(),
    idk: Number(v.idk),
    modulus: v.modulus.trim(),
    exponent: v.exponent.trim(),
    frma: v.frma.replace(/\s+/g, ''),
    daXml: flatten(daXml),
    cafXml: flatten(cafXml),
  };
}

function parseTed(dteText: string): ReceivedTed | null {
  const tedText = /<TED\b[^>]*>[\s\S]*?<\/TED>/.exec(dteText)?.[0];
  const dd = tedText ? extractDd(tedText) : null;
  if (!tedText || !dd) return null;
  // DD's own fields come before the CAF inside it (DTE_v10.xsd TED/DD sequence).
  const head = dd.slice(0, dd.search(/<CAF\b/) < 0 ? dd.length : dd.search(/<CAF\b/));
  const fields = ['RE', 'TD', 'F', 'FE', 'RR', 'MNT'].map((n) => raw(head, n));
  const frmt = raw(tedText.replace(/>\s+</g, '><'), 'FRMT');
  if (fields.some((f) => f === null) || frmt === null) return null;
  const [re, td, f, fe, rr, mnt] = fields as string[];
  return {
    dd,
    re: unescapeXml(re!),
    td: td!,
    f: f!,
    fe: fe!,
    rr: unescapeXml(rr!),
    mnt: mnt!,
    frmt: frmt.replace(/\s+/g, ''),
    caf: parseTedCaf(dd),
  };
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
    ted: parseTed(text),
  };
}
