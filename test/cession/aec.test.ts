/**
 * The AEC of a first cesión (src/cession/aec.ts), checked by independent tools: xmllint against
 * AEC_v10.xsd and xmlsec1 for each of its four signatures (the AEC's, the DTECedido's, the
 * Cesion's and the DTE's own), in place and cut out alone.
 */
import { describe, expect, it } from 'vitest';
import { AecInvalidError, buildAec, declaracionJurada, type AecInput } from '../../src/cession/aec.ts';
import { encodeLatin1 } from '../../src/dte/xml-text.ts';
import { validateXml } from '../../src/dte/xsd.ts';
import { buildEnvioRecibos } from '../../src/receiving/recibos.ts';
import { ISSUER, issue, testCertificate } from '../helpers/dte-pipeline.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

const cert = testCertificate('13185095-6', 'José Muñoz Peña');
const dte = issue(factura(), { cert, folio: 170 });

const CESIONARIO = {
  rut: '76389992-6',
  razonSocial: 'Factoring Cóndor & Cía. S.A.',
  direccion: 'Isidora Goyenechea 2939, of. 602',
  email: 'cesiones@condor.cl',
};

function input(over: Partial<AecInput> = {}): AecInput {
  return {
    dteXml: dte.bytes,
    seq: 1,
    cedente: {
      rut: ISSUER.rut,
      razonSocial: ISSUER.name,
      direccion: ISSUER.address,
      email: 'cobranza@nandu.cl',
      autorizados: [{ rut: '13185095-6', nombre: 'José Muñoz Peña' }],
    },
    cesionario: CESIONARIO,
    monto: Number(/<MntTotal>(\d+)</.exec(dte.signed)![1]),
    ultimoVencimiento: '2026-04-04',
    signedAt: '2026-03-10T09:30:00',
    ...over,
  };
}

const ID_ATTRS = ['DocumentoAEC', 'DocumentoDTECedido', 'DocumentoCesion', 'Documento'].flatMap((n) => [
  n,
  `http://www.sii.cl/SiiDte:${n}`,
]);
const sigOf = (element: string) => `//*[local-name()="${element}"]/*[local-name()="Signature"]`;

