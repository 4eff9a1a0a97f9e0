/**
 * The TED (src/dte/ted.ts, docs/sii-reference.md §3): the SII Instructivo's own example must reproduce byte
 * for byte (golden vector), and a TED built for a document with Spanish text and XML
 * metacharacters must verify with the CAF public key over the ISO-8859-1 bytes of its
 * flattened DD, exactly as the SII re-reads it (§3.2).
 */
import { createPrivateKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cafPublicKey, parseCaf } from '../../src/dte/caf.ts';
import type { DteDocument } from '../../src/dte/model.ts';
import { assembleTed, buildDd, buildTed, extractDd, signDd, TED_TEXT_LENGTH, tedText } from '../../src/dte/ted.ts';
import { unescapeXml } from '../../src/dte/xml-text.ts';
import { ISSUER, TSTED, cafFor, issue, testCertificate, textOf } from '../helpers/dte-pipeline.ts';
import { RECEIVER } from '../helpers/requests.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const caf = parseCaf(readFileSync(fixturePath('sii', 'caf', 'CAF_T33_97975000-5_F1-200_ejemplo_SII.xml')));
const goldenFile = readFileSync(fixturePath('sii', 'caf', 'TED_T33_F27_ejemplo_instructivo_SII.xml'));
/** The `<TED …>…</TED>` bytes of the golden file, without its XML declaration and final newline. */
const goldenTed = (() => {
  const text = goldenFile.toString('latin1');
  const start = text.indexOf('<TED ');
  const end = text.indexOf('</TED>') + '</TED>'.length;
  return goldenFile.subarray(start, end);
})();
const GOLDEN_FRMT = 'pqjXHHQLJmyFPMRvxScN7tYHvIsty0pqL2LLYaG43jMmnfiZfllLA0wb32lP+HBJ/tf8nziSeorvjlx410ZImw==';

/** Verifies a TED's FRMT the way the SII does: CAF key from RSAPK, SHA1withRSA over latin1(flattened DD). */
function frmtVerifies(tedOrDocument: string, key = cafPublicKey(caf)): boolean {
  const dd = extractDd(tedOrDocument);
  const frmt = textOf(tedOrDocument, 'FRMT');
  if (!dd || !frmt) throw new Error('no DD or FRMT');
  return verify('sha1', Buffer.from(dd, 'latin1'), key, Buffer.from(frmt, 'base64'));
}

describe('golden vector: the SII Instructivo TED (folio 27, RUT DE PRUEBA)', () => {
  const golden = goldenTed.toString('latin1');
  const field = (name: string) => textOf(golden, name)!;

  it('the golden file carries the FRMT the SII published', () => {
    expect(field('FRMT')).toBe(GOLDEN_FRMT);
  });

  it('buildDd + signDd + assembleTed reproduce it byte for byte', () => {
    const dd = buildDd({
      re: field('RE'),
      td: Number(field('TD')),
      folio: Number(field('F')),
      fe: field('FE'),
      rr: field('RR'),
      rsr: field('RSR'),
      mnt: field('MNT'),
      it1: field('IT1'),
      cafXml: caf.cafXml,
      tsted: field('TSTED'),
    });
    const frmt = signDd(dd, createPrivateKey(caf.privateKeyPem));
    expect(frmt).toBe(GOLDEN_FRMT);
    expect(Buffer.from(assembleTed(dd, frmt), 'latin1')).toEqual(goldenTed);
  });

  it('buildTed of the same document reproduces it byte for byte', () => {
    const doc: DteDocument = {
      type: 33,
      folio: 27,
      date: '2003-09-08',
      issuer: { ...ISSUER, rut: '97975000-5', name: 'RUT DE PRUEBA' },
      receiver: { rut: '8414240-9', name: 'JORGE GONZALEZ LTDA' },
      lines: [{ number: 1, name: 'Cajon AFECTO', qty: '1', price: '422644', exempt: false, amount: 422644 }],
      refs: [],
      totals: { net: 422644, exempt: 0, vat: 80302, vatRate: 19, total: 502946 },
    };
    const ted = buildTed({
      doc,
      caf,
      cafPrivateKey: createPrivateKey(caf.privateKeyPem),
      timestamp: '2003-09-08T12:28:31',
    });
    expect(Buffer.from(ted, 'latin1')).toEqual(goldenTed);
  });

  it('its FRMT verifies with the CAF public key (RSAPK) and breaks when MNT changes', () => {
    expect(frmtVerifies(golden)).toBe(true);
    expect(frmtVerifies(golden.replace('<MNT>502946</MNT>', '<MNT>502947</MNT>'))).toBe(false);
  });

  it('the SII verifies the flattened DD, so a pretty-printed TED still verifies', () => {
    const printed = golden.replace(/></g, '>\r\n  <');
    expect(extractDd(printed)).toBe(extractDd(golden));
    expect(frmtVerifies(printed)).toBe(true);
  });
});

