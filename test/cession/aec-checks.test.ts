/**
 * The RPETC's content checks (src/sii-simulator/aec-checks.ts): Timbre's AEC of a factura the
 * simulator accepted passes (EOK), and each rule fails on its own, in the registry's order:
 * RSC → RFS → RCR → RDC → RCS. To reach a later stage with an earlier one intact, the tampered
 * parts are signed again (with the same certificate, by the product's signXml), as a cedente
 * sending a wrong but well-signed AEC would. The registered document is what the simulator
 * records when it processes the envelope (its own readDte and SHA-256). A real re-cesión
 * (test/fixtures/aec) is accepted against a registry holding its first cesión.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AecInput, buildAec } from '../../src/cession/aec.ts';
import { buildEnvelope } from '../../src/dte/envelope.ts';
import { decodeXmlBytes } from '../../src/dte/xml-text.ts';
import { encodeLatin1, extractDtes, signXml, stripXmlDeclaration, withXmlDeclaration } from '../../src/dte/xmldsig.ts';
import { type AecRegistryView, checkAec } from '../../src/sii-simulator/aec-checks.ts';
import { readDte } from '../../src/sii-simulator/received-dte.ts';
import { ISSUER, issue, testCertificate } from '../helpers/dte-pipeline.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { factura } from '../helpers/requests.ts';

const cert = testCertificate('13185095-6', 'José Muñoz Peña');
const dte = issue(factura(), { cert, folio: 170 });
const TOTAL = Number(/<MntTotal>(\d+)</.exec(dte.signed)![1]);
const TODAY = '2026-03-10';

type Cesion = ReturnType<AecRegistryView['cesiones']>[number];

/** What the simulator keeps of accepted documents and cesiones, behind the view checkAec reads. */
class Registry implements AecRegistryView {
  readonly docs = new Map<string, { sha256: string; total: string; date: string; receiverRut: string }>();
  readonly noted = new Map<string, Cesion[]>();
  readonly cedibility = new Map<string, number>();

  /** Records the DTEs of an envelope as the simulator does on processing it (received-dte.ts). */
  accept(envelope: Buffer): this {
    for (const text of extractDtes(decodeXmlBytes(envelope))) {
      const d = readDte(text)!;
      this.docs.set(`${d.issuerRut}|${d.type}|${d.folio}`, d);
    }
    return this;
  }
  document(issuerRut: string, type: number, folio: number) {
    return this.docs.get(`${issuerRut}|${type}|${folio}`);
  }
  cesiones(issuerRut: string, type: number, folio: number): Cesion[] {
    return this.noted.get(`${issuerRut}|${type}|${folio}`) ?? [];
  }
  cedible(issuerRut: string, type: number, folio: number): number {
    return this.cedibility.get(`${issuerRut}|${type}|${folio}`) ?? 23;
  }
}

function envelopeOf(signed: Buffer): Buffer {
  return buildEnvelope(
    'dte',
    [{ type: 33, signedXml: signed }],
    {
      issuerRut: ISSUER.rut,
      senderRut: '13185095-6',
      resolutionDate: '2014-08-22',
      resolutionNumber: 80,
      timestamp: '2026-03-05T10:20:00',
    },
    cert,
  );
}

const registry = () => new Registry().accept(envelopeOf(dte.bytes));

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
    cesionario: {
      rut: '76389992-6',
      razonSocial: 'Factoring Cóndor S.A.',
      direccion: 'Apoquindo 4001',
      email: 'cesiones@condor.cl',
    },
    monto: TOTAL,
    ultimoVencimiento: '2026-04-04',
    signedAt: '2026-03-10T09:30:00',
    ...over,
  };
}

const good = buildAec(input(), cert);

/**
 * The AEC with parts edited: `dteCedido` / `cesion` edit those elements' text (then signed again
 * when listed in `resign`), `aec` edits the whole text; the AEC is always signed again.
 */