describe('buildAec', () => {
  const bytes = buildAec(input(), cert);
  const text = bytes.toString('latin1');

  it('is valid against AEC_v10.xsd (xmllint and our validator)', () => {
    const lint = xmllint(bytes, 'AEC_v10.xsd');
    expect(lint.output).toContain('validates');
    expect(lint.ok).toBe(true);
    expect(validateXml(bytes, 'AEC_v10.xsd')).toEqual({ valid: true, errors: [] });
  });

  it('carries the DTE byte for byte and IdDTE read from it', () => {
    const stored = dte.bytes.toString('latin1').replace(/^<\?xml[^>]*>\n/, '');
    expect(text).toContain(stored);
    expect(text).toContain(
      `<IdDTE>\n<TipoDTE>33</TipoDTE>\n<RUTEmisor>${ISSUER.rut}</RUTEmisor>\n<RUTReceptor>${RECEIVER.rut}</RUTReceptor>\n<Folio>170</Folio>\n<FchEmis>2026-03-05</FchEmis>\n`,
    );
    expect(text).toContain('<RutCedente>76086428-5</RutCedente>\n<RutCesionario>76389992-6</RutCesionario>');
    expect(text).toContain('ID="DTECedido_33_170"');
    expect(text).toContain('ID="Cesion_33_170_1"');
    expect(text).toContain('ID="AEC_33_170_1"');
  });

  it('has four signatures that xmlsec1 verifies in place', () => {
    for (const element of ['AEC', 'DTECedido', 'Cesion', 'DTE']) {
      const r = xmlsecVerify(bytes, { idAttrs: ID_ATTRS, nodeXpath: sigOf(element) });
      expect(r.output, element).toContain('OK');
      expect(r.ok, element).toBe(true);
    }
  });

  it('has DTECedido, Cesion and DTE signatures that xmlsec1 verifies cut out alone', () => {
    for (const element of ['DTECedido', 'Cesion', 'DTE']) {
      const alone = new RegExp(`<${element}\\b[^>]*>[\\s\\S]*?</${element}>`).exec(text)![0];
      const r = xmlsecVerify(Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${alone}`, 'latin1'), {
        idAttrs: ID_ATTRS,
        nodeXpath: `/*/*[local-name()="Signature"]`,
      });
      expect(r.ok, `${element}: ${r.output}`).toBe(true);
    }
  });

  it('fails xmlsec1 once a signed byte changes (the tests can fail)', () => {
    const tampered = Buffer.from(text.replace('<MontoCesion>', '<MontoCesion>1'), 'latin1');
    expect(xmlsecVerify(tampered, { idAttrs: ID_ATTRS, nodeXpath: sigOf('Cesion') }).ok).toBe(false);
    expect(xmlsecVerify(tampered, { idAttrs: ID_ATTRS, nodeXpath: sigOf('AEC') }).ok).toBe(false);
    expect(xmlsecVerify(tampered, { idAttrs: ID_ATTRS, nodeXpath: sigOf('DTECedido') }).ok).toBe(true);
  });

  it('writes the DeclaracionJurada when no Recibo is given, none when Recibos are', () => {
    expect(text).toContain(
      '<DeclaracionJurada>Se declara bajo juramento que Ferretería El Ñandú &amp; Cía. Ltda., RUT 76086428-5',
    );
    expect(text).toContain(
      `deudor de la factura Distribuidora Ñandú &amp; Hijos &lt;Sur&gt; Ltda., RUT ${RECEIVER.rut}`,
    );
  });

  it('carries the receiver’s signed Recibo instead of a DeclaracionJurada, its signature verifying in place', () => {
    const envio = buildEnvioRecibos(
      {
        responderRut: RECEIVER.rut,
        recipientRut: ISSUER.rut,
        number: 3,
        signedAt: '2026-03-06T11:00:00',
        signerRut: '13185095-6',
        documents: [
          {
            type: 33,
            folio: 170,
            date: '2026-03-05',
            issuerRut: ISSUER.rut,
            receiverRut: RECEIVER.rut,
            total: 1,
            recinto: 'Bodega',
          },
        ],
      },
      cert,
    ).toString('latin1');
    const recibo = /<Recibo\b[\s\S]*?<\/Recibo>/.exec(envio)![0];
    const withRecibo = buildAec(input({ recibos: [recibo] }), cert);
    const xml = withRecibo.toString('latin1');
    expect(xml).toContain(recibo);
    expect(xml).not.toContain('<DeclaracionJurada>');
    expect(xmllint(withRecibo, 'AEC_v10.xsd').ok).toBe(true);
    const ids = [...ID_ATTRS, 'DocumentoRecibo', 'http://www.sii.cl/SiiDte:DocumentoRecibo'];
    for (const element of ['Recibo', 'DTECedido', 'AEC']) {
      expect(xmlsecVerify(withRecibo, { idAttrs: ids, nodeXpath: sigOf(element) }).ok, element).toBe(true);
    }
  });

  it('writes the optional fields in the schema’s order (contact, other conditions, debtor e-mail)', () => {
    const full = buildAec(
      input({
        contacto: { nombre: 'María Ñúñez', fono: '+56 2 2345 6789', email: 'maria@nandu.cl' },
        otrasCondiciones: 'Pago a 30 días; intereses por mora según contrato N° 12 & anexo <A>',
        emailDeudor: 'pagos@nandu-sur.cl',
      }),
      cert,
    );
    const lint = xmllint(full, 'AEC_v10.xsd');
    expect(lint.ok, lint.output).toBe(true);
    expect(full.toString('latin1')).toContain(
      '<NmbContacto>María Ñúñez</NmbContacto>\n<FonoContacto>+56 2 2345 6789</FonoContacto>\n<MailContacto>maria@nandu.cl</MailContacto>\n<TmstFirmaEnvio>',
    );
    expect(full.toString('latin1')).toContain(
      '<OtrasCondiciones>Pago a 30 días; intereses por mora según contrato N° 12 &amp; anexo &lt;A&gt;</OtrasCondiciones>',
    );
    expect(xmlsecVerify(full, { idAttrs: ID_ATTRS, nodeXpath: sigOf('Cesion') }).ok).toBe(true);
  });

  it('refuses a second cesión, an unsigned DTE and a schema-invalid field with AecInvalidError', () => {
    expect(() => buildAec(input({ seq: 2 }), cert)).toThrow(AecInvalidError);
    expect(() => buildAec(input({ dteXml: encodeLatin1(dte.unsigned) }), cert)).toThrow(/DTE signature/);
    const reasons = (over: Partial<AecInput>) => {
      try {
        buildAec(input(over), cert);
      } catch (e) {
        expect(e).toBeInstanceOf(AecInvalidError);
        return (e as AecInvalidError).reasons.join('; ');
      }
      throw new Error('buildAec accepted it');
    };
    // Cesion_v10.xsd: Direccion has at least 5 characters.
    expect(reasons({ cesionario: { ...CESIONARIO, direccion: 'Av 1' } })).toMatch(/AEC_v10.xsd: .*Direccion/);
  });

  it('refuses what the registry would refuse: another cedente, monto above MntTotal or not whole, vencimiento before FchEmis', () => {
    const refused = (over: Partial<AecInput>) => () => buildAec(input(over), cert);
    const base = input();
    expect(refused({ cedente: { ...base.cedente, rut: '96790240-3' } })).toThrow(
      /cedente 96790240-3 is not the DTE's issuer/,
    );
    expect(refused({ monto: base.monto + 1 })).toThrow(/monto \d+ must be a whole amount from 1 to MntTotal/);
    expect(refused({ monto: 10.5 })).toThrow(/monto 10.5 must be/);
    expect(refused({ monto: 0 })).toThrow(AecInvalidError);
    expect(refused({ ultimoVencimiento: '2026-03-04' })).toThrow(
      /ultimoVencimiento 2026-03-04 is before FchEmis 2026-03-05/,
    );
    expect(() => buildAec(input({ monto: 1, ultimoVencimiento: '2026-03-05' }), cert)).not.toThrow();
  });

  it('cedes a factura exenta (34) and refuses a guía de despacho (52)', () => {
    const exenta = issue(requestFor(34), { cert, folio: 9 });
    const bytes = buildAec(input({ dteXml: exenta.bytes, monto: 1000 }), cert);
    expect(xmllint(bytes, 'AEC_v10.xsd').ok).toBe(true);
    expect(bytes.toString('latin1')).toContain('<IdDTE>\n<TipoDTE>34</TipoDTE>');
    const guia = issue(requestFor(52), { cert, folio: 9 });
    expect(() => buildAec(input({ dteXml: guia.bytes, monto: 1 }), cert)).toThrow('type 52 cannot be ceded');
  });

  it('refuses a DTE whose content no longer matches its signature', () => {
    const tampered = Buffer.from(
      dte.bytes.toString('latin1').replace('<Folio>170</Folio>', '<Folio>171</Folio>'),
      'latin1',
    );
    expect(() => buildAec(input({ dteXml: tampered }), cert)).toThrow(/DTE signature: digest mismatch/);
  });
});

describe('declaracionJurada', () => {
  const parties = {
    cedente: { rut: '76399752-9', razonSocial: 'COMERCIALIZADORA INNOVA MOBEL SPA', direccion: 'x', email: 'x' },
    cesionario: { rut: '76389992-6', razonSocial: 'ST CAPITAL S.A.', direccion: 'x', email: 'x' },
    deudor: { rut: '96874030-K', razonSocial: 'EMPRESAS LA POLAR S.A.' },
  };

  it('follows FAEC C.1 #14', () => {
    expect(declaracionJurada(parties)).toBe(
      'Se declara bajo juramento que COMERCIALIZADORA INNOVA MOBEL SPA, RUT 76399752-9 ha puesto a disposición del cesionario ST CAPITAL S.A., RUT 76389992-6, el o los documentos donde constan los recibos de las mercaderías entregadas o servicios prestados, entregados por parte del deudor de la factura EMPRESAS LA POLAR S.A., RUT 96874030-K, de acuerdo a lo establecido en la Ley N° 19.983.',
    );
  });

  it('shortens long names to fit 512 characters', () => {
    const long = 'N'.repeat(100);
    const text = declaracionJurada({
      cedente: { ...parties.cedente, razonSocial: long },
      cesionario: { ...parties.cesionario, razonSocial: long },
      deudor: { ...parties.deudor, razonSocial: long },
    });
    expect(text.length).toBeLessThanOrEqual(512);
    expect(text.length).toBeGreaterThan(505);
    expect(text).toContain('RUT 96874030-K, de acuerdo');
  });
});
