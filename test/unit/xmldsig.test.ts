/**
 * XMLDSig in the SII profile (src/dte/xmldsig.ts, docs/sii-reference.md §5): our signatures must verify with
 * our verifier and with xmlsec1 (an independent implementation), follow the restricted schema
 * xmldsignature_v10.xsd, and break when one amount changes; our verifier must accept the SII's
 * own example and real production DTEs, and reject each after a one-character change.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import {
  C14N,
  DSIG_NS,
  extractDtes,
  parseXml,
  RSA_SHA1,
  SHA1,
  signXml,
  stripXmlDeclaration,
  verifyDte,
  verifyRootSignature,
  withXmlDeclaration,
  XML_DECLARATION,
} from '../../src/dte/xmldsig.ts';
import { issue, replaceOnce, testCertificate, textOf } from '../helpers/dte-pipeline.ts';
import { requestFor } from '../helpers/requests.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

const cert = testCertificate();
const factura = issue(requestFor(33), { cert, folio: 60 });
const total = textOf(factura.signed, 'MntTotal')!;

const childElements = (el: Element): Element[] => {
  const out: Element[] = [];
  for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) out.push(c as Element);
  return out;
};
const names = (el: Element) => childElements(el).map((c) => c.localName);
const only = (el: Element, name: string): Element => {
  const found = childElements(el).filter((c) => c.localName === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

describe('signDte', () => {
  it('verifies with our verifier, which reports our certificate', () => {
    const check = verifyDte(factura.bytes.toString('latin1'));
    expect(check).toMatchObject({ valid: true, referenceUri: '#T33F60', certificateMatchesKey: true });
    expect(check.certificate!.raw).toEqual(new X509Certificate(cert.certPem).raw);
  });

  it('verifies with xmlsec1', () => {
    const r = xmlsecVerify(factura.bytes);
    expect(r.output).toContain('OK');
    expect(r.ok).toBe(true);
  });

  it('fails both verifiers after one amount is changed', () => {
    const tampered = replaceOnce(
      factura.bytes,
      `<MntTotal>${total}</MntTotal>`,
      `<MntTotal>${Number(total) + 1}</MntTotal>`,
    );
    expect(verifyDte(tampered.toString('latin1'))).toMatchObject({ valid: false, reason: 'digest mismatch' });
    expect(xmlsecVerify(tampered).ok).toBe(false);
  });

  it('fails both verifiers when the SignatureValue is not the signer’s', () => {
    const other = issue(requestFor(33), { cert, folio: 61 });
    const foreignValue = /<SignatureValue>([^<]+)<\/SignatureValue>/.exec(other.signed)![1]!;
    const ownValue = /<SignatureValue>([^<]+)<\/SignatureValue>/.exec(factura.signed)![1]!;
    const swapped = replaceOnce(factura.bytes, ownValue, foreignValue);
    expect(verifyDte(swapped.toString('latin1'))).toMatchObject({
      valid: false,
      reason: 'SignatureValue does not verify',
    });
    expect(xmlsecVerify(swapped).ok).toBe(false);
  });

  it('leaves the unsigned text untouched and appends the Signature as the last child of DTE', () => {
    const cut = factura.signed.indexOf('<Signature ');
    expect(factura.signed.slice(0, cut)).toBe(factura.unsigned.slice(0, factura.unsigned.lastIndexOf('</DTE>')));
    expect(factura.signed).toMatch(/<\/Documento>\n<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">/);
    expect(factura.signed.endsWith('</Signature>\n</DTE>')).toBe(true);
  });

  it('stores ISO-8859-1 bytes under the matching declaration', () => {
    expect(factura.bytes.toString('latin1').startsWith(`${XML_DECLARATION}\n<DTE `)).toBe(true);
    expect(XML_DECLARATION).toBe('<?xml version="1.0" encoding="ISO-8859-1"?>');
    expect(factura.bytes.includes(Buffer.from('Ñandú', 'latin1'))).toBe(true);
    expect(factura.bytes.includes(Buffer.from('Ñandú', 'utf8'))).toBe(false);
  });
});

describe('the Signature follows the SII profile (docs/sii-reference.md §5, xmldsignature_v10.xsd)', () => {
  const doc = parseXml(factura.signed);
  const dte = doc.documentElement!;
  const signature = only(dte, 'Signature');
  const signedInfo = only(signature, 'SignedInfo');
  const reference = only(signedInfo, 'Reference');
  const keyInfo = only(signature, 'KeyInfo');

  it('is in the XMLDSig namespace, after Documento', () => {
    expect(signature.namespaceURI).toBe(DSIG_NS);
    expect(names(dte)).toEqual(['Documento', 'Signature']);
    expect(names(signature)).toEqual(['SignedInfo', 'SignatureValue', 'KeyInfo']);
  });

  it('uses inclusive C14N, RSA-SHA1 and SHA-1', () => {
    expect(names(signedInfo)).toEqual(['CanonicalizationMethod', 'SignatureMethod', 'Reference']);
    expect(only(signedInfo, 'CanonicalizationMethod').getAttribute('Algorithm')).toBe(
      'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
    );
    expect(only(signedInfo, 'SignatureMethod').getAttribute('Algorithm')).toBe(
      'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
    );
    expect(only(reference, 'DigestMethod').getAttribute('Algorithm')).toBe('http://www.w3.org/2000/09/xmldsig#sha1');
    expect([C14N, RSA_SHA1, SHA1]).toEqual([
      'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
      'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
      'http://www.w3.org/2000/09/xmldsig#sha1',
    ]);
  });

  it('has one Reference to #<Documento ID> with one Transform', () => {
    expect(reference.getAttribute('URI')).toBe('#T33F60');
    expect(only(dte, 'Documento').getAttribute('ID')).toBe('T33F60');
    const transforms = childElements(only(reference, 'Transforms'));
    expect(transforms).toHaveLength(1);
    expect(transforms[0]!.getAttribute('Algorithm')).toBe(C14N);
    expect(names(reference)).toEqual(['Transforms', 'DigestMethod', 'DigestValue']);
  });

  it('has KeyValue (RSAKeyValue of the certificate key) before X509Data (the certificate)', () => {
    expect(names(keyInfo)).toEqual(['KeyValue', 'X509Data']);
    const rsa = only(only(keyInfo, 'KeyValue'), 'RSAKeyValue');
    expect(only(rsa, 'Modulus').textContent!.replace(/\s/g, '')).toBe(cert.modulusBase64);
    expect(only(rsa, 'Exponent').textContent).toBe('AQAB');
    const der = only(only(keyInfo, 'X509Data'), 'X509Certificate').textContent!.replace(/\s/g, '');
    expect(der).toBe(cert.certDerBase64);
  });

  it('keeps every line short: base64 wrapped at 64 characters', () => {
    const sig = factura.signed.slice(factura.signed.indexOf('<Signature '));
    const base64Lines = sig.split('\n').filter((l) => /^[A-Za-z0-9+/=]+$/.test(l));
    expect(base64Lines.length).toBeGreaterThan(10);
    for (const line of base64Lines) expect(line.length).toBeLessThanOrEqual(64);
  });

  it('validates with xmllint against DTE_v10.xsd as part of the whole DTE', () => {
    const r = xmllint(factura.bytes, 'DTE_v10.xsd');
    expect(r.output).toContain('validates');
    expect(r.ok).toBe(true);
  });

  it('a second Transform would break the schema (the profile allows one)', () => {
    const two = replaceOnce(
      factura.bytes,
      '</Transforms>',
      `<Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>\n</Transforms>`,
    );
    expect(xmllint(two, 'DTE_v10.xsd').ok).toBe(false);
  });
});

describe('signXml for getToken (whole-document reference, docs/sii-reference.md §7.2)', () => {
  const seed = '<getToken><item><Semilla>000000000078</Semilla></item></getToken>';
  const signed = signXml(seed, cert, { referenceId: '', parentClose: '</getToken>' });

  it('uses URI="" with the enveloped-signature transform, the Signature last in getToken', () => {
    expect(signed).toContain('<Reference URI="">');
    expect(signed).toContain(
      '<Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"></Transform>',
    );
    // Nothing between </Signature> and </getToken>: that would be signed content the digest missed.
    expect(signed).toMatch(
      /^<getToken><item><Semilla>000000000078<\/Semilla><\/item><Signature [\s\S]*<\/Signature><\/getToken>$/,
    );
  });

  it('verifies with our verifier and xmlsec1, and not after the seed changes', () => {
    expect(verifyRootSignature(signed).valid).toBe(true);
    expect(xmlsecVerify(Buffer.from(signed, 'latin1'), { idAttrs: [] }).ok).toBe(true);
    const other = signed.replace('000000000078', '000000000079');
    expect(verifyRootSignature(other)).toMatchObject({ valid: false, reason: 'digest mismatch' });
    expect(xmlsecVerify(Buffer.from(other, 'latin1'), { idAttrs: [] }).ok).toBe(false);
  });
});

describe('our verifier on the SII’s example and real production DTEs', () => {
  const samples = ['DTE--60910000-1--33--2336600', 'DTE--76354771-K--33--170', 'DTE--96670340-7--61--110616'];
  const read = (name: string) => readFileSync(fixturePath('sii', 'samples', 'dte', `${name}.xml`), 'latin1');

  it.each(samples)('%s verifies', (name) => {
    expect(verifyDte(read(name))).toMatchObject({ valid: true });
  });

  it.each(samples)('%s is rejected after changing one character of its content', (name) => {
    const text = read(name);
    const at = text.indexOf('<NmbItem>') + '<NmbItem>'.length;
    const changed = text[at] === 'X' ? 'Y' : 'X';
    const tampered = text.slice(0, at) + changed + text.slice(at + 1);
    expect(tampered.length).toBe(text.length);
    expect(verifyDte(tampered)).toMatchObject({ valid: false, reason: 'digest mismatch' });
  });

  it('the MiPyme DTE signed with the SII namespace verifies even though it is stored without it (docs/sii-reference.md §5.1)', () => {
    const text = read('DTE--76354771-K--33--170');
    expect(/<DTE\b[^>]*>/.exec(stripXmlDeclaration(text))![0]).not.toContain('xmlns');
    expect(verifyRootSignature(text)).toMatchObject({ valid: false, reason: 'digest mismatch' });
    expect(verifyDte(text).valid).toBe(true);
  });

  describe('the official EnvioDTE example (F60T33)', () => {
    const envelope = readFileSync(
      fixturePath('sii', 'samples', 'sobres', 'EnvioDTE_F60T33_ejemplo_oficial_SII.xml'),
      'latin1',
    );

    it('its outer SetDTE signature verifies', () => {
      expect(verifyRootSignature(envelope)).toMatchObject({ valid: true, referenceUri: '#SetDoc' });
    });

    it('its inner DTE, cut out verbatim, verifies standalone', () => {
      const dtes = extractDtes(envelope);
      expect(dtes).toHaveLength(1);
      expect(verifyDte(dtes[0]!)).toMatchObject({ valid: true, referenceUri: '#F60T33' });
    });

    it('a one-character change inside the DTE breaks both signatures', () => {
      const tampered = envelope.replace('<RznSocRecep>EMPRESA  LTDA', '<RznSocRecep>EMPRESA  LTDB');
      expect(tampered).not.toBe(envelope);
      expect(verifyRootSignature(tampered)).toMatchObject({ valid: false, reason: 'digest mismatch' });
      expect(verifyDte(extractDtes(tampered)[0]!)).toMatchObject({ valid: false, reason: 'digest mismatch' });
    });

    it('a one-character change in the Carátula breaks only the outer signature', () => {
      const tampered = envelope.replace('<RutEnvia>7880442-4</RutEnvia>', '<RutEnvia>7880442-5</RutEnvia>');
      expect(tampered).not.toBe(envelope);
      expect(verifyRootSignature(tampered).valid).toBe(false);
      expect(verifyDte(extractDtes(tampered)[0]!).valid).toBe(true);
    });
  });
});

describe('XML declaration helpers', () => {
  it('add and strip the ISO-8859-1 declaration', () => {
    expect(withXmlDeclaration('<a/>')).toBe('<?xml version="1.0" encoding="ISO-8859-1"?>\n<a/>');
    expect(stripXmlDeclaration(withXmlDeclaration('<a/>'))).toBe('<a/>');
    expect(stripXmlDeclaration('\uFEFF<?xml version="1.0"?>\r\n<a/>')).toBe('<a/>');
    expect(stripXmlDeclaration('<a/>')).toBe('<a/>');
  });

  it('the verifier reports malformed XML instead of throwing', () => {
    expect(verifyDte('<DTE><Documento>')).toMatchObject({ valid: false });
    expect(verifyRootSignature('<DTE/>')).toMatchObject({
      valid: false,
      reason: 'no Signature under the root element',
    });
  });
});
