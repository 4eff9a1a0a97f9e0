/**
 * XMLDSig in the SII's restricted profile (docs/sii-reference.md §5, schema xmldsignature_v10.xsd):
 * inclusive C14N 1.0, RSA-SHA1, SHA-1 digest, one Reference with one Transform, and KeyInfo
 * with KeyValue/RSAKeyValue first and X509Data second.
 *
 * Signing never re-serialises the document: the digest is computed over the canonical form of
 * the referenced element as parsed from our own text, and the `<Signature>` is inserted into
 * that text as a string, so the stored bytes are exactly the signed bytes (docs/style.md §8). The
 * canonicaliser is xml-crypto's (C14N 1.0), run over @xmldom/xmldom, with the namespaces in
 * scope at the element imported as inclusive C14N requires.
 *
 * Verification implements the same profile independently of how a file was produced, and
 * knows the SII's rule for DTEs inside envelopes: a DTE is verified as if cut out and parsed
 * alone (docs/sii-reference.md §5.1; see `verifyDte`).
 */
import { createHash, createPublicKey, type KeyObject, sign, verify, X509Certificate } from 'node:crypto';
import { DOMParser, type Document as XmlDocument, type Element, type Node as XmlNode } from '@xmldom/xmldom';
import { C14nCanonicalization } from 'xml-crypto';
import type { SigningCertificate } from './certificate.ts';
import { SII_NS } from './dte-xml.ts';

export { encodeLatin1 } from './xml-text.ts';

export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

export const XML_DECLARATION = '<?xml version="1.0" encoding="ISO-8859-1"?>';

export function withXmlDeclaration(xml: string): string {
  return `${XML_DECLARATION}\n${xml}`;
}

export function stripXmlDeclaration(xml: string): string {
  return xml.replace(/^\uFEFF?\s*<\?xml[^>]*\?>\s*/, '');
}

/** What signing needs of a certificate: its private key and what KeyInfo shows. */
export type SignatureKey = Pick<
  SigningCertificate,
  'privateKey' | 'certDerBase64' | 'modulusBase64' | 'exponentBase64'
>;

/**
 * Only the signing parts of a certificate (a `SigningCertificate` carries more): what crosses to
 * a worker thread by structured clone, and what a worker keeps.
 */
export function signatureKeyOf(cert: SignatureKey): SignatureKey {
  const { privateKey, certDerBase64, modulusBase64, exponentBase64 } = cert;
  return { privateKey, certDerBase64, modulusBase64, exponentBase64 };
}

export class XmlParseError extends Error {}

/** Parses XML text strictly (any parser warning is an error). */
export function parseXml(xml: string): XmlDocument {
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning' || !/attribute .* redefined/i.test(message)) throw new XmlParseError(message);
    },
  });
  return parser.parseFromString(xml, 'text/xml');
}

const ELEMENT = 1;

function elements(node: XmlNode): Element[] {
  const out: Element[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.nodeType === ELEMENT) out.push(c as Element);
  return out;
}

function findById(node: XmlNode, id: string): Element | null {
  for (const el of elements(node)) {
    if (el.getAttribute('ID') === id) return el;
    const found = findById(el, id);
    if (found) return found;
  }
  return null;
}

function child(el: Element, localName: string, ns = DSIG_NS): Element | null {
  return elements(el).find((c) => c.localName === localName && c.namespaceURI === ns) ?? null;
}

/** Namespace declarations in scope from the ancestors, as inclusive C14N imports them on the apex. */
function ancestorNamespaces(node: Element): { prefix: string; namespaceURI: string }[] {
  const seen = new Map<string, string>();
  for (let p = node.parentNode; p && p.nodeType === ELEMENT; p = p.parentNode) {
    const attrs = (p as Element).attributes;
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs.item(i)!;
      if (a.name !== 'xmlns' && !a.name.startsWith('xmlns:')) continue;
      const prefix = a.name === 'xmlns' ? '' : a.name.slice(6);
      if (!seen.has(prefix)) seen.set(prefix, a.value);
    }
  }
  const own = new Set<string>([node.prefix ?? '']);
  const attrs = node.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const n = attrs.item(i)!.name;
    if (n === 'xmlns') own.add('');
    else if (n.startsWith('xmlns:')) own.add(n.slice(6));
  }
  return [...seen]
    .filter(([prefix, uri]) => uri !== '' && !own.has(prefix))
    .map(([prefix, namespaceURI]) => ({ prefix, namespaceURI }));
}

