/**
 * The last check before a document is stored (docs/design.md §7 "every stored document verifies"):
 * the exact bytes about to be persisted are parsed again by libxml2 — the engine of xmllint
 * and xmlsec1, and the kind of XML 1.0 parser the SII runs — and must pass the XSD, the
 * XMLDSig digest and SignatureValue over those bytes, and the TED's FRMT over its DD.
 *
 * Signing reads our own text (as written, or parsed by @xmldom/xmldom); this check
 * deliberately uses another parser, so a character that one of them reads differently (U+0085
 * and U+2028 were turned into line breaks by one and kept by the other) fails here instead of
 * reaching the SII. The
 * character policy of `issue-request.ts` refuses such characters with a 400 first; this check
 * is the net under it, and its failure is a Timbre bug (500, nothing stored, folio released).
 */
import { createHash, type KeyObject, verify } from 'node:crypto';
import { XmlDocument } from 'libxml2-wasm';
import { validateParsedDte } from './xsd.ts';

export interface StoredCheck {
  valid: boolean;
  /** What failed (XSD messages, "digest mismatch", …). */
  errors: string[];
}

const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

/** The DD and FRMT of the TED as written in the bytes (the SII verifies FRMT over the DD text). */
const TED = /<TED version="1\.0">(<DD>[\s\S]*?<\/DD>)<FRMT algoritmo="SHA1withRSA">([^<]*)<\/FRMT><\/TED>/;

/**
 * Verifies the stored form of a signed DTE (ISO-8859-1 bytes with the XML declaration):
 * `certificateKey` is the public key of the certificate that signed it, `cafKey` the public
 * key of the CAF that stamped it.
 *
 * One parse: libxml2 reads the bytes once; that tree is canonicalised whole (C14N 1.0, before
 * the XSD check touches it) and validated against the XSD. The digest and SignatureValue are
 * then checked over elements cut from that canonical text (`canonicalSubset`), and the TED
 * over its DD as written in the bytes.
 */
export function verifyStoredDte(
  bytes: Uint8Array,
  keys: { certificateKey: KeyObject; cafKey: KeyObject },
): StoredCheck {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromBuffer(bytes);
  } catch (e) {
    return { valid: false, errors: [`not well-formed: ${(e as Error).message}`] };
  }
  let canonical: string;
  try {
    canonical = doc.canonicalizeToString();
    const errors = validateParsedDte(doc, bytes);
    if (errors.length) return { valid: false, errors };
  } finally {
    doc.dispose();
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const errors = [...checkSignature(canonical, keys.certificateKey), ...checkTed(text, keys.cafKey)];
  return { valid: errors.length === 0, errors };
}

function checkSignature(canonical: string, key: KeyObject): string[] {
  const tree = elementsOf(canonical);
  const root = tree[0];
  const signature = root && childOf(tree, root, 'Signature', DSIG_NS);
  const signedInfo = signature && childOf(tree, signature, 'SignedInfo', DSIG_NS);
  const reference = signedInfo && childOf(tree, signedInfo, 'Reference', DSIG_NS);
  if (!root || !signature || !signedInfo || !reference) return ['no Signature on the DTE'];
  const uri = attributeOf(reference, 'URI') ?? '';
  const id = uri.startsWith('#') ? uri.slice(1) : '';
  const target = id ? tree.find((e) => e.parent === root && attributeOf(e, 'ID') === id) : undefined;
  if (!target) return [`the signed element ${uri} is missing`];
  const digestValue = childOf(tree, reference, 'DigestValue', DSIG_NS);
  const signatureValue = childOf(tree, signature, 'SignatureValue', DSIG_NS);
  const digest = createHash('sha1').update(canonicalSubset(canonical, target), 'utf8').digest('base64');
  if (!digestValue || digest !== textOf(canonical, digestValue)) {
    return ['XMLDSig digest mismatch: the stored bytes are not the bytes that were signed'];
  }
  const value = Buffer.from(signatureValue ? textOf(canonical, signatureValue) : '', 'base64');
  const ok = verify('sha1', Buffer.from(canonicalSubset(canonical, signedInfo), 'utf8'), key, value);
  return ok ? [] : ['XMLDSig SignatureValue does not verify'];
}

/** An element of a canonical text: where its tags are, and what its start tag declares. */
export interface CanonicalElement {
  /** The qualified name, as written. */
  name: string;
  localName: string;
  parent: CanonicalElement | null;
  /** Namespace declarations on the element itself: prefix ('' for the default) → URI. */
  declares: [prefix: string, uri: string][];
  /** The other attributes, as written (` name="value"`, in C14N order). */
  attributes: string;
  /** Offsets: the start tag's end, and the end of the end tag. */
  openEnd: number;
  end: number;
}

