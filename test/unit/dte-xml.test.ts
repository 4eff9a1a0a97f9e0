/**
 * The DTE XML of every supported type (src/dte/dte-xml.ts, docs/sii-reference.md §4), signed and stored as
 * the service does: valid against the SII schemas (our libxml2 validator and xmllint), elements
 * in XSD order with the per-type totals of §4.4, no `xmlns:xsi` on DTE (§5.1), physical lines
 * short enough for the SII upload gateway (§7.3), and every character outside Latin-1 written as
 * a character reference in the ISO-8859-1 bytes.
 */
import type { Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { documentIdOf, SII_NS } from '../../src/dte/dte-xml.ts';
import { parseXml, verifyDte } from '../../src/dte/xmldsig.ts';
import { validateDte } from '../../src/dte/xsd.ts';
import { type IssuedDte, ISSUER, issue, testCertificate, textOf } from '../helpers/dte-pipeline.ts';
import { RECEIVER, requestFor } from '../helpers/requests.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

const cert = testCertificate();

const NOTE_RECEIVER = { rut: RECEIVER.rut, name: RECEIVER.name };
const REQUESTS: Record<string, unknown> = {
  '33': requestFor(33),
  '34': requestFor(34),
  '39': requestFor(39),
  '41': requestFor(41),
  '46': requestFor(46),
  '52': requestFor(52),
  '52 with prices and dispatch type': {
    ...(requestFor(52) as object),
    dispatch: {
      transfer_type: 1,
      dispatch_type: 2,
      transport: { plate: 'KXLB12', address: 'Camino a Melipilla 9800', comuna: 'Maipú', city: 'Santiago' },
    },
    items: [{ name: 'Planchas de zinc 3 m', qty: 20, price: 12990, unit: 'UN' }],
  },
  '56': {
    type: 56,
    receiver: RECEIVER,
    refs: [{ type: 33, folio: 120, date: '2026-03-01', reason: 'Intereses por pago fuera de plazo' }],
    items: [{ name: 'Intereses por mora', qty: 1, price: 2000 }],
  },
  '61 voiding (CodRef 1)': {
    type: 61,
    receiver: NOTE_RECEIVER,
    refs: [{ type: 33, folio: 120, date: '2026-03-01', code: 1, reason: 'Anula factura 120' }],
    items: [
      { name: 'Clavos de acero 2" (caja)', qty: 10, price: 1350 },
      { name: 'Flete a Ñuñoa', qty: 1, price: 5000, exempt: true },
    ],
  },
  '61 correcting text (CodRef 2)': {
    type: 61,
    receiver: NOTE_RECEIVER,
    refs: [{ type: 33, folio: 120, date: '2026-03-01', code: 2, reason: 'DONDE DICE Comercio DEBE DECIR Ferretería' }],
    items: [{ name: 'Corrige giro del receptor', qty: 1 }],
  },
};
const CASES = Object.keys(REQUESTS);
const issued: Record<string, IssuedDte> = Object.fromEntries(
  CASES.map((name, i) => [name, issue(REQUESTS[name], { cert, folio: 100 + i })]),
);

const childElements = (el: Element): Element[] => {
  const out: Element[] = [];
  for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) out.push(c as Element);
  return out;
};
const names = (el: Element) => childElements(el).map((c) => c.localName);
const child = (el: Element, name: string) => childElements(el).find((c) => c.localName === name)!;
const path = (el: Element, ...steps: string[]) => steps.reduce(child, el);
/** `name → text` of the leaf children of an element. */
const leaves = (el: Element) => Object.fromEntries(childElements(el).map((c) => [c.localName, c.textContent]));

function parts(d: IssuedDte) {
  const dte = parseXml(d.signed).documentElement!;
  const documento = child(dte, 'Documento');
  return { dte, documento, encabezado: child(documento, 'Encabezado') };
}