/** Inclusive C14N 1.0 (no comments) of an element in its document context. */
export function canonicalize(el: Element): string {
  return new C14nCanonicalization().process(el, { ancestorNamespaces: ancestorNamespaces(el) }) as string;
}

const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('base64');

const wrap64 = (b64: string) => b64.replace(/(.{64})(?=.)/g, '$1\n');

/**
 * SignedInfo, written directly in its canonical form (C14N 1.0: no empty-element tags, one
 * attribute each, no whitespace but the line breaks we put between elements), so the text in
 * the document and the text signed are the same characters; see `canonicalSignedInfo`.
 */
function signedInfoXml(args: { uri: string; transform: string; digest: string }): string {
  return (
    `<SignedInfo>\n<CanonicalizationMethod Algorithm="${C14N}"></CanonicalizationMethod>\n` +
    `<SignatureMethod Algorithm="${RSA_SHA1}"></SignatureMethod>\n<Reference URI="${args.uri}">\n<Transforms>\n` +
    `<Transform Algorithm="${args.transform}"></Transform>\n</Transforms>\n` +
    `<DigestMethod Algorithm="${SHA1}"></DigestMethod>\n<DigestValue>${args.digest}</DigestValue>\n` +
    `</Reference>\n</SignedInfo>`
  );
}

/**
 * The canonical form of SignedInfo placed as the last child of `host`: inclusive C14N puts on
 * the apex its default namespace (xmldsig, declared on Signature) and every prefixed namespace
 * in scope there, i.e. declared on the host or above (`xmlns:xsi` in an envelope,
 * docs/sii-reference.md §5.1), sorted by prefix. The tests check this against xml-crypto's canonicaliser.
 */
function canonicalSignedInfo(signedInfo: string, host: Element): string {
  const prefixed = new Map<string, string>();
  for (let el: XmlNode | null = host; el && el.nodeType === ELEMENT; el = el.parentNode) {
    const attrs = (el as Element).attributes;
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs.item(i)!;
      if (a.name.startsWith('xmlns:') && !prefixed.has(a.name.slice(6))) prefixed.set(a.name.slice(6), a.value);
    }
  }
  const declarations = [...prefixed]
    .filter(([, uri]) => uri !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([prefix, uri]) => ` xmlns:${prefix}="${uri}"`)
    .join('');
  return `<SignedInfo xmlns="${DSIG_NS}"${declarations}>${signedInfo.slice('<SignedInfo>'.length)}`;
}

/** KeyInfo of a key, written once per key object: the same ~2 KB of wrapped base64 in every signature. */
const keyInfos = new WeakMap<SignatureKey, string>();

function keyInfoXml(cert: SignatureKey): string {
  let keyInfo = keyInfos.get(cert);
  if (keyInfo === undefined) {
    keyInfo =
      `<KeyInfo>\n<KeyValue>\n<RSAKeyValue>\n` +
      `<Modulus>${wrap64(cert.modulusBase64)}</Modulus>\n<Exponent>${cert.exponentBase64}</Exponent>\n` +
      `</RSAKeyValue>\n</KeyValue>\n<X509Data>\n<X509Certificate>${wrap64(cert.certDerBase64)}</X509Certificate>\n` +
      `</X509Data>\n</KeyInfo>`;
    keyInfos.set(cert, keyInfo);
  }
  return keyInfo;
}

function signatureXml(args: { signedInfo: string; signatureValue: string; cert: SignatureKey }): string {
  return (
    `<Signature xmlns="${DSIG_NS}">\n${args.signedInfo}\n` +
    `<SignatureValue>${wrap64(args.signatureValue)}</SignatureValue>\n${keyInfoXml(args.cert)}\n</Signature>`
  );
}

export interface SignOptions {
  /** The ID of the signed element (`#ID` reference); '' signs the whole document (URI=""). */
  referenceId: string;
  /** The closing tag of the element the Signature becomes the last child of, e.g. `</DTE>`. */
  parentClose: string;
}

/**
 * Signs `xml` (no XML declaration) and returns it with the `<Signature>` inserted as the last
 * child of the element closed by `parentClose` (its last occurrence). An ID reference uses the
 * C14N transform, as the SII's own example; the whole-document reference of getToken uses
 * enveloped-signature (docs/sii-reference.md §5, §7.2).
 */