/**
 * Start tags, end tags and processing instructions of a C14N text. Canonical XML has no
 * comments here, no CDATA, no empty-element tags, attribute values in double quotes with `"`
 * and `<` escaped, and text with `<` escaped: every `<` opens a tag or a processing instruction.
 */
const TOKEN = /<(\/?)([^\s>/]+)((?:\s[^\s=]+="[^"]*")*)>|<\?[\s\S]*?\?>/g;
const ATTRIBUTE = /\s([^\s=]+)="([^"]*)"/g;

/**
 * The elements of a canonical text down to the depth where a DTE's signature parts live
 * (DTE / Signature / SignedInfo / Reference / DigestValue), in document order; deeper elements
 * are walked past, not kept.
 */
export function elementsOf(canonical: string, maxDepth = 4): CanonicalElement[] {
  const kept: CanonicalElement[] = [];
  const open: (CanonicalElement | null)[] = [];
  for (const m of canonical.matchAll(TOKEN)) {
    const name = m[2];
    if (name === undefined) continue; // a processing instruction
    if (m[1]) {
      const element = open.pop();
      if (element) element.end = m.index + m[0].length;
      continue;
    }
    if (open.length > maxDepth) {
      open.push(null);
      continue;
    }
    const declares: [string, string][] = [];
    let attributes = '';
    for (const a of (m[3] ?? '').matchAll(ATTRIBUTE)) {
      const [whole, qname = '', value = ''] = a;
      if (qname === 'xmlns') declares.push(['', value]);
      else if (qname.startsWith('xmlns:')) declares.push([qname.slice(6), value]);
      else attributes += whole;
    }
    const colon = name.indexOf(':');
    const element: CanonicalElement = {
      name,
      localName: colon < 0 ? name : name.slice(colon + 1),
      parent: open.at(-1) ?? null,
      declares,
      attributes,
      openEnd: m.index + m[0].length,
      end: -1,
    };
    kept.push(element);
    open.push(element);
  }
  return kept;
}

/** The namespace declarations in scope at `element` (its own and its ancestors'), prefix → URI. */
function inScope(element: CanonicalElement): Map<string, string> {
  const chain: CanonicalElement[] = [];
  for (let e: CanonicalElement | null = element; e; e = e.parent) chain.unshift(e);
  const scope = new Map<string, string>();
  for (const e of chain) for (const [prefix, uri] of e.declares) scope.set(prefix, uri);
  return scope;
}

function namespaceOf(element: CanonicalElement): string {
  const colon = element.name.indexOf(':');
  return inScope(element).get(colon < 0 ? '' : element.name.slice(0, colon)) ?? '';
}

function childOf(
  tree: CanonicalElement[],
  parent: CanonicalElement,
  localName: string,
  ns: string,
): CanonicalElement | undefined {
  return tree.find((e) => e.parent === parent && e.localName === localName && namespaceOf(e) === ns);
}

/** An attribute's value (unqualified name), with the references C14N writes in values turned back. */
function attributeOf(element: CanonicalElement, name: string): string | undefined {
  for (const [, qname, value = ''] of element.attributes.matchAll(ATTRIBUTE)) {
    if (qname === name) {
      return value
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&#x(9|A|D);/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
        .replace(/&amp;/g, '&');
    }
  }
  return undefined;
}

/** The text content of an element holding only base64 (whitespace dropped). */
function textOf(canonical: string, element: CanonicalElement): string {
  return canonical
    .slice(element.openEnd, element.end)
    .replace(/<[^>]*>/g, '')
    .replace(/\s+|&#xD;/g, '');
}

/**
 * Inclusive C14N 1.0 of one element as a document subset (what XMLDSig digests), from the
 * canonical text of its whole document: the same characters, except that the apex's start tag
 * carries every namespace declaration in scope at it (C14N §2.3: an element's namespace nodes
 * are those in scope; an ancestor outside the subset no longer declares them), the default
 * namespace first, then by prefix, an empty default left out, before its attributes. C14N 1.0
 * would also import `xml:*` attributes from ancestors; the XSD allows none on a DTE.
 * test/unit/verify-stored.test.ts checks this against libxml2 canonicalising the element in place.
 */
export function canonicalSubset(canonical: string, element: CanonicalElement): string {
  const declarations = [...inScope(element)]
    .filter(([prefix, uri]) => prefix !== '' || uri !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([prefix, uri]) => (prefix ? ` xmlns:${prefix}="${uri}"` : ` xmlns="${uri}"`))
    .join('');
  return `<${element.name}${declarations}${element.attributes}>${canonical.slice(element.openEnd, element.end)}`;
}

function checkTed(text: string, cafKey: KeyObject): string[] {
  const m = TED.exec(text);
  if (!m?.[1] || !m[2]) return ['no TED in the document'];
  const ok = verify('sha1', Buffer.from(m[1], 'latin1'), cafKey, Buffer.from(m[2], 'base64'));
  return ok ? [] : ['TED FRMT does not verify over its DD'];
}
