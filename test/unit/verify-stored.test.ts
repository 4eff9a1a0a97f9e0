/**
 * The last check before a document is stored (src/dte/verify-stored.ts): it passes on what the
 * pipeline produces, and fails on bytes that another XML parser would read differently.
 */
import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cafPublicKey } from '../../src/dte/caf.ts';
import { SII_NS } from '../../src/dte/dte-xml.ts';
import { computeDocument } from '../../src/dte/totals.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import { XmlDocument } from 'libxml2-wasm';
import { signedPartsOf, verifyStoredDte } from '../../src/dte/verify-stored.ts';
import { DATE, ISSUER, issueDocument, replaceOnce, testCertificate } from '../helpers/dte-pipeline.ts';
import { factura } from '../helpers/requests.ts';
import { xmlsecVerify } from '../helpers/verify.ts';

const cert = testCertificate();
const keysOf = (caf: Parameters<typeof cafPublicKey>[0]) => ({
  certificateKey: createPublicKey(cert.certPem),
  cafKey: cafPublicKey(caf),
});

/** A document computed from a valid request, then given `name` on its first line (bypassing the request rules). */
function issuedWithName(name: string) {
  const req = issueRequestSchema.parse(factura());
  const doc = computeDocument(req, { issuer: ISSUER, folio: 7, date: DATE });
  const first = doc.lines[0]!;
  return issueDocument({ ...doc, lines: [{ ...first, name: `Tornillo ${name} fin` }, ...doc.lines.slice(1)] }, cert);
}