export function signXml(xml: string, cert: SignatureKey, opts: SignOptions): string {
  const doc = parseXml(xml);
  const target = opts.referenceId ? findById(doc, opts.referenceId) : doc.documentElement;
  if (!target) throw new Error(`no element with ID ${opts.referenceId}`);
  const host = doc.documentElement;
  if (!host || !opts.parentClose.startsWith(`</${host.tagName}`)) {
    throw new Error(`the Signature goes in the root element, not ${opts.parentClose}`);
  }
  // The Signature is not there yet, so the enveloped-signature transform removes nothing.
  const signedInfo = signedInfoXml({
    uri: opts.referenceId ? `#${opts.referenceId}` : '',
    transform: opts.referenceId ? C14N : ENVELOPED,
    digest: sha1(canonicalize(target)),
  });
  const value = sign('sha1', Buffer.from(canonicalSignedInfo(signedInfo, host), 'utf8'), cert.privateKey);
  const at = xml.lastIndexOf(opts.parentClose);
  if (at < 0) throw new Error(`${opts.parentClose} not found`);
  const sig = signatureXml({ signedInfo, signatureValue: value.toString('base64'), cert });
  // A line break after the Signature is harmless outside the referenced element, but with URI=""
  // it would sit inside the signed element, survive the enveloped-signature transform and
  // change the digest a verifier computes: none is added there.
  return `${xml.slice(0, at)}${sig}${opts.referenceId ? '\n' : ''}${xml.slice(at)}`;
}

/**
 * Signs a DTE (`<Signature>` after `<Documento>`, referencing its ID).
 *
 * The DTE as `buildDteXml` writes it is signed without parsing it: its `<Documento>` text is
 * already in canonical form but for the namespace declaration inclusive C14N adds on the apex
 * (`canonicalDocumento`), and SignedInfo is written in canonical form. Any text outside that
 * narrow shape (a DTE from elsewhere, a character the request rules refuse) takes the general
 * path, `signXml`: parsed by @xmldom/xmldom and canonicalised by xml-crypto. The tests check
 * that both give the same bytes; the last check before storing re-reads them with libxml2.
 */
export function signDte(xml: string, documentId: string, cert: SignatureKey): string {
  const canonical = canonicalDocumento(xml, documentId);
  if (canonical === null) return signXml(xml, cert, { referenceId: documentId, parentClose: '</DTE>' });
  const signedInfo = signedInfoXml({ uri: `#${documentId}`, transform: C14N, digest: sha1(canonical) });
  // `<DTE>` declares no prefixed namespace: SignedInfo's apex carries only Signature's default.
  const value = sign(
    'sha1',
    Buffer.from(`<SignedInfo xmlns="${DSIG_NS}">${signedInfo.slice(12)}`, 'utf8'),
    cert.privateKey,
  );
  const at = xml.length - '</DTE>'.length;
  const sig = signatureXml({ signedInfo, signatureValue: value.toString('base64'), cert });
  return `${xml.slice(0, at)}${sig}\n${xml.slice(at)}`;
}

/** How `buildDteXml` opens a DTE: the SII namespace, declared on `<DTE>` alone. */
const DTE_OPEN = `<DTE version="1.0" xmlns="${SII_NS}">\n`;
const DOCUMENTO_CLOSE = '</Documento>\n</DTE>';

/**
 * Characters that every XML 1.0 parser, xmldom included, reads back unchanged and that C14N
 * writes as they are: tab, line feed, printable ASCII, and the rest of Unicode but the C1
 * controls, U+2028/U+2029 (xmldom reads them as line breaks), U+FDD0–U+FDEF, U+FFFE/U+FFFF and
 * lone surrogates.
 */
const PLAIN_TEXT = /^[\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufdcf\ufdf0-\ufffd\u{10000}-\u{10fffd}]*$/u;
/** A start tag with at most one unprefixed attribute (no namespace declaration), or an end tag. */
const TAG = /<(\/?)([A-Za-z][\w.-]*)(?: ([A-Za-z][\w.-]*)="([^"<>&\t\n]*)")?>/y;
/** The only references allowed in text: those C14N writes (amp, lt, gt) and two it turns back into characters. */
const BAD_REFERENCE = /&(?!(?:amp|lt|gt|quot|apos);)/;

/**
 * Inclusive C14N 1.0 of the `<Documento>` of a DTE written by `buildDteXml`, taken from the
 * text itself; null when the text is not in the narrow shape where that is provably the same
 * as parsing and canonicalising: one `<DTE>` holding the `<Documento ID>` first, well-formed,
 * every tag `<Name>` or `<Name attr="value">` (one attribute: no order to sort; no namespace
 * declarations; values without characters C14N escapes), no comment, processing instruction
 * or CDATA, text that escapes `&`, `<` and `>` as C14N does (`&quot;` and `&apos;`, which the
 * TED writes, become the characters C14N writes), and only PLAIN_TEXT characters. The one
 * change C14N makes then is the namespace in scope, declared on the apex before its attribute.
 */