function tampered(
  bytes: Buffer,
  edits: {
    dteCedido?: (s: string) => string;
    cesion?: (s: string) => string;
    aec?: (s: string) => string;
    resign?: ('dteCedido' | 'cesion')[];
  },
): Buffer {
  let text = stripXmlDeclaration(bytes.toString('latin1'));
  const part = (
    name: 'DTECedido' | 'Cesion',
    id: string,
    edit: ((s: string) => string) | undefined,
    resign: boolean,
  ) => {
    const original = new RegExp(`<${name}\\b[\\s\\S]*?</${name}>`).exec(text)![0];
    let changed = (edit ?? ((s: string) => s))(original);
    if (resign) changed = signXml(unsigned(changed), cert, { referenceId: id, parentClose: `</${name}>` });
    text = text.replace(original, changed);
  };
  part('DTECedido', 'DTECedido_33_170', edits.dteCedido, edits.resign?.includes('dteCedido') ?? false);
  part('Cesion', 'Cesion_33_170_1', edits.cesion, edits.resign?.includes('cesion') ?? false);
  text = (edits.aec ?? ((s: string) => s))(text);
  const aecId = /<DocumentoAEC ID="([^"]+)"/.exec(text)![1]!;
  return encodeLatin1(withXmlDeclaration(signXml(unsigned(text), cert, { referenceId: aecId, parentClose: '</AEC>' })));
}

/** An element's text without its own (last) Signature. */
function unsigned(element: string): string {
  const at = element.lastIndexOf('<Signature xmlns=');
  const end = element.indexOf('</Signature>', at) + '</Signature>'.length;
  return element.slice(0, at) + element.slice(end).replace(/^\n/, '');
}

describe('checkAec: Timbre’s AEC of an accepted factura', () => {
  it('is accepted (EOK) with the cesión to register', () => {
    expect(checkAec(good, registry(), TODAY)).toEqual({
      estado: 'EOK',
      glosa: 'Envío Aceptado',
      cesion: {
        issuerRut: ISSUER.rut,
        type: 33,
        folio: 170,
        seq: 1,
        cedenteRut: ISSUER.rut,
        cesionarioRut: '76389992-6',
        monto: TOTAL,
        ultimoVencimiento: '2026-04-04',
        declaracionJurada: true,
      },
    });
  });

  it('re-signing without changes still passes (the tampering helper changes nothing by itself)', () => {
    expect(checkAec(tampered(good, { resign: ['dteCedido', 'cesion'] }), registry(), TODAY).estado).toBe('EOK');
  });
});