describe.each(CASES)('DTE %s', (name) => {
  const d = issued[name]!;
  const boleta = d.doc.type === 39 || d.doc.type === 41;
  const schema = boleta ? 'timbre-boleta-dte.xsd' : 'DTE_v10.xsd';

  it(`validates against ${boleta ? 'EnvioBOLETA_v11' : 'DTE_v10'} (our validator and xmllint)`, () => {
    expect(validateDte(d.bytes)).toEqual({ valid: true, errors: [] });
    const lint = xmllint(d.bytes, schema);
    expect(lint.output).toContain('validates');
    expect(lint.ok).toBe(true);
  });

  it('is signed: our verifier and xmlsec1 accept it', () => {
    expect(verifyDte(d.bytes.toString('latin1')).valid).toBe(true);
    expect(xmlsecVerify(d.bytes).ok).toBe(true);
  });

  it('declares only the SII namespace on DTE, never xmlns:xsi', () => {
    expect(d.bytes.toString('latin1')).toMatch(
      new RegExp(`^<\\?xml version="1.0" encoding="ISO-8859-1"\\?>\\n<DTE version="1.0" xmlns="${SII_NS}">\\n`),
    );
    expect(d.bytes.toString('latin1')).not.toContain('xmlns:xsi');
    expect(d.bytes.toString('latin1')).not.toContain('schemaLocation');
  });

  it('has its elements in XSD order', () => {
    const { dte, documento, encabezado } = parts(d);
    expect(names(dte)).toEqual(['Documento', 'Signature']);
    expect(documento.getAttribute('ID')).toBe(documentIdOf(d.doc.type, d.doc.folio));
    const body = names(documento);
    const expected = [
      'Encabezado',
      ...d.doc.lines.map(() => 'Detalle'),
      ...d.doc.refs.map(() => 'Referencia'),
      'TED',
      'TmstFirma',
    ];
    expect(body).toEqual(expected);
    const transport = d.doc.dispatch?.transport ? ['Transporte'] : [];
    expect(names(encabezado)).toEqual(['IdDoc', 'Emisor', 'Receptor', ...transport, 'Totales']);
  });

  it('writes the TED verbatim, with MNT equal to MntTotal', () => {
    const stored = d.bytes.toString('latin1');
    expect(stored).toContain(`\n${d.ted}\n<TmstFirma>`);
    expect(textOf(d.ted, 'MNT')).toBe(textOf(stored, 'MntTotal'));
    expect(textOf(stored, 'MntTotal')).toBe(String(d.doc.totals.total));
  });

  it('keeps every physical line under 4 000 characters', () => {
    const longest = Math.max(
      ...d.bytes
        .toString('latin1')
        .split('\n')
        .map((l) => l.length),
    );
    expect(longest).toBeLessThan(4000);
  });
});

