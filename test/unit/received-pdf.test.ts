/**
 * A received DTE printed by Timbre (README "Received documents"): read again from its bytes
 * into the issued documents' layout. Real suppliers' facturas (IDK 300) print unmarked with
 * their TED, as written in the file (CRLF and all), as the PDF417; what Timbre does not issue
 * (types 43 and 110, other taxes, global discounts, foreign currency) prints by its names and
 * amounts as written.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/dte/pdf/index.ts';
import { printedReceivedDte } from '../../src/receiving/printed-dte.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { decodePdf417, pdfPageCount, pdfText } from '../helpers/verify.ts';

const TED =
  '<TED version="1.0"><DD><RE>76354771-K</RE><TD>110</TD><F>9</F><FE>2026-11-20</FE><RR>55555555-5</RR><RSR>ACME Inc.</RSR><MNT>1250</MNT><IT1>Cobre</IT1><CAF version="1.0"><DA><RE>76354771-K</RE><RS>ENACON</RS><TD>110</TD><RNG><D>1</D><H>50</H></RNG><FA>2026-11-01</FA><RSAPK><M>xx</M><E>Aw==</E></RSAPK><IDK>300</IDK></DA><FRMA algoritmo="SHA1withRSA">yy</FRMA></CAF><TSTED>2026-11-20T10:00:00</TSTED></DD><FRMT algoritmo="SHA1withRSA">zz</FRMT></TED>';

/** A DTE of another type, unsigned: the printer reads, the checks (elsewhere) judge. */
function otherDte(type: number, encabezado: string, rest: string): Buffer {
  return Buffer.from(
    `<?xml version="1.0" encoding="ISO-8859-1"?>\n<DTE version="1.0"><Documento ID="T${type}F9"><Encabezado><IdDoc><TipoDTE>${type}</TipoDTE><Folio>9</Folio><FchEmis>2026-11-20</FchEmis><FmaPago>2</FmaPago></IdDoc><Emisor><RUTEmisor>76354771-K</RUTEmisor><RznSoc>Ingeniería Enacon SpA</RznSoc><GiroEmis>Ingeniería   y\n construcción</GiroEmis><Acteco>421000</Acteco><DirOrigen>Merced 753</DirOrigen><CmnaOrigen>Quillota</CmnaOrigen></Emisor>${encabezado}</Encabezado>${rest}${TED}</Documento></DTE>`,
    'latin1',
  );
}