export function canonicalDocumento(xml: string, documentId: string): string | null {
  const open = `<Documento ID="${documentId}">`;
  if (!/^[\w.-]+$/.test(documentId) || !xml.startsWith(DTE_OPEN + open) || !xml.endsWith(DOCUMENTO_CLOSE)) return null;
  const body = xml.slice(DTE_OPEN.length, xml.length - '\n</DTE>'.length);
  if (!PLAIN_TEXT.test(body) || BAD_REFERENCE.test(body)) return null;
  const stack: string[] = [];
  let pos = 0;
  while (pos < body.length) {
    const lt = body.indexOf('<', pos);
    const textEnd = lt < 0 ? body.length : lt;
    if (body.slice(pos, textEnd).includes('>')) return null;
    // Text outside the Documento element, or a second root-level element: not the shape.
    if (stack.length === 0 && (pos > 0 || textEnd > pos)) return null;
    if (lt < 0) break;
    TAG.lastIndex = lt;
    const m = TAG.exec(body);
    if (!m) return null;
    const [tag, closing, name, attribute] = m;
    if (closing) {
      if (attribute !== undefined || stack.pop() !== name) return null;
    } else {
      if (attribute === 'xmlns') return null;
      stack.push(name!);
    }
    pos = lt + tag.length;
  }
  if (stack.length > 0) return null;
  return `<Documento xmlns="${SII_NS}" ID="${documentId}">${body
    .slice(open.length)
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")}`;
}

// ---------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------

export interface SignatureCheck {
  valid: boolean;
  /** Why it failed (digest, signature value, unsupported algorithm …). */
  reason?: string;
  referenceUri?: string;
  /** The certificate of X509Data, when present. */
  certificate?: X509Certificate;
  /** False when X509Data holds a certificate for another key than KeyValue. */
  certificateMatchesKey?: boolean;
}

const text = (el: Element | null): string => (el?.textContent ?? '').replace(/\s+/g, '');

function keyOf(keyInfo: Element | null): {
  key: KeyObject | null;
  certificate?: X509Certificate;
  certificateMatchesKey?: boolean;
  reason?: string;
} {
  if (!keyInfo) return { key: null, reason: 'KeyInfo missing' };
  const x509 = child(keyInfo, 'X509Data');
  const certB64 = x509 ? text(child(x509, 'X509Certificate')) : '';
  const rsa = child(keyInfo, 'KeyValue');
  const rsaKey = rsa ? child(rsa, 'RSAKeyValue') : null;
  let fromValue: KeyObject | null = null;
  if (rsaKey) {
    const b64url = (b: string) => Buffer.from(b, 'base64').toString('base64url');
    fromValue = createPublicKey({
      key: { kty: 'RSA', n: b64url(text(child(rsaKey, 'Modulus'))), e: b64url(text(child(rsaKey, 'Exponent'))) },
      format: 'jwk',
    });
  }
  if (certB64) {
    const certificate = new X509Certificate(Buffer.from(certB64, 'base64'));
    // The SII's profile puts KeyValue first and verifies with it; the SII's own example
    // envelope carries a certificate that does not match its KeyValue. The signature is checked
    // with KeyValue when present, and the mismatch is reported.
    if (fromValue && !fromValue.equals(certificate.publicKey)) {
      return { key: fromValue, certificate, certificateMatchesKey: false };
    }
    return { key: fromValue ?? certificate.publicKey, certificate, certificateMatchesKey: true };
  }
  return fromValue ? { key: fromValue } : { key: null, reason: 'no usable key in KeyInfo' };
}