describe('checkAec: each rule', () => {
  const verdict = (bytes: Buffer, reg: Registry = registry(), today = TODAY) => checkAec(bytes, reg, today);

  it('RSC: not valid against AEC_v10.xsd, or not XML', () => {
    const noTmst = Buffer.from(
      good.toString('latin1').replace(/<TmstFirmaEnvio>[^<]*<\/TmstFirmaEnvio>\n/, ''),
      'latin1',
    );
    expect(verdict(noTmst)).toMatchObject({
      estado: 'RSC',
      glosa: expect.stringMatching(/^Rechazado por Error en Schema: /),
    });
    expect(verdict(Buffer.from('<AEC>')).estado).toBe('RSC');
  });

  it('RFS: a byte changed under the AEC signature', () => {
    const mail = Buffer.from(good.toString('latin1').replace('cesiones@condor.cl', 'cesiones@condos.cl'), 'latin1');
    expect(verdict(mail)).toMatchObject({
      estado: 'RFS',
      glosa: expect.stringMatching(/^Rechazado por Firma de Sobre: /),
    });
  });

  it('RCR: the Carátula names another cedente or cesionario than the last Cesion', () => {
    const otherCesionario = tampered(good, {
      aec: (s) => s.replace('<RutCesionario>76389992-6', '<RutCesionario>96790240-3'),
    });
    expect(verdict(otherCesionario)).toMatchObject({
      estado: 'RCR',
      glosa: expect.stringMatching(/^Error en Carátula: RutCesionario/),
    });
    const otherCedente = tampered(good, {
      aec: (s) => s.replace(`<RutCedente>${ISSUER.rut}`, '<RutCedente>96790240-3'),
    });
    expect(verdict(otherCedente).estado).toBe('RCR');
  });

  it('RDC: the DTECedido signature, the DTE signature, a DTE the SII did not accept, IdDTE', () => {
    const item = (s: string) => s.replace('Martillo carpintero', 'Martillo carpintera');
    expect(verdict(tampered(good, { dteCedido: item }))).toMatchObject({
      estado: 'RDC',
      glosa: expect.stringMatching(/^Documento Invalido: firma del DTECedido/),
    });
    expect(verdict(tampered(good, { dteCedido: item, resign: ['dteCedido'] })).glosa).toMatch(
      /firma del DTE no válida/,
    );
    expect(verdict(good, new Registry()).glosa).toMatch(/no ha sido recibido por el SII/);
    // The same folio re-issued with other content (validly signed) is not the document the SII accepted.
    const other = issue(factura({ items: [{ name: 'Otra cosa', qty: 1, price: 1000 }] }), { cert, folio: 170 });
    expect(verdict(buildAec(input({ dteXml: other.bytes, monto: 1 }), cert)).glosa).toMatch(
      /no corresponde al recibido por el SII/,
    );
    const idDte = tampered(good, {
      cesion: (s) => s.replace('<FchEmis>2026-03-05', '<FchEmis>2026-03-04'),
      resign: ['cesion'],
    });
    expect(verdict(idDte).glosa).toMatch(/IdDTE de la cesión 1 no corresponde al DTE cedido/);
  });

  it('RCS: MontoCesion above MntTotal', () => {
    const above = tampered(good, {
      cesion: (s) => s.replace(`<MontoCesion>${TOTAL}`, `<MontoCesion>${TOTAL + 1}`),
      resign: ['cesion'],
    });
    expect(verdict(above)).toMatchObject({
      estado: 'RCS',
      glosa: expect.stringMatching(/^Cesión Invalida: cesión 1: MontoCesion \d+ mayor que el monto total/),
    });
  });

  it('RCS: a cedente who is not the issuer', () => {
    const wrong = tampered(good, {
      cesion: (s) => s.replace(`<Cedente>\n<RUT>${ISSUER.rut}`, '<Cedente>\n<RUT>96790240-3'),
      aec: (s) => s.replace(`<RutCedente>${ISSUER.rut}`, '<RutCedente>96790240-3'),
      resign: ['cesion'],
    });
    expect(verdict(wrong).glosa).toMatch(/el cedente 96790240-3 no es el emisor del documento/);
  });

  it('RCS: a document claimed by its receiver, or annulled (consultarDocDteCedible 24, 21)', () => {
    for (const [code, glosa] of [
      [24, /reclamado por el receptor/],
      [21, /NC de anulación/],
    ] as const) {
      const reg = registry();
      reg.cedibility.set(`${ISSUER.rut}|33|170`, code);
      expect(verdict(good, reg)).toMatchObject({ estado: 'RCS', glosa: expect.stringMatching(glosa) });
    }
  });

  it('RCS: a document already ceded (SeqCesion 1 again)', () => {
    const reg = registry();
    reg.noted.set(`${ISSUER.rut}|33|170`, [
      { seq: 1, cedenteRut: ISSUER.rut, cesionarioRut: '76389992-6', declaracionJurada: true },
    ]);
    expect(verdict(good, reg).glosa).toMatch(/SeqCesion 1 no sigue a las 1 cesiones anotadas/);
  });

  it('RCS: a cesión dated after today, a vencimiento before FchEmis', () => {
    expect(verdict(good, registry(), '2026-03-09').glosa).toMatch(/fecha de la cesión 2026-03-10 posterior a hoy/);
    const early = tampered(good, {
      cesion: (s) => s.replace('<UltimoVencimiento>2026-04-04', '<UltimoVencimiento>2026-03-04'),
      resign: ['cesion'],
    });
    expect(verdict(early).glosa).toMatch(/UltimoVencimiento 2026-03-04 anterior/);
  });

  it('EOK: the cedente authorising itself covers its representative’s signature (as the registry accepted)', () => {
    const self = tampered(good, {
      cesion: (s) => s.replace('<RUTAutorizado>\n<RUT>13185095-6', `<RUTAutorizado>\n<RUT>${ISSUER.rut}`),
      resign: ['cesion'],
    });
    expect(verdict(self).estado).toBe('EOK');
  });

  it('RCS: a signer who is not among the RUTAutorizado', () => {
    const other = input();
    other.cedente = { ...other.cedente, autorizados: [{ rut: '16360379-9', nombre: 'Otra Persona' }] };
    expect(verdict(buildAec(other, cert)).glosa).toMatch(/el firmante 13185095-6 no es una persona autorizada/);
  });

  it('RCS: neither a Recibo nor a DeclaracionJurada; an invalid RUT', () => {
    expect(verdict(buildAec(input({ declaracionJurada: '' }), cert)).glosa).toMatch(/ni declaración jurada/);
    const badRut = tampered(good, {
      cesion: (s) => s.replace('<Cesionario>\n<RUT>76389992-6', '<Cesionario>\n<RUT>76389992-7'),
      aec: (s) => s.replace('<RutCesionario>76389992-6', '<RutCesionario>76389992-7'),
      resign: ['cesion'],
    });
    expect(verdict(badRut).glosa).toMatch(/RUT inválido 76389992-7/);
  });

  it('RCS: the Cesion’s own signature broken (the AEC signed over it again)', () => {
    const broken = tampered(good, { cesion: (s) => s.replace('<MontoCesion>', '<MontoCesion>0') });
    expect(verdict(broken).glosa).toMatch(/^Cesión Invalida: cesión 1: firma no válida/);
  });
});