describe('buildTed on a computed document', () => {
  const cert = testCertificate();
  const longName = 'Distribuidora Ñandú & Hijos <Sur> Compañía Ltda.'; // 48 characters
  const firstItem = 'Tornillos & tuercas <M8> a 90° años Ñuñoa, acero inoxidable'; // 59 characters
  const issued = issue(
    {
      type: 33,
      receiver: { ...RECEIVER, name: longName },
      items: [
        { name: firstItem, qty: 3, price: 1350 },
        { name: 'Segunda línea', qty: 1, price: 990 },
      ],
    },
    { cert, folio: 77 },
  );
  const { ted, doc } = issued;
  const ownCaf = cafFor(33);

  it('carries the document’s identity in DD', () => {
    expect(textOf(ted, 'RE')).toBe(ISSUER.rut);
    expect(textOf(ted, 'TD')).toBe('33');
    expect(textOf(ted, 'F')).toBe('77');
    expect(textOf(ted, 'FE')).toBe('2026-03-05');
    expect(textOf(ted, 'RR')).toBe(RECEIVER.rut);
    expect(textOf(ted, 'TSTED')).toBe(TSTED);
    expect(ted).toContain(ownCaf.cafXml);
  });

  it('RSR and IT1 are the first 40 characters, with Spanish letters kept and & < escaped', () => {
    expect(TED_TEXT_LENGTH).toBe(40);
    const rsr = textOf(ted, 'RSR')!;
    const it1 = textOf(ted, 'IT1')!;
    expect(rsr).toBe('Distribuidora Ñandú &amp; Hijos &lt;Sur&gt; Compañ');
    expect(unescapeXml(rsr)).toBe(longName.slice(0, 40));
    expect(it1).toBe('Tornillos &amp; tuercas &lt;M8&gt; a 90° años Ñuño');
    expect(unescapeXml(it1)).toBe(firstItem.slice(0, 40));
  });

  it('MNT is MntTotal', () => {
    // 3 × 1 350 + 990 = 5 040; IVA 957.6 → 958; total 5 998.
    expect(doc.totals.total).toBe(5998);
    expect(textOf(ted, 'MNT')).toBe('5998');
    expect(textOf(issued.signed, 'MntTotal')).toBe('5998');
  });

  it('the TED is flat Latin-1 text, with no namespace declaration', () => {
    expect(ted).not.toMatch(/>\s+</);
    expect(ted).not.toContain('xmlns');
    expect([...ted].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true);
    expect(ted).toMatch(
      /^<TED version="1.0"><DD><RE>.*<\/DD><FRMT algoritmo="SHA1withRSA">[A-Za-z0-9+/=]+<\/FRMT><\/TED>$/,
    );
  });

  it('FRMT verifies with the CAF public key over the latin1 bytes of the flattened DD', () => {
    expect(frmtVerifies(ted, cafPublicKey(ownCaf))).toBe(true);
    // The UTF-8 bytes of the same DD (Ñ, ú, ° are two bytes there) do not verify.
    const dd = extractDd(ted)!;
    expect(
      verify('sha1', Buffer.from(dd, 'utf8'), cafPublicKey(ownCaf), Buffer.from(textOf(ted, 'FRMT')!, 'base64')),
    ).toBe(false);
  });

  it('FRMT still verifies over the DD read back from the stored DTE bytes', () => {
    const stored = issued.bytes.toString('latin1');
    expect(stored).toContain(ted);
    expect(frmtVerifies(stored, cafPublicKey(ownCaf))).toBe(true);
  });

  it('FRMT does not verify with another CAF’s key, nor after changing RSR', () => {
    expect(frmtVerifies(ted, cafPublicKey(caf))).toBe(false);
    expect(frmtVerifies(ted.replace('Distribuidora', 'Distribuidor4'), cafPublicKey(ownCaf))).toBe(false);
  });

  it('a boleta without receiver name carries the receiver RUT in RSR (RSR may not be empty)', () => {
    const boleta = issue({ type: 39, items: [{ name: 'Café orgánico ½ kg', qty: 1, price: 6990 }] }, { cert });
    expect(textOf(boleta.ted, 'RR')).toBe('66666666-6');
    expect(textOf(boleta.ted, 'RSR')).toBe('66666666-6');
    expect(textOf(boleta.ted, 'IT1')).toBe('Café orgánico ½ kg');
    expect(textOf(boleta.ted, 'MNT')).toBe('6990');
    expect(frmtVerifies(boleta.ted, cafPublicKey(cafFor(39)))).toBe(true);
  });
});

describe('tedText: RSR / IT1 text the SII can verify', () => {
  it.each([
    [
      'rule 11: quotes are escaped as the MUE says',
      'Clavos 2" "King" O\'Brien',
      'Clavos 2&quot; &quot;King&quot; O&apos;Brien',
    ],
    ['rule 11: a name of only quotes is not empty', '"\'"', '&quot;&apos;&quot;'],
    ['typographic marks become Latin-1 look-alikes, the rest ?', 'O’Higgins — Sur 😀 €', 'O&apos;Higgins - Sur ? EUR'],
    ['whitespace runs collapse and the ends are trimmed', '  Ferretería \t  Ñandú  ', 'Ferretería Ñandú'],
    ['a decomposed ñ is composed into one Latin-1 letter', 'Mun\u0303oz', 'Muñoz'],
    ['the cut happens before escaping', `${'x'.repeat(39)}&&&`, `${'x'.repeat(39)}&amp;`],
    ['a space at the cut is trimmed', `${'x'.repeat(39)} yy`, 'x'.repeat(39)],
  ])('%s', (_, input, expected) => {
    expect(tedText(input)).toBe(expected);
  });
});
