/**
 * XSD validation (src/dte/xsd.ts) against the vendored SII schemas, checked against xmllint (an
 * independent run of libxml2) on the same bytes. ISO-8859-1 documents are validated as bytes,
 * so SII lengths count characters, not UTF-8 bytes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DIR, validateDte, validateXml } from '../../src/dte/xsd.ts';
import { issue, replaceOnce, testCertificate, textOf } from '../helpers/dte-pipeline.ts';
import { requestFor } from '../helpers/requests.ts';
import { fixturePath, referenceChecksums, sha256 } from '../helpers/fixtures.ts';
import { xmllint } from '../helpers/verify.ts';

const cert = testCertificate();
const factura = issue(requestFor(33), { cert });
const boleta = issue(requestFor(39), { cert });
const receiverName = textOf(factura.bytes.toString('latin1'), 'RznSocRecep')!;
const withReceiverName = (name: string) =>
  replaceOnce(factura.bytes, `<RznSocRecep>${receiverName}</RznSocRecep>`, `<RznSocRecep>${name}</RznSocRecep>`);

describe('validateDte', () => {
  it('accepts a factura (DTE_v10) and a boleta (EnvioBOLETA_v11 via timbre-boleta-dte.xsd)', () => {
    expect(validateDte(factura.bytes)).toEqual({ valid: true, errors: [] });
    expect(validateDte(boleta.bytes)).toEqual({ valid: true, errors: [] });
  });

  it('picks the schema by TipoDTE: a boleta is not a valid DTE_v10 document', () => {
    const asFactura = validateXml(boleta.bytes, 'DTE_v10.xsd');
    expect(asFactura.valid).toBe(false);
    expect(asFactura.errors.join('\n')).toMatch(/RznSocEmisor/);
    expect(xmllint(boleta.bytes, 'DTE_v10.xsd').ok).toBe(false);
  });

  it('counts ISO-8859-1 characters: 100 × Ñ fits RznSocRecep (max 100), 101 does not, as with xmllint', () => {
    const fits = withReceiverName('Ñ'.repeat(100));
    const tooLong = withReceiverName('Ñ'.repeat(101));
    expect(validateDte(fits).valid).toBe(true);
    expect(xmllint(fits, 'DTE_v10.xsd').ok).toBe(true);
    const refused = validateDte(tooLong);
    expect(refused.valid).toBe(false);
    expect(refused.errors.join('\n')).toMatch(/RznSocRecep/);
    expect(refused.errors[0]).toMatch(/^line \d+: /);
    expect(xmllint(tooLong, 'DTE_v10.xsd').ok).toBe(false);
  });

  it('refuses elements out of XSD order', () => {
    const text = factura.bytes.toString('latin1');
    const tmst = /<TmstFirma>[^<]*<\/TmstFirma>\n/.exec(text)![0];
    const swapped = Buffer.from(text.replace(tmst, '').replace('<TED version', `${tmst}<TED version`), 'latin1');
    expect(validateDte(swapped).valid).toBe(false);
    expect(xmllint(swapped, 'DTE_v10.xsd').ok).toBe(false);
  });

  it('refuses an invalid RUT pattern and a missing required element', () => {
    expect(validateDte(replaceOnce(factura.bytes, '<RUTRecep>76354771-K', '<RUTRecep>76.354.771-K')).valid).toBe(false);
    expect(validateDte(replaceOnce(factura.bytes, '<FchEmis>2026-03-05</FchEmis>\n', '')).valid).toBe(false);
  });

  it('reports bytes that are not XML instead of throwing', () => {
    const r = validateDte(Buffer.from('<DTE><Documento>'));
    expect(r.valid).toBe(false);
    expect(r.errors).toHaveLength(1);
  });
});

describe('vendored schemas', () => {
  it('are byte-identical to the SII reference set (checksums in test/fixtures/sii/reference.sha256; timbre-boleta-dte.xsd is ours)', () => {
    const recorded = referenceChecksums();
    const ours = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.xsd') && f !== 'timbre-boleta-dte.xsd');
    const expected = [...recorded.keys()]
      .filter((k) => k.startsWith('schemas/'))
      .map((k) => k.slice('schemas/'.length));
    expect(ours.sort()).toEqual(expected.sort());
    for (const f of ours) {
      expect(sha256(readFileSync(resolve(SCHEMA_DIR, f))), f).toBe(recorded.get(`schemas/${f}`));
    }
  });

  it('validate the SII’s official EnvioDTE example', () => {
    const sample = readFileSync(fixturePath('sii', 'samples', 'sobres', 'EnvioDTE_F60T33_ejemplo_oficial_SII.xml'));
    expect(validateXml(sample, 'EnvioDTE_v10.xsd')).toEqual({ valid: true, errors: [] });
  });
});
