/**
 * Signing a DTE without parsing it (src/dte/xmldsig.ts, `signDte` / `canonicalDocumento`): the
 * canonical form taken from the text must be exactly what parsing and canonicalising give
 * (xmldom + xml-crypto, the general path), for every text the request rules let through, and
 * the general path must take over for anything outside the narrow shape.
 */
import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cafPublicKey } from '../../src/dte/caf.ts';
import { verifyStoredDte } from '../../src/dte/verify-stored.ts';
import { issue, testCertificate } from '../helpers/dte-pipeline.ts';
import { factura } from '../helpers/requests.ts';
import { seededRandom, testSeed } from '../helpers/seed.ts';
import { xmlsecVerify } from '../helpers/verify.ts';
import {
  canonicalDocumento,
  canonicalize,
  encodeLatin1,
  parseXml,
  signDte,
  signXml,
  withXmlDeclaration,
} from '../../src/dte/xmldsig.ts';

const cert = testCertificate();
const random = seededRandom(testSeed(import.meta.url));

/** The general path: parse with xmldom, canonicalise the Documento with xml-crypto. */
function parsedCanonical(xml: string): string {
  const documento = parseXml(xml).getElementsByTagName('Documento')[0]!;
  return canonicalize(documento);
}

// Characters a caller may send (the request rules refuse C1 controls, U+2028/9, U+FFFD, bidi
// controls and noncharacters with a 400) and the ones XML and C14N treat specially.
const ALPHABET = [
  ...'abcXYZ 019.,-_/',
  ...'ÑñáéíóúüÁÉÍÓÚ°ºª¿¡«»',
  '&',
  '<',
  '>',
  '"',
  "'",
  '\t',
  '\n',
  '&amp;',
  '&lt;',
  ']]>',
  '<![CDATA[x]]>',
  '<!-- c -->',
  '€',
  '—',
  '“',
  '”',
  '…',
  '中文',
  '😀',
  '👩‍👩‍👧',
  'e\u0301',
  '\u200d',
  '\ue000',
  '\u00a0',
  '\u00ad',
];

/** Random text; line breaks and tabs only where the field allows several lines (descriptions). */
function randomText(multiline = false): string {
  const alphabet = multiline ? ALPHABET : ALPHABET.filter((c) => !/[\t\n]/.test(c));
  let s = '';
  const n = 1 + Math.floor(random() * 12);
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)];
  return s.trim() || 'x';
}

function randomRequest() {
  const base = factura();
  return factura({
    receiver: { ...base.receiver, name: randomText(), address: randomText() },
    items: Array.from({ length: 1 + Math.floor(random() * 4) }, () => ({
      name: randomText(),
      ...(random() < 0.5 && { description: randomText(true) }),
      qty: 1 + Math.floor(random() * 5),
      price: 1 + Math.floor(random() * 10_000),
    })),
  });
}

describe('signing a DTE without parsing it', () => {
  it('gives the canonical form and the signed text of the general path, for random caller text', () => {
    let fast = 0;
    for (let i = 0; i < 150; i++) {
      const issued = issue(randomRequest(), { cert, folio: i + 1 });
      const canonical = canonicalDocumento(issued.unsigned, issued.documentId);
      expect(canonical, issued.unsigned).not.toBeNull();
      if (canonical === null) continue;
      fast += 1;
      expect(canonical).toBe(parsedCanonical(issued.unsigned));
      expect(issued.signed).toBe(
        signXml(issued.unsigned, cert, { referenceId: issued.documentId, parentClose: '</DTE>' }),
      );
    }
    expect(fast).toBe(150);
  });

  it('the signed bytes verify with xmlsec1 and with the last check', () => {
    const issued = issue(
      factura({ receiver: { ...factura().receiver, name: `Ferretería "El Ñandú" & Cía <Ltda> '😀'` } }),
      { cert },
    );
    expect(canonicalDocumento(issued.unsigned, issued.documentId)).not.toBeNull();
    const result = xmlsecVerify(issued.bytes);
    expect(result.ok, result.output).toBe(true);
    const keys = { certificateKey: createPublicKey(cert.privateKey), cafKey: cafPublicKey(issued.caf) };
    expect(verifyStoredDte(issued.bytes, keys)).toEqual({ valid: true, errors: [] });
  });

  it.each([
    ['a U+2028 (xmldom reads a line break)', (x: string) => x.replace('<NmbItem>', '<NmbItem>a\u2028')],
    ['a C1 control', (x: string) => x.replace('<NmbItem>', '<NmbItem>\u0085')],
    ['a numeric character reference', (x: string) => x.replace('<NmbItem>', '<NmbItem>&#233;')],
    ['a CDATA section', (x: string) => x.replace('<NmbItem>', '<NmbItem><![CDATA[a]]>')],
    ['a comment', (x: string) => x.replace('<NmbItem>', '<NmbItem><!-- a -->')],
    ['two attributes', (x: string) => x.replace('<TED version="1.0">', '<TED version="1.0" b="2">')],
    ['a namespace declaration', (x: string) => x.replace('<Detalle>', '<Detalle xmlns="urn:x">')],
    ['an empty-element tag', (x: string) => x.replace('<Detalle>', '<Detalle><X/>')],
    ['a carriage return', (x: string) => x.replace('<NmbItem>', '<NmbItem>a\rb')],
    ['a raw ">" in text', (x: string) => x.replace('<NmbItem>', '<NmbItem>a>b')],
    ['mismatched tags', (x: string) => x.replace('</NmbItem>', '</NmbItemX>')],
    [
      'xmlns:xsi on DTE',
      (x: string) =>
        x.replace('<DTE version="1.0"', '<DTE xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.0"'),
    ],
  ])('%s takes the general path', (_, edit) => {
    const issued = issue(factura(), { cert });
    const xml = edit(issued.unsigned);
    expect(xml).not.toBe(issued.unsigned);
    expect(canonicalDocumento(xml, issued.documentId)).toBeNull();
  });

  it('a document outside the shape is still signed, by the general path, the same way as before', () => {
    const issued = issue(factura(), { cert });
    const xml = issued.unsigned.replace(
      '<DTE version="1.0"',
      '<DTE xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.0"',
    );
    const signed = signDte(xml, issued.documentId, cert);
    expect(signed).toBe(signXml(xml, cert, { referenceId: issued.documentId, parentClose: '</DTE>' }));
    const result = xmlsecVerify(encodeLatin1(withXmlDeclaration(signed)));
    expect(result.ok, result.output).toBe(true);
  });
});
