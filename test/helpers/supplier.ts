/**
 * A stand-in supplier for receiving tests (README "Received documents"): another issuer that sends a Timbre issuer
 * its EnvioDTE, as a real supplier's software would. Its CAF comes from the SII simulator's
 * CAF issuer (src/sii-simulator/caf-issuer.ts) signed by a stand-in SII key, whose public half
 * the app under test trusts through TIMBRE_EXTRA_CAF_KEYS; its documents are built, stamped and
 * signed by the pure pipeline of src/dte with a generated test certificate.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { type Caf, parseCaf } from '../../src/dte/caf.ts';
import type { SigningCertificate } from '../../src/dte/certificate.ts';
import { buildDteXml } from '../../src/dte/dte-xml.ts';
import { buildEnvelope } from '../../src/dte/envelope.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import type { IssuerInfo } from '../../src/dte/model.ts';
import { buildTed } from '../../src/dte/ted.ts';
import { computeDocument } from '../../src/dte/totals.ts';
import { encodeLatin1, signDte, withXmlDeclaration } from '../../src/dte/xmldsig.ts';
import { CafIssuer } from '../../src/sii-simulator/caf-issuer.ts';
import { testCertificate } from './dte-pipeline.ts';
import { factura } from './requests.ts';

export const SUPPLIER: IssuerInfo = {
  rut: '76354771-K',
  name: 'Ingeniería Enacon SpA',
  giro: 'Ingeniería y construcción',
  acteco: ['421000'],
  address: 'Merced 753',
  comuna: 'Quillota',
  city: 'Quillota',
  vatRate: 19,
  resolutionDate: '2014-08-22',
  resolutionNumber: 80,
};

/** The sender (RutEnvia): the holder of the supplier's certificate. */
const SUPPLIER_SENDER = '13185095-6';

export interface Supplier {
  /** SPKI PEM of the stand-in SII key: the app's TIMBRE_EXTRA_CAF_KEYS. */
  siiPublicKeyPem: string;
  cert: SigningCertificate;
  caf: Caf;
  /** A signed DTE (ISO-8859-1 bytes with declaration) of `folio`, addressed to `receiverRut`. */
  dte(receiverRut: string, folio: number, over?: Record<string, unknown>): Buffer;
  /** A signed EnvioDTE of these DTEs, its Carátula addressed to `receiverRut`. */
  envelope(receiverRut: string, dtes: Buffer[], opts?: { timestamp?: string }): Buffer;
}

export function standInSupplier(): Supplier {
  const sii = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const cafs = new CafIssuer(
    sii.privateKey as KeyObject,
    () => new Date('2026-11-02T12:00:00Z'),
    new Map([
      [SUPPLIER.rut, { rut: SUPPLIER.rut, resolutionDate: '2014-08-22', resolutionNumber: 80, name: SUPPLIER.name }],
    ]),
  );
  const caf = parseCaf(cafs.issue(SUPPLIER.rut, 33, 500).file);
  const cafKey = createPrivateKey(caf.privateKeyPem);
  const cert = testCertificate(SUPPLIER_SENDER, 'Felipe Barría Soto');
  return {
    siiPublicKeyPem: sii.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    cert,
    caf,
    dte(receiverRut, folio, over = {}) {
      const base = factura(over);
      const req = issueRequestSchema.parse({ ...base, receiver: { ...(base.receiver as object), rut: receiverRut } });
      const doc = computeDocument(req, { issuer: SUPPLIER, folio, date: '2026-11-20' });
      const ted = buildTed({ doc, caf, cafPrivateKey: cafKey, timestamp: '2026-11-20T10:15:00' });
      const { xml, documentId } = buildDteXml(doc, { ted, timestamp: '2026-11-20T10:15:01' });
      return encodeLatin1(withXmlDeclaration(signDte(xml, documentId, cert)));
    },
    envelope(receiverRut, dtes, opts = {}) {
      return buildEnvelope(
        'dte',
        dtes.map((signedXml) => ({ type: 33, signedXml })),
        {
          issuerRut: SUPPLIER.rut,
          senderRut: SUPPLIER_SENDER,
          receiverRut,
          resolutionDate: '2014-08-22',
          resolutionNumber: 80,
          timestamp: opts.timestamp ?? '2026-11-20T10:16:00',
        },
        cert,
      );
    },
  };
}