describe('per-type content (docs/sii-reference.md §4.4, §4.5)', () => {
  const totales = (name: string) => {
    const t = path(parts(issued[name]!).encabezado, 'Totales');
    return { order: names(t), values: leaves(t) };
  };

  it('33: MntNeto, MntExe, TasaIVA, IVA, MntTotal', () => {
    expect(totales('33')).toEqual({
      order: ['MntNeto', 'MntExe', 'TasaIVA', 'IVA', 'MntTotal'],
      values: { MntNeto: '31480', MntExe: '5000', TasaIVA: '19', IVA: '5981', MntTotal: '42461' },
    });
  });

  it('rule 10: 34 and 41: only MntExe and MntTotal, no line marked IndExe (FMT footnote 10)', () => {
    expect(totales('34')).toEqual({ order: ['MntExe', 'MntTotal'], values: { MntExe: '285000', MntTotal: '285000' } });
    expect(totales('41')).toEqual({ order: ['MntExe', 'MntTotal'], values: { MntExe: '6000', MntTotal: '6000' } });
    for (const name of ['34', '41']) {
      const lines = childElements(parts(issued[name]!).documento).filter((e) => e.localName === 'Detalle');
      expect(lines.map((l) => leaves(l)['IndExe'])).toEqual(lines.map(() => undefined));
    }
  });

  it('39: gross lines, MntNeto and IVA back-computed, no TasaIVA; IndServicio 3; generic receiver', () => {
    // 2 × 6 990 + 1.5 × 2 400 = 17 580 gross → 14 773 + 2 807.
    expect(totales('39')).toEqual({
      order: ['MntNeto', 'IVA', 'MntTotal'],
      values: { MntNeto: '14773', IVA: '2807', MntTotal: '17580' },
    });
    const { encabezado } = parts(issued['39']!);
    expect(leaves(child(encabezado, 'IdDoc'))).toEqual({
      TipoDTE: '39',
      Folio: String(issued['39']!.doc.folio),
      FchEmis: '2026-03-05',
      IndServicio: '3',
    });
    expect(leaves(child(encabezado, 'Receptor'))).toEqual({ RUTRecep: '66666666-6' });
    const detalle = leaves(child(parts(issued['39']!).documento, 'Detalle'));
    expect(detalle).toMatchObject({ NmbItem: 'Café orgánico ½ kg', QtyItem: '2', PrcItem: '6990', MontoItem: '13980' });
  });

  it('39 and 41 use the EnvioBOLETA issuer names, without Acteco', () => {
    for (const name of ['39', '41']) {
      expect(names(child(parts(issued[name]!).encabezado, 'Emisor'))).toEqual([
        'RUTEmisor',
        'RznSocEmisor',
        'GiroEmisor',
        'DirOrigen',
        'CmnaOrigen',
        'CiudadOrigen',
      ]);
    }
    expect(names(child(parts(issued['33']!).encabezado, 'Emisor'))).toEqual([
      'RUTEmisor',
      'RznSoc',
      'GiroEmis',
      'Acteco',
      'DirOrigen',
      'CmnaOrigen',
      'CiudadOrigen',
    ]);
  });

  it('46: total retention as ImptoReten code 15, MntTotal without IVA, lines with CodImpAdic 15', () => {
    const t = totales('46');
    expect(t.order).toEqual(['MntNeto', 'TasaIVA', 'IVA', 'ImptoReten', 'MntTotal']);
    expect(t.values).toMatchObject({ MntNeto: '420000', TasaIVA: '19', IVA: '79800', MntTotal: '420000' });
    const { encabezado, documento } = parts(issued['46']!);
    expect(leaves(path(encabezado, 'Totales', 'ImptoReten'))).toEqual({
      TipoImp: '15',
      TasaImp: '19',
      MontoImp: '79800',
    });
    expect(leaves(child(documento, 'Detalle'))['CodImpAdic']).toBe('15');
  });

  it('52 without prices: IndTraslado, only MntTotal 0, lines without PrcItem', () => {
    const { encabezado, documento } = parts(issued['52']!);
    expect(leaves(child(encabezado, 'IdDoc'))).toMatchObject({ IndTraslado: '6', FmaPago: '1' });
    expect(totales('52')).toEqual({ order: ['MntTotal'], values: { MntTotal: '0' } });
    expect(leaves(child(documento, 'Detalle'))).toEqual({
      NroLinDet: '1',
      NmbItem: 'Estanterías en préstamo para exhibición',
      QtyItem: '4',
      MontoItem: '0',
    });
  });

  it('52 with prices: TipoDespacho before IndTraslado, and normal totals', () => {
    const { encabezado } = parts(issued['52 with prices and dispatch type']!);
    expect(names(child(encabezado, 'IdDoc'))).toEqual([
      'TipoDTE',
      'Folio',
      'FchEmis',
      'TipoDespacho',
      'IndTraslado',
      'FmaPago',
    ]);
    expect(leaves(child(encabezado, 'Transporte'))).toEqual({
      Patente: 'KXLB12',
      DirDest: 'Camino a Melipilla 9800',
      CmnaDest: 'Maipú',
      CiudadDest: 'Santiago',
    });
    expect(leaves(child(encabezado, 'IdDoc'))).toMatchObject({ TipoDespacho: '2', IndTraslado: '1' });
    // 20 × 12 990 = 259 800; IVA 49 362.
    expect(totales('52 with prices and dispatch type').values).toMatchObject({
      MntNeto: '259800',
      IVA: '49362',
      MntTotal: '309162',
    });
  });

  it('56: a Referencia with FchRef and CodRef 3', () => {
    const ref = leaves(child(parts(issued['56']!).documento, 'Referencia'));
    expect(ref).toEqual({
      NroLinRef: '1',
      TpoDocRef: '33',
      FolioRef: '120',
      FchRef: '2026-03-01',
      CodRef: '3',
      RazonRef: 'Intereses por pago fuera de plazo',
    });
    expect(totales('56').values).toMatchObject({ MntNeto: '2000', IVA: '380', MntTotal: '2380' });
  });

  it('61 voiding: CodRef 1 and the amounts of the voided document', () => {
    expect(leaves(child(parts(issued['61 voiding (CodRef 1)']!).documento, 'Referencia'))['CodRef']).toBe('1');
    // 13 500 neto, IVA 2 565, exento 5 000.
    expect(totales('61 voiding (CodRef 1)').values).toEqual({
      MntNeto: '13500',
      MntExe: '5000',
      TasaIVA: '19',
      IVA: '2565',
      MntTotal: '21065',
    });
  });

  it('61 correcting text: MntNeto 0, TasaIVA, IVA 0, MntTotal 0 and a line worth 0', () => {
    const name = '61 correcting text (CodRef 2)';
    expect(totales(name)).toEqual({
      order: ['MntNeto', 'TasaIVA', 'IVA', 'MntTotal'],
      values: { MntNeto: '0', TasaIVA: '19', IVA: '0', MntTotal: '0' },
    });
    const { documento } = parts(issued[name]!);
    expect(leaves(child(documento, 'Detalle'))['MontoItem']).toBe('0');
    expect(leaves(child(documento, 'Detalle'))['PrcItem']).toBeUndefined();
    expect(leaves(child(documento, 'Referencia'))['CodRef']).toBe('2');
  });

  it('61 carries only the receiver RUT and name', () => {
    expect(names(child(parts(issued['61 voiding (CodRef 1)']!).encabezado, 'Receptor'))).toEqual([
      'RUTRecep',
      'RznSocRecep',
    ]);
  });

  it('33: line details in XSD order, with code, unit, description and exempt flag', () => {
    const lines = childElements(parts(issued['33']!).documento).filter((e) => e.localName === 'Detalle');
    expect(names(lines[0]!)).toEqual([
      'NroLinDet',
      'CdgItem',
      'NmbItem',
      'QtyItem',
      'UnmdItem',
      'PrcItem',
      'MontoItem',
    ]);
    expect(leaves(child(lines[0]!, 'CdgItem'))).toEqual({ TpoCodigo: 'INT1', VlrCodigo: 'CLV-2' });
    expect(names(lines[1]!)).toEqual(['NroLinDet', 'NmbItem', 'DscItem', 'QtyItem', 'PrcItem', 'MontoItem']);
    expect(names(lines[2]!)).toEqual(['NroLinDet', 'IndExe', 'NmbItem', 'QtyItem', 'PrcItem', 'MontoItem']);
  });

  it('a discount writes DescuentoPct and DescuentoMonto before MontoItem', () => {
    const d = issue(
      { type: 33, receiver: RECEIVER, items: [{ name: 'Harina 25 kg', qty: 3, price: 12500, discount_pct: 10 }] },
      { cert, folio: 300 },
    );
    const detalle = child(parts(d).documento, 'Detalle');
    expect(names(detalle)).toEqual([
      'NroLinDet',
      'NmbItem',
      'QtyItem',
      'PrcItem',
      'DescuentoPct',
      'DescuentoMonto',
      'MontoItem',
    ]);
    expect(leaves(detalle)).toMatchObject({ DescuentoPct: '10', DescuentoMonto: '3750', MontoItem: '33750' });
    expect(validateDte(d.bytes).valid).toBe(true);
  });
});

