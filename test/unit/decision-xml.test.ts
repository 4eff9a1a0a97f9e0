/**
 * The XML a decision sends to the supplier (docs/receiving.md §2, §3): a RespuestaDTE with one
 * ResultadoDTE and an EnvioRecibos with its fixed Declaracion, both checked by independent tools:
 * xmllint against the SII's schemas, xmlsec1 for every signature (the set's and each Recibo's,
 * in place and cut out alone).
 */
import { describe, expect, it } from 'vitest';
import { buildEnvioRecibos, RECIBO_DECLARACION } from '../../src/receiving/recibos.ts';
import { buildResultado, ESTADO_DTE } from '../../src/receiving/respuesta.ts';
import { testCertificate } from '../helpers/dte-pipeline.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

const cert = testCertificate('13185095-6', 'José Muñoz Peña');
const doc = {
  type: 33,
  folio: 170,
  date: '2026-11-20',
  issuerRut: '76354771-K',
  receiverRut: '76086428-5',
  total: 2996301,
};

describe('ResultadoDTE', () => {
  for (const [estado, glosa] of [
    [ESTADO_DTE.ACCEPTED, null],
    [ESTADO_DTE.ACCEPTED_WITH_DISCREPANCIES, 'Faltan 3 tableros'],
    [ESTADO_DTE.REJECTED, 'Precio distinto al cotizado: ñandú'],
  ] as const) {
    it(`EstadoDTE ${estado} is schema-valid and signed`, () => {
      const bytes = buildResultado(
        {
          responderRut: '76086428-5',
          recipientRut: '76354771-K',
          number: 12,
          signedAt: '2026-11-23T10:00:00',
          document: { ...doc, envelopeNumber: 4 },
          estado,
          reason: glosa,
        },
        cert,
      );
      const lint = xmllint(bytes, 'RespuestaEnvioDTE_v10.xsd');
      expect(lint.output).toContain('validates');
      const sig = xmlsecVerify(bytes, { idAttrs: ['Resultado', 'http://www.sii.cl/SiiDte:Resultado'] });
      expect(sig.output).toContain('OK');
      expect(sig.ok).toBe(true);
      const text = bytes.toString('latin1');
      expect(text).toContain(`<EstadoDTE>${estado}</EstadoDTE>`);
      expect(text).toContain('<CodEnvio>4</CodEnvio>');
      expect(text).toContain('<RutRecibe>76354771-K</RutRecibe>');
      expect(text).not.toContain('RecepcionEnvio');
      if (glosa) expect(text).toContain(glosa);
    });
  }
});

describe('EnvioRecibos', () => {
  const input = {
    responderRut: '76086428-5',
    recipientRut: '76354771-K',
    number: 3,
    signedAt: '2026-11-23T10:00:00',
    signerRut: '13185095-6',
    documents: [
      { ...doc, recinto: 'Bodega central, Av. Ñuñoa 123' },
      { ...doc, folio: 171, recinto: 'Oficina' },
    ],
  };

  it('is schema-valid, carries the fixed Declaracion, and every signature verifies', () => {
    const bytes = buildEnvioRecibos(input, cert);
    const lint = xmllint(bytes, 'EnvioRecibos_v10.xsd');
    expect(lint.output).toContain('validates');
    expect(lint.ok).toBe(true);
    const text = bytes.toString('latin1');
    expect(text.split(`<Declaracion>${RECIBO_DECLARACION}</Declaracion>`)).toHaveLength(3);
    expect(text).toContain('<RutFirma>13185095-6</RutFirma>');

    const ids = [
      'SetRecibos',
      'http://www.sii.cl/SiiDte:SetRecibos',
      'DocumentoRecibo',
      'http://www.sii.cl/SiiDte:DocumentoRecibo',
    ];
    // The set's signature (the last one, the root's child).
    const set = xmlsecVerify(bytes, { idAttrs: ids, nodeXpath: '/*/*[local-name()="Signature"]' });
    expect(set.output).toContain('OK');
    expect(set.ok).toBe(true);
    // Each Recibo's signature, in place.
    for (const i of [1, 2]) {
      const one = xmlsecVerify(bytes, {
        idAttrs: ids,
        nodeXpath: `(//*[local-name()="Recibo"])[${i}]/*[local-name()="Signature"]`,
      });
      expect(one.output).toContain('OK');
      expect(one.ok).toBe(true);
    }
    // And cut out alone.
    const first = /<Recibo [\s\S]*?<\/Recibo>/.exec(text)![0];
    const alone = xmlsecVerify(Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${first}`, 'latin1'), {
      idAttrs: ids,
    });
    expect(alone.ok).toBe(true);
  });

  it('a tampered Recibo fails its signature', () => {
    const text = buildEnvioRecibos(input, cert).toString('latin1').replace('<Recinto>Oficina<', '<Recinto>Ofizina<');
    const one = xmlsecVerify(Buffer.from(text, 'latin1'), {
      idAttrs: ['DocumentoRecibo', 'http://www.sii.cl/SiiDte:DocumentoRecibo', 'SetRecibos'],
      nodeXpath: '(//*[local-name()="Recibo"])[2]/*[local-name()="Signature"]',
    });
    expect(one.ok).toBe(false);
  });
});
