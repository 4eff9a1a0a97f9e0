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
import { canonicalElement, verifyStoredDte } from '../../src/dte/verify-stored.ts';
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
    const text = d.bytes.toString('latin1');
    const doc = XmlDocument.fromBuffer(d.bytes);
    try {
      const inPlace = (xpath: string) => doc.get(xpath)!.canonicalizeToString();
      expect(canonicalElement(text, 'Documento', /<Documento\s/)).toBe(inPlace('/*/*[@ID]'));
      expect(canonicalElement(text, 'SignedInfo', /<SignedInfo[\s>]/)).toBe(inPlace('//*[local-name()="SignedInfo"]'));
    } finally {
      doc.dispose();
    }
  });
});