describe('verifyStoredDte', () => {
  it('passes on a document as the pipeline stores it, as xmlsec1 does', () => {
    const d = issuedWithName('Ñandú & <cía> "x" 💥 é');
    expect(verifyStoredDte(d.bytes, keysOf(d.caf))).toEqual({ valid: true, errors: [] });
    expect(xmlsecVerify(d.bytes).ok).toBe(true);
  });

  it.each(['\u0085', '\u2028', '\u2029'])(
    'fails where xmlsec1 fails: %j signed by a parser that reads it as a line break',
    (ch) => {
      const d = issuedWithName(ch);
      const xmlsec = xmlsecVerify(d.bytes).ok;
      const ours = verifyStoredDte(d.bytes, keysOf(d.caf));
      expect(ours.valid).toBe(xmlsec);
      expect(ours.valid).toBe(false);
    },
  );

  it('fails on a changed byte, a wrong CAF key and a broken TED', () => {
    const d = issuedWithName('x');
    const tampered = replaceOnce(d.bytes, '<NmbItem>Tornillo', '<NmbItem>Tornilla');
    expect(verifyStoredDte(tampered, keysOf(d.caf)).errors.join()).toMatch(/digest/);
    const other = issuedWithName('y');
    const wrongCaf = { ...keysOf(d.caf), cafKey: createPublicKey(cert.certPem) };
    expect(verifyStoredDte(other.bytes, wrongCaf).errors.join()).toMatch(/TED/);
    expect(verifyStoredDte(Buffer.from('<DTE'), keysOf(d.caf)).valid).toBe(false);
    // The FRMT of another document: the digest holds, the TED does not.
    const otherFrmt = /<FRMT algoritmo="SHA1withRSA">[^<]*<\/FRMT>/.exec(other.bytes.toString('latin1'))![0];
    const frmt = /<FRMT algoritmo="SHA1withRSA">[^<]*<\/FRMT>/.exec(d.bytes.toString('latin1'))![0];
    const swapped = replaceOnce(d.bytes, frmt, otherFrmt);
    expect(verifyStoredDte(swapped, keysOf(d.caf)).errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/TED FRMT/)]),
    );
    expect(
      verifyStoredDte(replaceOnce(d.bytes, '</FRMT></TED>', '</FRMT>\n</TED>'), keysOf(d.caf)).errors.join(),
    ).toMatch(/no TED/);
  });

  it("fails on a SignatureValue or DigestValue that is not the signer's", () => {
    const d = issuedWithName('x');
    const other = issuedWithName('y');
    const elementIn = (b: Buffer, name: string) =>
      new RegExp(`<${name}>[^<]*</${name}>`).exec(b.toString('latin1'))![0];
    const wrongValue = replaceOnce(
      d.bytes,
      elementIn(d.bytes, 'SignatureValue'),
      elementIn(other.bytes, 'SignatureValue'),
    );
    expect(verifyStoredDte(wrongValue, keysOf(d.caf)).errors).toEqual(['XMLDSig SignatureValue does not verify']);
    // The other document's DigestValue over this Documento: a digest mismatch.
    const wrongDigest = replaceOnce(d.bytes, elementIn(d.bytes, 'DigestValue'), elementIn(other.bytes, 'DigestValue'));
    expect(verifyStoredDte(wrongDigest, keysOf(d.caf)).errors.join()).toMatch(/digest mismatch/);
    const wrongKey = { ...keysOf(d.caf), certificateKey: keysOf(d.caf).cafKey };
    expect(verifyStoredDte(d.bytes, wrongKey).errors).toEqual(['XMLDSig SignatureValue does not verify']);
  });

  it('reads the signed elements as libxml2 canonicalises them in place (Documento, SignedInfo)', () => {
    const d = issuedWithName('Ñandú & <x> "q" \'a\' 💥');
    expectPartsAsInPlace(d.bytes);
  });

  it("a name holding the layout's own tags is text, not a tag", () => {
    const d = issuedWithName('</Documento>\n<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">');
    expect(verifyStoredDte(d.bytes, keysOf(d.caf))).toEqual({ valid: true, errors: [] });
    expect(xmlsecVerify(d.bytes).ok).toBe(true);
  });

  /**
   * Bytes that differ from what was signed. Where libxml2 reads the same canonical text, the
   * check passes, as xmlsec1 (another verifier over libxml2's reading) does; where the signed
   * parts read differently, both fail. Layouts that `signDte` never writes fail here even when
   * validly signed (stricter than a general verifier, never laxer), and so does a TED whose
   * tags are not as `ted.ts` writes them: FRMT is checked over the DD as written.
   */
  const C14N_TRANSFORM = 'Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></Transform>';
  const PASSES = null;
  it.each([
    ['a redundant default namespace on Documento', '<Documento ID=', `<Documento xmlns="${SII_NS}" ID=`, true, PASSES],
    ['a comment inside the Documento', '<Encabezado>', '<!-- x --><Encabezado>', true, PASSES],
    ['a comment between Documento and Signature', '</Documento>\n', '</Documento><!-- x -->\n', true, PASSES],
    ['CR LF line ends in the Signature', '<SignedInfo>\n', '<SignedInfo>\r\n', true, PASSES],
    ['a character reference for a letter', '<NmbItem>Tornillo', '<NmbItem>Torn&#105;llo', true, PASSES],
    ['single quotes around an attribute', C14N_TRANSFORM, C14N_TRANSFORM.replace(/"/g, "'"), true, PASSES],
    ['a processing instruction inside the Documento', '<Encabezado>', '<?pi x?><Encabezado>', false, /^XMLDSig digest/],
    ['a space in the Documento', '<Encabezado>', ' <Encabezado>', false, /^XMLDSig digest/],
    [
      'another attribute on Documento',
      '<Documento ID=',
      '<Documento b="x &amp; &lt; &quot; >" ID=',
      false,
      /^line \d+: /,
    ],
    [
      'prefixed namespaces on the root',
      '<DTE version="1.0"',
      '<DTE xmlns:a="urn:a" version="1.0"',
      false,
      /^XMLDSig: .* start/,
    ],
    [
      'prefixed namespaces on Signature',
      '<Signature xmlns=',
      '<Signature xmlns:z="urn:z" xmlns=',
      false,
      /^XMLDSig: no Signature/,
    ],
    ['no line break after the Signature', '</Signature>\n</DTE>', '</Signature></DTE>', true, /^XMLDSig: no Signature/],
    ['single quotes on the TED', '<TED version="1.0">', "<TED version='1.0'>", true, /^no TED/],
  ])('%s', (_, from, to, xmlsecPasses, failure) => {
    const d = issuedWithName('x');
    const changed = replaceOnce(d.bytes, from, to);
    const ours = verifyStoredDte(changed, keysOf(d.caf));
    // A failure names what failed: "XMLDSig"/"TED" are DOCUMENT_NOT_VERIFIABLE on the issuing path, "line N" the XSD's.
    expect(ours.errors.join('; ')).toMatch(failure ?? /^$/);
    expect(ours.valid).toBe(failure === PASSES);
    expect(xmlsecVerify(changed).ok).toBe(xmlsecPasses);
    if (failure === PASSES) expectPartsAsInPlace(changed);
  });

  it('refuses a Signature written with a prefix (validly signed or not)', () => {
    const d = issuedWithName('x');
    const text = d.bytes
      .toString('latin1')
      .replace(/<Signature xmlns="[^"]*">/, '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#">')
      .replace('</Signature>', '</ds:Signature>');
    const doc = XmlDocument.fromBuffer(Buffer.from(text, 'latin1'));
    try {
      expect(signedPartsOf(doc.canonicalizeToString())).toMatch(/no Signature/);
    } finally {
      doc.dispose();
    }
  });
});

/** The signed parts cut from the canonical document equal libxml2's in-place C14N of those elements. */
function expectPartsAsInPlace(bytes: Buffer) {
  const doc = XmlDocument.fromBuffer(bytes);
  try {
    const parts = signedPartsOf(doc.canonicalizeToString());
    if (typeof parts === 'string') throw new Error(parts);
    const inPlace = (xpath: string) => doc.get(xpath)!.canonicalizeToString();
    expect(parts.documento).toBe(inPlace('/*/*[@ID]'));
    expect(parts.signedInfo).toBe(inPlace('//*[local-name()="SignedInfo"]'));
  } finally {
    doc.dispose();
  }
}