describe('a received document printed by Timbre', () => {
  it('a real production factura (IDK 300): one unmarked copy, its TED as written in the file decodes from the PDF417', async () => {
    const bytes = readFileSync(fixturePath('received', 'DTE--60910000-1--33--2336600.xml'));
    const printed = printedReceivedDte(bytes, null)!;
    expect(printed.certification).toBe(false);
    // The TED as it stands in the file: windows-1252 bytes, CRLF line ends kept.
    const written = /<TED\b[\s\S]*?<\/TED>/.exec(bytes.toString('latin1'))![0];
    expect(printed.ted).toBe(written);
    expect(written).toContain('\r\n');
    const pdf = await renderPdf(printed.doc, printed.ted, { format: 'letter', sandbox: false, received: true });
    expect(pdfPageCount(pdf)).toBe(1);
    expect(decodePdf417(pdf).equals(Buffer.from(written, 'latin1'))).toBe(true);
    const text = pdfText(pdf);
    expect(text).toContain('FACTURA ELECTRÓNICA');
    expect(text).toContain('Nº 2336600');
    expect(text).toContain('Universidad de Chile');
    expect(text).toMatch(/TOTAL\s+\$ 10\.642/);
    expect(text).not.toContain('CEDIBLE');
    expect(text).not.toContain('SIN VALIDEZ');
    // A lone DTE has no Carátula: no resolution line under the stamp.
    expect(text).not.toMatch(/Res\. \d+ de/);
  });

  it('an export factura (110) in dollars: its name, the currency on every amount, the amounts in pesos', async () => {
    const bytes = otherDte(
      110,
      '<Receptor><RUTRecep>55555555-5</RUTRecep><RznSocRecep>ACME Inc.</RznSocRecep><Extranjero><Nacionalidad>225</Nacionalidad></Extranjero></Receptor><Totales><TpoMoneda>DOLAR USA</TpoMoneda><MntExe>1250.5</MntExe><MntTotal>1250.5</MntTotal></Totales><OtraMoneda><TpoMoneda>PESO CL</TpoMoneda><TpoCambio>950.25</TpoCambio><MntExeOtrMnda>1188288</MntExeOtrMnda><MntTotOtrMnda>1188288</MntTotOtrMnda></OtraMoneda>',
      '<Detalle><NroLinDet>1</NroLinDet><IndExe>1</IndExe><NmbItem>Cátodos de cobre</NmbItem><QtyItem>2.5</QtyItem><UnmdItem>TON</UnmdItem><PrcItem>500.2</PrcItem><MontoItem>1250.5</MontoItem></Detalle>',
    );
    const printed = printedReceivedDte(bytes, { date: '2014-08-22', number: 80 })!;
    expect(printed.doc.totalRows).toEqual([
      { label: 'Monto exento', value: '1.250,5 DOLAR USA' },
      { label: 'TOTAL (DOLAR USA)', value: '1.250,5 DOLAR USA', strong: true },
      { label: 'Total en PESO CL (tipo de cambio 950,25)', value: '1.188.288 PESO CL' },
    ]);
    const pdf = await renderPdf(printed.doc, printed.ted, { format: 'letter', sandbox: false, received: true });
    const text = pdfText(pdf);
    expect(text).toContain('FACTURA DE EXPORTACIÓN'); // the box wraps the name before ELECTRÓNICA
    expect(text).toContain('Cátodos de cobre (exento)');
    expect(text).toContain('Ingeniería y construcción');
    expect(text).toContain('Res. 80 de 2014');
    expect(text).toContain('Crédito');
    expect(decodePdf417(pdf).equals(Buffer.from(TED, 'latin1'))).toBe(true);
  });

  it('a liquidación factura (43) with a retention, an additional tax and a global discount prints them as written', async () => {
    const bytes = otherDte(
      43,
      '<Receptor><RUTRecep>76086428-5</RUTRecep><RznSocRecep>Ferretería El Ñandú Ltda.</RznSocRecep></Receptor><Totales><MntNeto>90000</MntNeto><TasaIVA>19</TasaIVA><IVA>17100</IVA><ImptoReten><TipoImp>15</TipoImp><TasaImp>19</TasaImp><MontoImp>17100</MontoImp></ImptoReten><ImptoReten><TipoImp>27</TipoImp><TasaImp>10</TasaImp><MontoImp>9000</MontoImp></ImptoReten><MntTotal>99000</MntTotal></Totales>',
      '<Detalle><NroLinDet>1</NroLinDet><NmbItem>Bebidas</NmbItem><QtyItem>100</QtyItem><PrcItem>1000</PrcItem><MontoItem>100000</MontoItem></Detalle><DscRcgGlobal><NroLinDR>1</NroLinDR><TpoMov>D</TpoMov><GlosaDR>Pronto pago</GlosaDR><TpoValor>%</TpoValor><ValorDR>10</ValorDR></DscRcgGlobal><Referencia><NroLinRef>1</NroLinRef><TpoDocRef>801</TpoDocRef><FolioRef>OC-77</FolioRef><FchRef>2026-11-01</FchRef></Referencia>',
    );
    const printed = printedReceivedDte(bytes, null)!;
    const pdf = await renderPdf(printed.doc, printed.ted, { format: 'letter', sandbox: true, received: true });
    const text = pdfText(pdf);
    expect(text).toContain('LIQUIDACIÓN FACTURA');
    expect(text).toMatch(/Descuento global \(Pronto pago\)\s+-10 %/);
    expect(text).toMatch(/IVA retenido total 19%\s+\$ 17\.100/);
    expect(text).toMatch(/Impuesto bebidas analcohólicas 10%\s+\$ 9\.000/);
    expect(text).toMatch(/TOTAL\s+\$ 99\.000/);
    expect(text).toContain('Orden de compra');
    // `sandbox` on a received document: the certification mark, not Timbre's SANDBOX.
    expect(text).toContain('CERTIFICACIÓN SII');
    expect(text).not.toContain('SANDBOX');
  });
});
