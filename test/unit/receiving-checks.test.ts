/**
 * The receiver's checks (src/receiving/checks.ts) on crafted files, without a database: a
 * signature over another element than the Documento, a re-signed DTE whose TED no longer
 * matches, a CAF range that does not hold the folio, the size cap, and the decoding of a
 * windows-1252 file (its 0x80–0x9F are typographic characters, not C1 controls).
 */
import { describe, expect, it } from 'vitest';
import { loadSiiCafKeys, parseTrustedKeyPem } from '../../src/dte/caf.ts';
import { encodeLatin1, signXml, stripXmlDeclaration, withXmlDeclaration } from '../../src/dte/xmldsig.ts';
import { checkReceived, decodeReceived, MAX_RECEIVED_BYTES } from '../../src/receiving/checks.ts';
import { standInSupplier } from '../helpers/supplier.ts';

const supplier = standInSupplier();
const RUT = '96790240-3';
const context = (seen: { file?: boolean; doc?: boolean } = {}) => ({
  receiverRut: RUT,
  trustedCafKeys: [...loadSiiCafKeys(), parseTrustedKeyPem(supplier.siiPublicKeyPem, 'stand-in SII')],
  seenFile: async () => seen.file ?? false,
  seenDocument: async () => seen.doc ?? false,
});

/** A supplier DTE without its signature (no declaration). */
function unsignedDte(folio: number): string {
  const signed = stripXmlDeclaration(supplier.dte(RUT, folio).toString('latin1'));
  return `${signed.slice(0, signed.lastIndexOf('<Signature xmlns='))}</DTE>`;
}

const resign = (xml: string, referenceId: string) =>
  encodeLatin1(withXmlDeclaration(signXml(xml, supplier.cert, { referenceId, parentClose: '</DTE>' })));

describe('checkReceived', () => {
  it('passes a lone supplier DTE with every check', async () => {
    const r = await checkReceived(supplier.dte(RUT, 1), context());
    expect(r).toMatchObject({ kind: 'DTE', estado: 0 });
    expect(r.documents.map((d) => [d.estado, d.reason])).toEqual([[0, null]]);
  });

  it('refuses a DTE signed over the whole document instead of its Documento (Error de Firma)', async () => {
    const r = await checkReceived(resign(unsignedDte(2), ''), context());
    expect(r.documents[0]).toMatchObject({
      estado: 1,
      reason: 'la firma referencia el documento completo (URI=""), no el Documento #T33F2',
    });
  });

  it('refuses a DTE whose amount was changed and signed again: the TED says otherwise (99)', async () => {
    const xml = unsignedDte(3);
    const total = /<MntTotal>(\d+)<\/MntTotal>/.exec(xml)![1]!;
    const changed = xml.replace(`<MntTotal>${total}</MntTotal>`, `<MntTotal>${Number(total) + 1}</MntTotal>`);
    const r = await checkReceived(resign(changed, 'T33F3'), context());
    expect(r.documents[0]).toMatchObject({
      estado: 99,
      reason: `timbre electrónico (TED) inválido: MNT ${total} no es el MntTotal ${Number(total) + 1}`,
    });
  });

  it('refuses a folio outside the CAF range of its TED', async () => {
    const r = await checkReceived(supplier.dte(RUT, 501), context());
    expect(r.documents[0]?.reason).toBe(
      'timbre electrónico (TED) inválido: el folio 501 está fuera del rango del CAF (1–500)',
    );
  });

  it('answers the duplicate lookups with 90 and 4', async () => {
    expect((await checkReceived(supplier.dte(RUT, 4), context({ file: true }))).estado).toBe(90);
    const r = await checkReceived(supplier.dte(RUT, 4), context({ doc: true }));
    expect(r.documents[0]?.estado).toBe(4);
  });

  it('refuses a file over the cap before reading it', async () => {
    const r = await checkReceived(Buffer.alloc(MAX_RECEIVED_BYTES + 1, 0x20), context());
    expect(r).toMatchObject({ estado: 91, kind: null });
    expect(r.checks.map((c) => c.check)).toEqual(['size']);
  });

  it('refuses encodings the two parsers could read differently (UTF-7, UTF-16) before reading', async () => {
    const utf7 = Buffer.from('<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE x+AD4-<DTE/>');
    expect(await checkReceived(utf7, context())).toMatchObject({
      estado: 91,
      reason: expect.stringContaining('utf-7'),
    });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<DTE/>', 'utf16le')]);
    expect((await checkReceived(utf16, context())).estado).toBe(91);
  });

  it('decodes windows-1252 by its own table and ISO-8859-1 byte for byte', () => {
    const head = (enc: string) => Buffer.from(`<?xml version="1.0" encoding="${enc}"?><a>\x93x\x94</a>`, 'latin1');
    expect(decodeReceived(head('windows-1252')).text).toContain('<a>\u201cx\u201d</a>');
    expect(decodeReceived(head('ISO-8859-1')).text).toContain('<a>\u0093x\u0094</a>');
  });
});
