/**
 * The last check before a document is stored (src/dte/verify-stored.ts): it passes on what the
 * pipeline produces, and fails on bytes that another XML parser would read differently.
 */
import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cafPublicKey } from '../../src/dte/caf.ts';
import { computeDocument } from '../../src/dte/totals.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import { XmlDocument } from 'libxml2-wasm';
import { canonicalSubset, elementsOf, verifyStoredDte } from '../../src/dte/verify-stored.ts';
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
  });

  it('reads an element back as libxml2 canonicalises it in place (Documento, SignedInfo)', () => {
    const d = issuedWithName('Ñandú & <x> 💥');
    expectSubsetsAsInPlace(d.bytes);
  });

  it('cuts elements out of the canonical document as libxml2 canonicalises them in place, whatever the namespaces', () => {
    const d = issuedWithName('Ñandú & <x> "q" \'a\' 💥');
    const text = d.bytes.toString('latin1');
    // Prefixed declarations on the root and in the signature, a redeclared default, an attribute with escapes.
    const variants = [
      text.replace(
        '<DTE version="1.0"',
        '<DTE xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:a="urn:a" version="1.0"',
      ),
      text.replace('<Signature xmlns=', '<Signature xmlns:z="urn:z" xmlns:b="urn:b" xmlns='),
      text.replace('<Documento ID=', '<Documento xmlns="http://www.sii.cl/SiiDte" ID='),
      text
        .replace(/<Signature xmlns="[^"]*">/, '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#">')
        .replace('</Signature>', '</ds:Signature>'),
      text.replace('<Documento ID=', '<Documento b="x &amp; &lt; &quot; >" ID='),
    ];
    for (const v of variants) expectSubsetsAsInPlace(Buffer.from(v, 'latin1'));
  });
});

/** Each element a signature covers, cut from the canonical document, equals libxml2's in-place C14N of it. */
function expectSubsetsAsInPlace(bytes: Buffer) {
  const doc = XmlDocument.fromBuffer(bytes);
  try {
    const canonical = doc.canonicalizeToString();
    const tree = elementsOf(canonical);
    const inPlace = (xpath: string) => doc.get(xpath)!.canonicalizeToString();
    const documento = tree.find((e) => e.localName === 'Documento')!;
    const signedInfo = tree.find((e) => e.localName === 'SignedInfo')!;
    expect(canonicalSubset(canonical, documento)).toBe(inPlace('/*/*[@ID]'));
    expect(canonicalSubset(canonical, signedInfo)).toBe(inPlace('//*[local-name()="SignedInfo"]'));
  } finally {
    doc.dispose();
  }
}
