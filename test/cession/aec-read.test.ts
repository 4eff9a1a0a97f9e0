/**
 * Reading AECs leniently (src/cession/aec-read.ts): a real re-cesión from the SII's registry
 * (test/fixtures/aec, provenance there) whose inner signatures only verify cut out, Timbre's own
 * AEC, other encodings and line ends, and bytes that are not an AEC.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readAec, AecReadError } from '../../src/cession/aec-read.ts';
import { buildAec } from '../../src/cession/aec.ts';
import { ISSUER, issue, testCertificate } from '../helpers/dte-pipeline.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';

const real = readFileSync(fixturePath('aec', 'AEC--76354771-K--33--170--SEQ-2.xml'));

describe('readAec on a real AEC (factura 170, second cesión)', () => {
  const aec = readAec(real);

  it('reads the Carátula, the DTE and both cesiones', () => {
    expect(aec.caratula).toEqual({
      rutCedente: '76389992-6',
      rutCesionario: '76598556-0',
      tmst: '2019-04-05T12:57:32',
    });
    expect(aec.dte).toMatchObject({
      type: 33,
      folio: 170,
      issuerRut: '76354771-K',
      receiverRut: '96790240-3',
      receiverName: 'MINERA LOS PELAMBRES',
      date: '2019-04-01',
      total: 2996301,
      recibos: 0,
    });
    expect(aec.dte.bytes.startsWith('<DTE version="1.0">\n  <!-- O Win32')).toBe(true);
    expect(aec.dte.bytes.endsWith('</Signature></DTE>')).toBe(true);
    expect(
      aec.cesiones.map((c) => [c.seq, c.cedente.rut, c.cesionario.rut, c.monto, c.ultimoVencimiento, c.tmst]),
    ).toEqual([
      [1, '76354771-K', '76389992-6', 2996301, '2019-05-01', '2019-04-01T10:22:02'],
      [2, '76389992-6', '76598556-0', 2996301, '2019-05-01', '2019-04-05T12:57:32'],
    ]);
    const [first, second] = aec.cesiones;
    expect(first!.cedente.razonSocial).toBe('SERVICIOS BONILLA Y LOPEZ Y COMPAÑIA LIMITADA');
    expect(first!.cedente.declaracionJurada).toMatch(/^Se declara bajo juramento que SERVICIOS BONILLA/);
    expect(second!.cedente.autorizados).toEqual([{ rut: '16360379-9', nombre: 'ANDRES  PRATS VIAL' }]);
    expect(second!.idDte).toEqual({
      type: 33,
      issuerRut: '76354771-K',
      receiverRut: '96790240-3',
      folio: 170,
      date: '2019-04-01',
      total: 2996301,
    });
  });

  it('verifies every signature (the inner ones cut out) and reads the signers’ RUTs', () => {
    expect(aec.signatures.aec.valid).toBe(true);
    expect(aec.signatures.dteCedido.valid).toBe(true);
    expect(aec.signatures.dte.valid).toBe(true);
    expect(aec.signatures.cesiones.map((s) => s.valid)).toEqual([true, true]);
    expect(aec.cesiones.map((c) => [c.signatures, c.signerRuts])).toEqual([
      [1, ['13185095-6']],
      [1, ['16360379-9']],
    ]);
  });

  it('reads the same with CRLF line ends and declared windows-1252', () => {
    const crlf = Buffer.from(
      real.toString('latin1').replace('encoding="ISO-8859-1"', 'encoding="windows-1252"').replace(/\n/g, '\r\n'),
      'latin1',
    );
    const again = readAec(crlf);
    expect(again.cesiones).toEqual(aec.cesiones);
    expect(again.signatures.aec.valid).toBe(true);
    expect(again.signatures.cesiones.map((s) => s.valid)).toEqual([true, true]);
    expect(again.signatures.dte.valid).toBe(true);
  });

  it('reports a changed byte as an invalid signature, not as unreadable', () => {
    const tampered = Buffer.from(
      real
        .toString('latin1')
        .replace('<MontoCesion>2996301</MontoCesion>\n    <Ultimo', '<MontoCesion>2996300</MontoCesion>\n    <Ultimo'),
      'latin1',
    );
    const r = readAec(tampered);
    expect(r.cesiones[1]!.monto).toBe(2996300);
    expect(r.signatures.cesiones.map((s) => s.valid)).toEqual([true, false]);
    expect(r.signatures.aec).toMatchObject({ valid: false, reason: 'digest mismatch' });
  });
});

describe('readAec on a real first cesión (factura 25568)', () => {
  const aec = readAec(readFileSync(fixturePath('aec', 'AEC--76399752-9--33--25568--SEQ-1.xml')));

  it('reads it and verifies its four signatures', () => {
    expect(aec.caratula).toEqual({
      rutCedente: '76399752-9',
      rutCesionario: '76389992-6',
      tmst: '2019-04-04T09:09:52',
    });
    expect(aec.dte).toMatchObject({
      type: 33,
      folio: 25568,
      issuerRut: '76399752-9',
      receiverRut: '96874030-K',
      total: 230992,
    });
    expect(aec.cesiones).toHaveLength(1);
    expect(aec.cesiones[0]).toMatchObject({
      seq: 1,
      monto: 230992,
      ultimoVencimiento: '2019-04-28',
      cedente: { rut: '76399752-9', autorizados: [{ rut: '76399752-9', nombre: 'COMERCIALIZADORA INNOVA MOBEL SPA' }] },
      signerRuts: ['16477752-9'],
    });
    expect(
      Object.values(aec.signatures)
        .flat()
        .map((s) => s.valid),
    ).toEqual([true, true, true, true]);
  });
});

describe('readAec on Timbre’s own AEC', () => {
  it('reads what buildAec wrote, every signature valid in place', () => {
    const cert = testCertificate('13185095-6', 'José Muñoz Peña');
    const dte = issue(factura(), { cert, folio: 7 });
    const bytes = buildAec(
      {
        dteXml: dte.bytes,
        seq: 1,
        cedente: {
          rut: ISSUER.rut,
          razonSocial: ISSUER.name,
          direccion: ISSUER.address,
          email: 'cobranza@nandu.cl',
          autorizados: [{ rut: '13185095-6', nombre: 'José Muñoz Peña' }],
        },
        cesionario: {
          rut: '76389992-6',
          razonSocial: 'Factoring Cóndor S.A.',
          direccion: 'Apoquindo 4001',
          email: 'a@condor.cl',
        },
        monto: 10000,
        ultimoVencimiento: '2026-04-04',
        signedAt: '2026-03-10T09:30:00',
      },
      cert,
    );
    const aec = readAec(bytes);
    expect(aec.dte).toMatchObject({ type: 33, folio: 7, issuerRut: ISSUER.rut, receiverRut: RECEIVER.rut, recibos: 0 });
    const stored = dte.bytes.toString('latin1');
    expect(aec.dte.bytes).toBe(stored.slice(stored.indexOf('<DTE')).trimEnd());
    expect(aec.cesiones[0]).toMatchObject({ seq: 1, monto: 10000, signerRuts: ['13185095-6'] });
    expect(aec.cesiones[0]!.cedente.razonSocial).toBe(ISSUER.name);
    expect(
      Object.values(aec.signatures)
        .flat()
        .every((s) => s.valid),
    ).toBe(true);
  });
});

describe('readAec on broken key material', () => {
  it('reports an unreadable certificate as an invalid signature instead of throwing', () => {
    const text = real.toString('latin1');
    const at = text.lastIndexOf('<X509Certificate>') + '<X509Certificate>'.length;
    const broken = Buffer.from(
      `${text.slice(0, at)}AAAA${text.slice(text.indexOf('</X509Certificate>', at))}`,
      'latin1',
    );
    const r = readAec(broken);
    expect(r.signatures.aec).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^unreadable key or certificate/),
    });
    expect(r.signatures.cesiones.map((s) => s.valid)).toEqual([true, true]);
  });
});

describe('readAec refuses what is not an AEC', () => {
  it.each([
    ['not XML', '<AEC><DocumentoAEC>'],
    ['another document', '<?xml version="1.0"?><EnvioDTE/>'],
    ['an AEC without its parts', '<AEC version="1.0"><DocumentoAEC ID="x"/></AEC>'],
  ])('%s', (_, xml) => {
    expect(() => readAec(Buffer.from(xml))).toThrow(AecReadError);
  });
});
