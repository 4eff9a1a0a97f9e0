/**
 * Envelopes (src/dte/envelope.ts, docs/sii-reference.md §5.1, §6): EnvioDTE and EnvioBOLETA built by string
 * concatenation around the stored DTE bytes, with only SetDTE signed in the envelope's context.
 * Checked as the SII does: schema (xmllint), the outer signature in context (xmlsec1), and each
 * inner DTE cut out and verified alone (xmlsec1 and our verifier).
 */
import type { Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { buildEnvelope, type Caratula, envelopeKindOf, SET_ID } from '../../src/dte/envelope.ts';
import { extractDtes, parseXml, verifyDte, verifyRootSignature, XML_DECLARATION } from '../../src/dte/xmldsig.ts';
import { ISSUER, issue, replaceOnce, testCertificate } from '../helpers/dte-pipeline.ts';
import { RECEIVER, requestFor } from '../helpers/requests.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

const cert = testCertificate('13185095-6', 'José Muñoz Peña');
const OUTER_SIGNATURE = "/*/*[local-name()='Signature']";

const caratula: Caratula = {
  issuerRut: ISSUER.rut,
  senderRut: cert.holderRut!,
  resolutionDate: '2014-08-22',
  resolutionNumber: 80,
  timestamp: '2026-03-05T10:20:00',
};

const creditNote = {
  type: 61,
  receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
  refs: [{ type: 33, folio: 10, date: '2026-03-01', reason: 'Anula factura 10' }],
  items: [{ name: 'Clavos de acero 2" (caja)', qty: 10, price: 1350 }],
};
const dtes = [
  issue(requestFor(33), { cert, folio: 10 }),
  issue(requestFor(33), { cert, folio: 11 }),
  issue(requestFor(34), { cert, folio: 12 }),
  issue(requestFor(46), { cert, folio: 13 }),
  issue(requestFor(52), { cert, folio: 14 }),
  issue(creditNote, { cert, folio: 15 }),
];
const envelope = buildEnvelope(
  'dte',
  dtes.map((d) => ({ type: d.doc.type, signedXml: d.bytes })),
  caratula,
  cert,
);
const envelopeText = envelope.toString('latin1');

const boletas = [
  issue(requestFor(39), { cert, folio: 20 }),
  issue(requestFor(39), { cert, folio: 21 }),
  issue(requestFor(41), { cert, folio: 22 }),
];
const boletaEnvelope = buildEnvelope(
  'boleta',
  boletas.map((d) => ({ type: d.doc.type, signedXml: d.bytes })),
  caratula,
  cert,
);

/** A stored DTE's bytes after its `<?xml …?>` line. */
const storedWithoutDeclaration = (bytes: Buffer) => bytes.subarray(Buffer.byteLength(`${XML_DECLARATION}\n`, 'latin1'));

const childElements = (el: Element): Element[] => {
  const out: Element[] = [];
  for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) out.push(c as Element);
  return out;
};
const leaves = (el: Element) => childElements(el).map((c) => [c.localName, c.textContent]);

describe('EnvioDTE of several signed DTEs', () => {
  it('validates with xmllint against EnvioDTE_v10.xsd', () => {
    const r = xmllint(envelope, 'EnvioDTE_v10.xsd');
    expect(r.output).toContain('validates');
    expect(r.ok).toBe(true);
  });

  it('is ISO-8859-1 with the envelope namespaces on the root', () => {
    expect(envelopeText).toMatch(
      new RegExp(
        `^${XML_DECLARATION.replace(/[?.]/g, '\\$&')}\\n<EnvioDTE xmlns="http://www.sii.cl/SiiDte" ` +
          'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
          'xsi:schemaLocation="http://www.sii.cl/SiiDte EnvioDTE_v10.xsd" version="1.0">\\n<SetDTE ID="SetDoc">\\n',
      ),
    );
    expect(envelope.includes(Buffer.from('Ñandú', 'latin1'))).toBe(true);
    expect(envelope.includes(Buffer.from('Ñandú', 'utf8'))).toBe(false);
  });

  it('its outer SetDTE signature verifies with xmlsec1 and with our verifier', () => {
    const r = xmlsecVerify(envelope, { nodeXpath: OUTER_SIGNATURE });
    expect(r.output).toContain('OK');
    expect(r.ok).toBe(true);
    expect(verifyRootSignature(envelopeText)).toMatchObject({ valid: true, referenceUri: `#${SET_ID}` });
  });

  it('holds every stored DTE byte sequence unchanged', () => {
    for (const d of dtes) {
      const withoutDeclaration = storedWithoutDeclaration(d.bytes);
      expect(withoutDeclaration.subarray(0, 5).toString('latin1')).toBe('<DTE ');
      expect(envelope.includes(withoutDeclaration)).toBe(true);
    }
  });

  it('each inner DTE, cut out verbatim, verifies standalone with xmlsec1 and our verifier', () => {
    const inner = extractDtes(envelopeText);
    expect(inner).toHaveLength(dtes.length);
    for (const [i, dte] of inner.entries()) {
      expect(dte).toBe(storedWithoutDeclaration(dtes[i]!.bytes).toString('latin1'));
      const alone = Buffer.from(`${XML_DECLARATION}\n${dte}`, 'latin1');
      expect(xmlsecVerify(alone).ok, `DTE ${i}`).toBe(true);
      expect(verifyDte(dte).valid, `DTE ${i}`).toBe(true);
    }
  });

  it('has a Carátula with the sender, the SII as receiver and a SubTotDTE per type', () => {
    const setDte = childElements(parseXml(envelopeText).documentElement!)[0]!;
    const car = childElements(setDte)[0]!;
    expect(car.localName).toBe('Caratula');
    expect(car.getAttribute('version')).toBe('1.0');
    expect(leaves(car)).toEqual([
      ['RutEmisor', ISSUER.rut],
      ['RutEnvia', '13185095-6'],
      ['RutReceptor', '60803000-K'],
      ['FchResol', '2014-08-22'],
      ['NroResol', '80'],
      ['TmstFirmaEnv', '2026-03-05T10:20:00'],
      ['SubTotDTE', '\n33\n2\n'],
      ['SubTotDTE', '\n34\n1\n'],
      ['SubTotDTE', '\n46\n1\n'],
      ['SubTotDTE', '\n52\n1\n'],
      ['SubTotDTE', '\n61\n1\n'],
    ]);
    expect(childElements(setDte).map((e) => e.localName)).toEqual(['Caratula', ...dtes.map(() => 'DTE')]);
  });

  it('RutReceptor can be another company (intercambio)', () => {
    const exchange = buildEnvelope(
      'dte',
      [{ type: 33, signedXml: dtes[0]!.bytes }],
      { ...caratula, receiverRut: RECEIVER.rut },
      cert,
    );
    expect(exchange.toString('latin1')).toContain(`<RutReceptor>${RECEIVER.rut}</RutReceptor>`);
    expect(xmlsecVerify(exchange, { nodeXpath: OUTER_SIGNATURE }).ok).toBe(true);
  });

  it('a one-character change in the Carátula breaks the outer signature but no DTE', () => {
    const tampered = replaceOnce(envelope, '<NroResol>80</NroResol>', '<NroResol>81</NroResol>');
    expect(xmlsecVerify(tampered, { nodeXpath: OUTER_SIGNATURE }).ok).toBe(false);
    expect(verifyRootSignature(tampered.toString('latin1')).valid).toBe(false);
    expect(extractDtes(tampered.toString('latin1')).every((d) => verifyDte(d).valid)).toBe(true);
  });

  it('a changed amount in one DTE breaks the outer signature and that DTE only', () => {
    const tampered = replaceOnce(envelope, '<MntTotal>285000</MntTotal>', '<MntTotal>285001</MntTotal>');
    expect(xmlsecVerify(tampered, { nodeXpath: OUTER_SIGNATURE }).ok).toBe(false);
    const checks = extractDtes(tampered.toString('latin1')).map((d) => verifyDte(d).valid);
    expect(checks).toEqual([true, true, false, true, true, true]);
  });
});

