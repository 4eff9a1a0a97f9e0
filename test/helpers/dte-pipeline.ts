/**
 * The pure issuing pipeline of `src/dte`, without database or HTTP, for unit tests:
 * request → zod → totals → TED → DTE XML → XMLDSig → stored ISO-8859-1 bytes.
 * CAFs are generated per type (512-bit key, FRMA by a test key); certificates are generated
 * .p12 files read back through `parsePkcs12`, as the service does.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { type Caf, generateCaf, parseCaf } from '../../src/dte/caf.ts';
import { generateTestCertificate, parsePkcs12, type SigningCertificate } from '../../src/dte/certificate.ts';
import { buildDteXml } from '../../src/dte/dte-xml.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import type { DteDocument, DteType, IssuerInfo } from '../../src/dte/model.ts';
import { buildTed } from '../../src/dte/ted.ts';
import { computeDocument } from '../../src/dte/totals.ts';
import { encodeLatin1, signDte, withXmlDeclaration } from '../../src/dte/xmldsig.ts';

export const ISSUER: IssuerInfo = {
  rut: '76086428-5',
  name: 'Ferretería El Ñandú & Cía. Ltda.',
  giro: 'Venta al por menor de artículos de ferretería',
  acteco: ['475201'],
  address: 'Av. Irarrázaval 1234, piso 2°',
  comuna: 'Ñuñoa',
  city: 'Santiago',
  vatRate: 19,
  resolutionDate: '2014-08-22',
  resolutionNumber: 80,
};

export const DATE = '2026-03-05';
export const TSTED = '2026-03-05T10:15:00';
const TMST_FIRMA = '2026-03-05T10:15:01';

let signer: { publicKey: KeyObject; privateKey: KeyObject } | undefined;

/** The key that signs the FRMA of generated CAFs (stands in for the SII's). */
function cafSigner(): { publicKey: KeyObject; privateKey: KeyObject } {
  signer ??= generateKeyPairSync('rsa', { modulusLength: 1024 });
  return signer;
}

const cafs = new Map<string, Caf>();

/** A generated CAF (folios 1..1000) for the issuer and type, parsed from its ISO-8859-1 bytes. */
export function cafFor(type: DteType, issuer: IssuerInfo = ISSUER): Caf {
  const key = `${issuer.rut}/${type}`;
  let caf = cafs.get(key);
  if (!caf) {
    const xml = generateCaf({
      rut: issuer.rut,
      name: issuer.name,
      type,
      from: 1,
      to: 1000,
      authorisedAt: '2026-01-02',
      signerKey: cafSigner().privateKey,
      idk: 100,
    });
    caf = parseCaf(Buffer.from(xml, 'latin1'));
    cafs.set(key, caf);
  }
  return caf;
}

/** A generated signing certificate (RSA 2048: generate once per test file). */
export function testCertificate(holderRut = '13185095-6', name = 'José Muñoz Peña'): SigningCertificate {
  const { p12, password } = generateTestCertificate({ holderRut, name });
  return parsePkcs12(p12, password);
}

export interface IssuedDte {
  doc: DteDocument;
  caf: Caf;
  /** The flattened TED text (Latin-1 characters). */
  ted: string;
  documentId: string;
  unsigned: string;
  signed: string;
  /** What the service stores: ISO-8859-1 bytes with the XML declaration. */
  bytes: Buffer;
}

export interface IssueOptions {
  cert: SigningCertificate;
  folio?: number;
  date?: string;
  issuer?: IssuerInfo;
}

/** Runs a raw request (as a client sends it) through the whole pure pipeline. */
export function issue(request: unknown, opts: IssueOptions): IssuedDte {
  const issuer = opts.issuer ?? ISSUER;
  const req = issueRequestSchema.parse(request);
  const doc = computeDocument(req, { issuer, folio: opts.folio ?? 42, date: opts.date ?? DATE });
  return issueDocument(doc, opts.cert);
}

/** Stamps, renders and signs an already computed document. */
export function issueDocument(doc: DteDocument, cert: SigningCertificate): IssuedDte {
  const caf = cafFor(doc.type, doc.issuer);
  const ted = buildTed({ doc, caf, cafPrivateKey: createPrivateKey(caf.privateKeyPem), timestamp: TSTED });
  const { xml, documentId } = buildDteXml(doc, { ted, timestamp: TMST_FIRMA });
  const signed = signDte(xml, documentId, cert);
  return { doc, caf, ted, documentId, unsigned: xml, signed, bytes: encodeLatin1(withXmlDeclaration(signed)) };
}

/** Text of the first `<name>` element in an XML text (no nesting), or undefined. */
export function textOf(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1];
}

/** A copy of `bytes` with the first occurrence of `from` (Latin-1 text) replaced by `to`. */
export function replaceOnce(bytes: Buffer, from: string, to: string): Buffer {
  const text = bytes.toString('latin1');
  const at = text.indexOf(from);
  if (at < 0) throw new Error(`${from} not found`);
  return Buffer.from(text.slice(0, at) + to + text.slice(at + from.length), 'latin1');
}