describe('checkAec: a real re-cesión (factura 170 of 76354771-K, SeqCesion 2)', () => {
  const real = readFileSync(fixturePath('aec', 'AEC--76354771-K--33--170--SEQ-2.xml'));
  const dteText = extractDtes(real.toString('latin1'))[0]!;
  const reg = () => {
    const r = new Registry();
    const d = readDte(dteText)!;
    r.docs.set('76354771-K|33|170', d);
    r.noted.set('76354771-K|33|170', [
      { seq: 1, cedenteRut: '76354771-K', cesionarioRut: '76389992-6', declaracionJurada: true },
    ]);
    return r;
  };

  it('is accepted against a registry holding its first cesión', () => {
    expect(checkAec(real, reg(), '2019-04-05')).toMatchObject({
      estado: 'EOK',
      cesion: {
        seq: 2,
        cedenteRut: '76389992-6',
        cesionarioRut: '76598556-0',
        monto: 2996301,
        declaracionJurada: true,
      },
    });
  });

  it('is refused when the first cesión noted differs, or none was', () => {
    const other = reg();
    other.noted.set('76354771-K|33|170', [
      { seq: 1, cedenteRut: '76354771-K', cesionarioRut: '76598556-0', declaracionJurada: true },
    ]);
    expect(checkAec(real, other, '2019-04-05').glosa).toMatch(/cesión 1: no corresponde a la cesión anotada/);
    const none = reg();
    none.noted.clear();
    expect(checkAec(real, none, '2019-04-05').glosa).toMatch(/SeqCesion 2 no sigue a las 0 cesiones/);
  });
});

describe('checkAec: a real first cesión (factura 25568 of 76399752-9)', () => {
  const real = readFileSync(fixturePath('aec', 'AEC--76399752-9--33--25568--SEQ-1.xml'));
  const reg = new Registry();
  reg.docs.set('76399752-9|33|25568', readDte(extractDtes(real.toString('latin1'))[0]!)!);

  it('is accepted: the cedente authorised itself and its representative signed', () => {
    expect(checkAec(real, reg, '2019-04-04')).toMatchObject({
      estado: 'EOK',
      cesion: { issuerRut: '76399752-9', seq: 1, cedenteRut: '76399752-9', cesionarioRut: '76389992-6', monto: 230992 },
    });
  });

  it('is refused the day before it was signed', () => {
    expect(checkAec(real, reg, '2019-04-03').glosa).toMatch(/fecha de la cesión 2019-04-04 posterior a hoy/);
  });
});
