/**
 * The last check before a document is stored (DESIGN §7 "every stored document verifies"):
 * the exact bytes about to be persisted are parsed again by libxml2 — the engine of xmllint
 * and xmlsec1, and the kind of XML 1.0 parser the SII runs — and must pass the XSD, the
 * XMLDSig digest and SignatureValue over those bytes, and the TED's FRMT over its DD.
 *
 * Signing parses our own text with @xmldom/xmldom; this check deliberately uses another
 * parser, so a character that one of them reads differently (U+0085 and U+2028 were turned
 * into line breaks by one and kept by the other) fails here instead of reaching the SII. The
 * character policy of `issue-request.ts` refuses such characters with a 400 first; this check
 * is the net under it, and its failure is a Timbre bug (500, nothing stored, folio released).
 */
import { createHash, type KeyObject, verify } from 'node:crypto';
import { XmlDocument, XmlElement } from 'libxml2-wasm';
import { validateParsedDte } from './xsd.ts';

export interface StoredCheck {
  valid: boolean;
  /** What failed (XSD messages, "digest mismatch", …). */
  errors: string[];
}

const SIG = { ds: 'http://www.w3.org/2000/09/xmldsig#' };

/** The DD and FRMT of the TED as written in the bytes (the SII verifies FRMT over the DD text). */
const TED = /<TED version="1\.0">(<DD>[\s\S]*?<\/DD>)<FRMT algoritmo="SHA1withRSA">([^<]*)<\/FRMT><\/TED>/;

/**
 * Verifies the stored form of a signed DTE (ISO-8859-1 bytes with the XML declaration):
 * `certificateKey` is the public key of the certificate that signed it, `cafKey` the public
 * key of the CAF that stamped it.
 */
/** Exported for the tests: the canonical form of one element of a stored document. */
export { canonicalElement };

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
  try {
    const errors = validateParsedDte(doc, bytes);
    if (errors.length) return { valid: false, errors };
    errors.push(...checkSignature(doc, bytes, keys.certificateKey));
    errors.push(...checkTed(bytes, keys.cafKey));
    return { valid: errors.length === 0, errors };
  } finally {
    doc.dispose();
  }
}

function checkSignature(doc: XmlDocument, bytes: Uint8Array, key: KeyObject): string[] {
  const signature = doc.get('/*/ds:Signature', SIG);
  const signedInfo = signature?.get('ds:SignedInfo', SIG);
  const reference = signedInfo?.get('ds:Reference', SIG);
  if (!(signedInfo instanceof XmlElement) || !(reference instanceof XmlElement)) return ['no Signature on the DTE'];
  const uri = reference.attr('URI')?.value ?? '';
  const id = uri.startsWith('#') ? uri.slice(1) : '';
  const target = id ? doc.get(`/*/*[@ID="${id.replace(/"/g, '')}"]`) : null;
  if (!(target instanceof XmlElement)) return [`the signed element ${uri} is missing`];
  const text = Buffer.from(bytes).toString('latin1');
  const documento = canonicalElement(
    text,
    target.name,
    new RegExp(`<${target.name}\\s[^>]*\\bID="${escapeRegExp(id)}"`),
  );
  const signed = canonicalElement(text, 'SignedInfo', /<SignedInfo[\s>]/);
  if (documento === null || signed === null) return ['the signed elements could not be read back'];
  const digest = createHash('sha1').update(documento, 'utf8').digest('base64');
  const written = reference.get('ds:DigestValue', SIG)?.content.replace(/\s+/g, '') ?? '';
  if (digest !== written) return ['XMLDSig digest mismatch: the stored bytes are not the bytes that were signed'];
  const value = Buffer.from(signature?.get('ds:SignatureValue', SIG)?.content.replace(/\s+/g, '') ?? '', 'base64');
  const ok = verify('sha1', Buffer.from(signed, 'utf8'), key, value);
  return ok ? [] : ['XMLDSig SignatureValue does not verify'];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Inclusive C14N 1.0 of one element of the stored text, by libxml2: the element's bytes, with
 * the namespace declarations in scope at it (those of its ancestors it does not redeclare),
 * parsed alone under the document's ISO-8859-1 declaration and canonicalised whole. That is
 * what canonicalising the subtree in place gives (test/unit/verify-stored.test.ts), at a third of the
 * cost: libxml2-wasm's subtree canonicalisation calls back into JavaScript for every node of
 * the document. The document has passed the XSD, and caller text is escaped, so the tags found
 * are the elements.
 */
function canonicalElement(text: string, name: string, open: RegExp): string | null {
  const start = open.exec(text)?.index ?? -1;
  const close = `</${name}>`;
  const end = start < 0 ? -1 : text.indexOf(close, start);
  if (end < 0) return null;
  const element = text.slice(start, end + close.length);
  const openTag = element.slice(0, element.indexOf('>') + 1);
  const declared = (tag: string) =>
    [...tag.matchAll(/\sxmlns(?::([\w.-]+))?="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? ''] as const);
  // In scope at the element: the declarations on its ancestors' open tags, innermost first.
  const own = new Set(declared(openTag).map(([prefix]) => prefix));
  const extra: string[] = [];
  for (const tag of openTagsAt(text.slice(0, start)).reverse()) {
    for (const [prefix, uri] of declared(tag)) {
      if (own.has(prefix)) continue;
      own.add(prefix);
      extra.push(prefix ? ` xmlns:${prefix}="${uri}"` : ` xmlns="${uri}"`);
    }
  }
  const rewritten = `<${name}${extra.join('')}${element.slice(name.length + 1)}`;
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromBuffer(Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${rewritten}`, 'latin1'));
  } catch {
    return null;
  }
  try {
    return doc.canonicalizeToString();
  } finally {
    doc.dispose();
  }
}

/** The open tags of the elements still open at the end of `before` (outermost first). */
function openTagsAt(before: string): string[] {
  const stack: string[] = [];
  for (const m of before.matchAll(/<(\/?)[\w:.-]+(?:\s[^>]*?)?(\/?)>/g)) {
    if (m[1]) stack.pop();
    else if (!m[2]) stack.push(m[0]);
  }
  return stack;
}

function checkTed(bytes: Uint8Array, cafKey: KeyObject): string[] {
  const m = TED.exec(Buffer.from(bytes).toString('latin1'));
  if (!m?.[1] || !m[2]) return ['no TED in the document'];
  const ok = verify('sha1', Buffer.from(m[1], 'latin1'), cafKey, Buffer.from(m[2], 'base64'));
  return ok ? [] : ['TED FRMT does not verify over its DD'];
}