describe('text encoding in the stored bytes', () => {
  const receiverName = 'Comercial O’Higgins — Norte & <Sur> Ñuñoa 😀';
  const itemName = 'Té “premium” — 500 g ½ 😀';
  const d = issue(
    {
      type: 33,
      receiver: { ...RECEIVER, name: receiverName },
      items: [{ name: itemName, qty: 1, price: 4990, description: 'Línea 1\nLínea 2 — con “comillas”' }],
    },
    { cert, folio: 400 },
  );
  const stored = d.bytes.toString('latin1');

  it('writes characters outside Latin-1 as character references', () => {
    expect(stored).toContain(
      '<RznSocRecep>Comercial O&#8217;Higgins &#8212; Norte &amp; &lt;Sur&gt; Ñuñoa &#128512;</RznSocRecep>',
    );
    expect(stored).toContain('<NmbItem>Té &#8220;premium&#8221; &#8212; 500 g ½ &#128512;</NmbItem>');
    expect(stored).toContain('<DscItem>Línea 1\nLínea 2 &#8212; con &#8220;comillas&#8221;</DscItem>');
  });

  it('writes Latin-1 letters as single bytes, with no UTF-8 sequences and no control bytes', () => {
    expect(d.bytes.includes(Buffer.from('Ñuñoa', 'latin1'))).toBe(true);
    expect(d.bytes.includes(Buffer.from('Ñ', 'utf8'))).toBe(false);
    expect([...d.bytes].filter((b) => (b < 0x20 && b !== 0x0a) || b === 0x7f)).toEqual([]);
  });

  it('reads back as the original text, validates and verifies (xmllint, xmlsec1)', () => {
    const doc = parseXml(stored);
    expect(doc.getElementsByTagName('RznSocRecep').item(0)!.textContent).toBe(receiverName);
    expect(doc.getElementsByTagName('NmbItem').item(0)!.textContent).toBe(itemName);
    expect(validateDte(d.bytes).valid).toBe(true);
    expect(xmllint(d.bytes, 'DTE_v10.xsd').ok).toBe(true);
    expect(xmlsecVerify(d.bytes).ok).toBe(true);
  });

  it('the TED carries Latin-1 look-alikes instead (it signs Latin-1 bytes and cannot hold references)', () => {
    // The apostrophe look-alike is written &apos; as the MUE's table says (rule 11).
    expect(textOf(d.ted, 'RSR')).toBe('Comercial O&apos;Higgins - Norte &amp; &lt;Sur&gt; Ñuño');
    expect(textOf(d.ted, 'IT1')).toBe('Té &quot;premium&quot; - 500 g ½ ?');
    expect(d.ted).not.toContain('&#');
  });

  it('the issuer’s Spanish text is written as Latin-1 too', () => {
    expect(stored).toContain(`<RznSoc>Ferretería El Ñandú &amp; Cía. Ltda.</RznSoc>`);
    expect(stored).toContain(`<DirOrigen>${ISSUER.address}</DirOrigen>`);
  });
});

describe('a large document', () => {
  it('60 lines with 1 000-character descriptions stay valid, signed and under 4 000 characters a line', () => {
    const description = 'Acero inoxidable AISI 304, ñandú & <cía>, '.repeat(25).slice(0, 1000);
    const items = Array.from({ length: 60 }, (_, i) => ({
      name: `Producto ${i + 1} — ${'x'.repeat(60)}`,
      qty: 1.5,
      price: 1999.99,
      description,
    }));
    const d = issue({ type: 33, receiver: RECEIVER, items }, { cert, folio: 500 });
    expect(
      Math.max(
        ...d.bytes
          .toString('latin1')
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeLessThan(4000);
    expect(validateDte(d.bytes).valid).toBe(true);
    expect(xmlsecVerify(d.bytes).ok).toBe(true);
    // 1.5 × 1 999.99 = 2 999.985 → 3 000 a line.
    expect(d.doc.totals.net).toBe(180000);
  });
});