describe('EnvioBOLETA of boletas 39 and 41', () => {
  const text = boletaEnvelope.toString('latin1');

  it('validates with xmllint against EnvioBOLETA_v11.xsd', () => {
    const r = xmllint(boletaEnvelope, 'EnvioBOLETA_v11.xsd');
    expect(r.output).toContain('validates');
    expect(r.ok).toBe(true);
  });

  it('is an EnvioBOLETA whose signature verifies, with its DTEs verifying alone', () => {
    expect(text).toContain('<EnvioBOLETA xmlns="http://www.sii.cl/SiiDte"');
    expect(text).toContain('xsi:schemaLocation="http://www.sii.cl/SiiDte EnvioBOLETA_v11.xsd"');
    expect(xmlsecVerify(boletaEnvelope, { nodeXpath: OUTER_SIGNATURE }).ok).toBe(true);
    const inner = extractDtes(text);
    expect(inner).toHaveLength(3);
    for (const dte of inner) {
      expect(xmlsecVerify(Buffer.from(`${XML_DECLARATION}\n${dte}`, 'latin1')).ok).toBe(true);
      expect(verifyDte(dte).valid).toBe(true);
    }
  });

  it('counts 39 and 41 separately in the Carátula', () => {
    expect(text).toContain(
      '<SubTotDTE>\n<TpoDTE>39</TpoDTE>\n<NroDTE>2</NroDTE>\n</SubTotDTE>\n<SubTotDTE>\n<TpoDTE>41</TpoDTE>\n<NroDTE>1</NroDTE>\n</SubTotDTE>\n</Caratula>',
    );
  });

  it('would not validate as an EnvioDTE', () => {
    expect(xmllint(boletaEnvelope, 'EnvioDTE_v10.xsd').ok).toBe(false);
  });
});

describe('envelope rules', () => {
  it('boletas go in EnvioBOLETA, everything else in EnvioDTE', () => {
    expect([33, 34, 39, 41, 46, 52, 56, 61].map(envelopeKindOf)).toEqual([
      'dte',
      'dte',
      'boleta',
      'boleta',
      'dte',
      'dte',
      'dte',
      'dte',
    ]);
  });

  it('refuses a boleta in an EnvioDTE, a factura in an EnvioBOLETA, and an empty envelope', () => {
    expect(() => buildEnvelope('dte', [{ type: 39, signedXml: boletas[0]!.bytes }], caratula, cert)).toThrow(
      /type 39 does not belong in EnvioDTE/,
    );
    expect(() => buildEnvelope('boleta', [{ type: 33, signedXml: dtes[0]!.bytes }], caratula, cert)).toThrow(
      /type 33 does not belong in EnvioBOLETA/,
    );
    expect(() => buildEnvelope('dte', [], caratula, cert)).toThrow(/at least one document/);
  });

  it('accepts stored DTEs without XML declaration too', () => {
    const bare = storedWithoutDeclaration(dtes[0]!.bytes);
    const env = buildEnvelope('dte', [{ type: 33, signedXml: bare }], caratula, cert);
    expect(env.includes(bare)).toBe(true);
    expect(xmllint(env, 'EnvioDTE_v10.xsd').ok).toBe(true);
  });
});
