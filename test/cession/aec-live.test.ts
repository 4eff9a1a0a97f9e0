/**
 * The AEC of a live factura: issued through the API, submitted by the jobs to the local SII
 * simulator and accepted there; its stored signed XML is ceded with buildAec, checked by
 * xmllint and xmlsec1 (all four signatures), and accepted by the registry's content checks
 * with the document recorded as the simulator records what it accepts (its readDte over the
 * DTE text, SHA-256 included).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAec } from '../../src/cession/aec.ts';
import { decodeXmlBytes } from '../../src/dte/xml-text.ts';
import { extractDtes } from '../../src/dte/xmldsig.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';
import { checkAec } from '../../src/sii-simulator/aec-checks.ts';
import { readDte } from '../../src/sii-simulator/received-dte.ts';
import type { TestApp } from '../helpers/app.ts';
import { testCertificate } from '../helpers/dte-pipeline.ts';
import {
  createLiveIssuer,
  estadoOf,
  eventually,
  type LiveIssuer,
  startLiveApp,
  startSimulator,
} from '../helpers/live.ts';
import { factura } from '../helpers/requests.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

let t: TestApp;
let live: LiveIssuer;

beforeAll(async () => {
  const { sim, url } = await startSimulator();
  t = await startLiveApp(sim, url);
  live = await createLiveIssuer(t, sim, [33]);
});

const ID_ATTRS = ['DocumentoAEC', 'DocumentoDTECedido', 'DocumentoCesion', 'Documento'].flatMap((n) => [
  n,
  `http://www.sii.cl/SiiDte:${n}`,
]);

describe('AEC of a live factura', () => {
  it('is schema-valid, its four signatures verify, and the registry accepts it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emitir`,
      headers: live.auth,
      payload: factura(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const { folio, totals, date } = res.json();
    expect(await eventually(async () => ((await estadoOf(t, live.rut, 33, folio)) === 'aceptado' ? true : null))).toBe(
      true,
    );
    const stored = await t.ctx.db.prisma.document.findFirstOrThrow({
      where: { issuerId: live.issuer.id, type: 33, folio },
    });
    // Stored packed (document-content.ts): the signed bytes come back through signedXmlOf.
    const dteXml = await signedXmlOf(t.ctx, stored);

    const signer = testCertificate('13185095-6', 'Firmante Prueba');
    const aec = buildAec(
      {
        dteXml,
        seq: 1,
        cedente: {
          rut: live.rut,
          razonSocial: live.issuer.name,
          direccion: 'Av. Apoquindo 4001, of. 1802',
          email: 'cesiones@emisor.cl',
          autorizados: [{ rut: '13185095-6', nombre: 'Firmante Prueba' }],
        },
        cesionario: {
          rut: '76389992-6',
          razonSocial: 'Factoring Cóndor S.A.',
          direccion: 'Apoquindo 4001',
          email: 'a@condor.cl',
        },
        monto: totals.total,
        ultimoVencimiento: date,
        signedAt: `${date}T23:59:00`,
      },
      signer,
    );

    const lint = xmllint(aec, 'AEC_v10.xsd');
    expect(lint.ok, lint.output).toBe(true);
    for (const element of ['AEC', 'DTECedido', 'Cesion', 'DTE']) {
      const r = xmlsecVerify(aec, {
        idAttrs: ID_ATTRS,
        nodeXpath: `//*[local-name()="${element}"]/*[local-name()="Signature"]`,
      });
      expect(r.ok, `${element}: ${r.output}`).toBe(true);
    }

    const accepted = readDte(extractDtes(decodeXmlBytes(dteXml))[0]!)!;
    const view = {
      document: (rut: string, type: number, f: number) =>
        rut === live.rut && type === 33 && f === folio ? accepted : undefined,
      cesiones: () => [],
      cedible: () => 23,
    };
    expect(checkAec(aec, view, date)).toMatchObject({
      estado: 'EOK',
      cesion: { issuerRut: live.rut, type: 33, folio, seq: 1, monto: totals.total },
    });
  });
});