/** Checks one `<Signature>` element of a parsed document. */
export function checkSignatureElement(doc: XmlDocument, signature: Element): SignatureCheck {
  const signedInfo = child(signature, 'SignedInfo');
  if (!signedInfo) return { valid: false, reason: 'SignedInfo missing' };
  const c14n = child(signedInfo, 'CanonicalizationMethod')?.getAttribute('Algorithm');
  const method = child(signedInfo, 'SignatureMethod')?.getAttribute('Algorithm');
  if (c14n !== C14N) return { valid: false, reason: `unsupported CanonicalizationMethod ${c14n}` };
  if (method !== RSA_SHA1) return { valid: false, reason: `unsupported SignatureMethod ${method}` };
  const refs = elements(signedInfo).filter((e) => e.localName === 'Reference');
  if (refs.length !== 1) return { valid: false, reason: 'exactly one Reference expected' };
  const ref = refs[0]!;
  const uri = ref.getAttribute('URI') ?? '';
  const transforms = child(ref, 'Transforms');
  const algorithms = transforms ? elements(transforms).map((t) => t.getAttribute('Algorithm') ?? '') : [];
  if (algorithms.some((a) => a !== C14N && a !== ENVELOPED)) return { valid: false, reason: 'unsupported Transform' };
  if (child(ref, 'DigestMethod')?.getAttribute('Algorithm') !== SHA1)
    return { valid: false, reason: 'unsupported DigestMethod' };

  let target: Element | null;
  if (uri === '') target = doc.documentElement;
  else if (uri.startsWith('#')) target = findById(doc, uri.slice(1));
  else return { valid: false, reason: `unsupported Reference URI ${uri}` };
  if (!target) return { valid: false, reason: `referenced element ${uri} not found`, referenceUri: uri };

  let canonical: string;
  if (algorithms.includes(ENVELOPED) && (target === signature.parentNode || isAncestor(target, signature))) {
    const parent = signature.parentNode!;
    const next = signature.nextSibling;
    parent.removeChild(signature);
    canonical = canonicalize(target);
    parent.insertBefore(signature, next);
  } else {
    canonical = canonicalize(target);
  }
  const { key, certificate, certificateMatchesKey, reason } = keyOf(child(signature, 'KeyInfo'));
  const base = {
    referenceUri: uri,
    ...(certificate && { certificate }),
    ...(certificateMatchesKey !== undefined && { certificateMatchesKey }),
  };
  if (sha1(canonical) !== text(child(ref, 'DigestValue'))) return { ...base, valid: false, reason: 'digest mismatch' };
  if (!key) return { ...base, valid: false, reason: reason ?? 'no key' };
  const ok = verify(
    'sha1',
    Buffer.from(canonicalize(signedInfo), 'utf8'),
    key,
    Buffer.from(text(child(signature, 'SignatureValue')), 'base64'),
  );
  return ok ? { ...base, valid: true } : { ...base, valid: false, reason: 'SignatureValue does not verify' };
}

function isAncestor(ancestor: XmlNode, node: XmlNode): boolean {
  for (let p = node.parentNode; p; p = p.parentNode) if (p === ancestor) return true;
  return false;
}

/** Verifies the Signature that is a child of the root element (a DTE's, an envelope's, getToken's). */
export function verifyRootSignature(xml: string): SignatureCheck {
  let doc: XmlDocument;
  try {
    doc = parseXml(stripXmlDeclaration(xml));
  } catch (e) {
    return { valid: false, reason: `not well-formed XML: ${(e as Error).message}` };
  }
  const root = doc.documentElement;
  const signature = root ? child(root, 'Signature') : null;
  if (!root || !signature) return { valid: false, reason: 'no Signature under the root element' };
  return checkSignatureElement(doc, signature);
}

/**
 * Verifies a DTE the way the SII does: cut out of its envelope and parsed alone, so only the
 * namespace declarations written on or inside `<DTE>` count (docs/sii-reference.md §5.1). Files in the wild
 * were signed either with `xmlns="http://www.sii.cl/SiiDte"` on `<DTE>` or with no namespace at
 * all, and some were stored after that declaration was added or dropped; both contexts are
 * tried (never `xmlns:xsi`). The content itself must match its digest either way.
 */
export function verifyDte(dteText: string): SignatureCheck {
  const standalone = stripXmlDeclaration(dteText);
  const first = verifyRootSignature(standalone);
  if (first.valid || first.reason !== 'digest mismatch') return first;
  const open = /^<DTE\b[^>]*>/.exec(standalone)?.[0];
  if (!open) return first;
  const declared = /\sxmlns="[^"]*"/.test(open);
  const alternative = declared
    ? open.replace(/\sxmlns="[^"]*"/, '')
    : open.replace(/^<DTE\b/, `<DTE xmlns="${SII_NS}"`);
  const second = verifyRootSignature(alternative + standalone.slice(open.length));
  return second.valid ? second : first;
}

/** The `<DTE …>…</DTE>` elements of an envelope, verbatim (as the SII cuts them out). */
export function extractDtes(envelope: string): string[] {
  return envelope.match(/<DTE\b[^>]*>[\s\S]*?<\/DTE>/g) ?? [];
}
