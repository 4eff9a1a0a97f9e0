/**
 * Any AEC read leniently (FAEC v1.1; AEC_v10.xsd): Timbre's own, a factoring company's, a
 * re-cesión carrying earlier cesiones. Files in the wild are declared ISO-8859-1, windows-1252
 * or UTF-8, have CRLF line ends, comments, elements with or without the SII namespace, and
 * signatures computed in different namespace contexts: "strict in what we write, lenient in
 * what we read". Fields are read by local name; nothing is refused for a field not known here.
 *
 * Each signature is checked in place first (as xmlsec1 does); when that fails, the signed
 * element is cut out of the file and checked alone, as written and then with its default
 * namespace toggled, the SII's rule for a DTE inside an envelope (`verifyDte`). Real AECs need
 * it: in cordada/lib-cl-sii-python's AEC of factura 170, the DTECedido and the first Cesion were
 * signed as documents without any namespace and only verify cut out.
 */
import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { holderRutOfCertificate } from '../dte/certificate.ts';
import { at, child, childElements, textOf } from '../dte/dom.ts';
import { SII_NS } from '../dte/dte-xml.ts';
import { decodeXmlBytes } from '../dte/xml-text.ts';
import {
  checkSignatureElement,
  parseXml,
  type SignatureCheck,
  stripXmlDeclaration,
  verifyDte,
} from '../dte/xmldsig.ts';

/** The AEC cannot be read as an AEC (not XML, not an `AEC`, a part missing). */
export class AecReadError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AecReadError';
  }
}

/** IdDTE (Cesion_v10.xsd), or the same fields read from the DTE itself. */
interface AecIdDte {
  type: number;
  issuerRut: string;
  receiverRut: string;
  folio: number;
  /** FchEmis, YYYY-MM-DD. */
  date: string;
  /** MntTotal as a number (NaN when not a number). */
  total: number;
}

interface AecPartyRead {
  rut: string;
  razonSocial: string;
  direccion: string;
  email: string;
}

interface AecCesionRead {
  seq: number;
  idDte: AecIdDte;
  cedente: AecPartyRead & { autorizados: { rut: string; nombre: string }[]; declaracionJurada?: string };
  cesionario: AecPartyRead;
  monto: number;
  /** UltimoVencimiento, YYYY-MM-DD. */
  ultimoVencimiento: string;
  /** TmstCesion, YYYY-MM-DDTHH:MM:SS. */
  tmst: string;
  /** How many `Signature`s the Cesion carries (one per RUTAutorizado, FAEC C.2). */
  signatures: number;
  /** The holder RUT of each signature's certificate, in order (null: none in the certificate). */
  signerRuts: (string | null)[];
}

export interface AecRead {
  caratula: { rutCedente: string; rutCesionario: string; tmst: string };
  dte: AecIdDte & {
    /** The `<DTE>…</DTE>` text exactly as it stands in the file. */
    bytes: string;
    /** RznSocRecep: the debtor's name. */
    receiverName: string;
    /** How many signed `Recibo`s the DTECedido carries. */
    recibos: number;
  };
  cesiones: AecCesionRead[];
  signatures: {
    aec: SignatureCheck;
    dteCedido: SignatureCheck;
    /** The DTE's own signature, checked as the SII does (cut out). */
    dte: SignatureCheck;
    /** Per Cesion: valid when every one of its signatures is. */
    cesiones: SignatureCheck[];
  };
}

const number = (s: string): number => (/^\d+$/.test(s) ? Number(s) : Number.NaN);
const named = (el: Element | null, name: string): Element[] =>
  el ? childElements(el).filter((c) => c.localName === name) : [];

/** Reads an AEC's bytes; throws `AecReadError` when they are not a readable AEC. */
export function readAec(bytes: Buffer): AecRead {
  const text = stripXmlDeclaration(decodeXmlBytes(bytes));
  let doc: XmlDocument;
  try {
    doc = parseXml(text);
  } catch (e) {
    throw new AecReadError(`not well-formed XML: ${(e as Error).message}`);
  }
  const root = doc.documentElement;
  if (root?.localName !== 'AEC') throw new AecReadError(`the root element is ${root?.localName ?? 'missing'}, not AEC`);
  const documento = child(root, 'DocumentoAEC');
  const caratula = child(documento, 'Caratula');
  const cesionesEl = child(documento, 'Cesiones');
  const dteCedido = child(cesionesEl, 'DTECedido');
  const documentoCedido = child(dteCedido, 'DocumentoDTECedido');
  const dteEl = child(documentoCedido, 'DTE');
  if (!caratula || !dteCedido || !dteEl) throw new AecReadError('the AEC lacks its Caratula, DTECedido or DTE');
  const cesionEls = named(cesionesEl, 'Cesion');
  if (cesionEls.length === 0) throw new AecReadError('the AEC carries no Cesion');

  const dteText = cutOut(text, 'DTE', 0);
  const cesionTexts = cesionEls.map((_, i) => cutOut(text, 'Cesion', i));
  return {
    caratula: {
      rutCedente: textOf(child(caratula, 'RutCedente')),
      rutCesionario: textOf(child(caratula, 'RutCesionario')),
      tmst: textOf(child(caratula, 'TmstFirmaEnvio')),
    },
    dte: { bytes: dteText ?? '', ...readDteIdentity(dteEl), recibos: named(documentoCedido, 'Recibo').length },
    cesiones: cesionEls.map(readCesion),
    signatures: {
      aec: signatureChecks(doc, root, null)[0] ?? NO_SIGNATURE,
      dteCedido: signatureChecks(doc, dteCedido, cutOut(text, 'DTECedido', 0))[0] ?? NO_SIGNATURE,
      dte: dteText ? guarded(() => verifyDte(dteText)) : { valid: false, reason: 'DTE text not found' },
      cesiones: cesionEls.map((c, i) => combined(signatureChecks(doc, c, cesionTexts[i] ?? null))),
    },
  };
}

const NO_SIGNATURE: SignatureCheck = { valid: false, reason: 'Signature missing' };

/** A signature check that reports, rather than throws, a key or certificate that cannot be read. */
function guarded(check: () => SignatureCheck): SignatureCheck {
  try {
    return check();
  } catch (e) {
    return { valid: false, reason: `unreadable key or certificate: ${(e as Error).message}` };
  }
}

function combined(checks: SignatureCheck[]): SignatureCheck {
  if (checks.length === 0) return NO_SIGNATURE;
  return checks.find((c) => !c.valid) ?? checks[0]!;
}

function readDteIdentity(dte: Element): AecIdDte & { receiverName: string } {
  const documento = childElements(dte).find((e) =>
    ['Documento', 'Liquidacion', 'Exportaciones'].includes(e.localName ?? ''),
  );
  const encabezado = child(documento, 'Encabezado');
  const idDoc = child(encabezado, 'IdDoc');
  return {
    type: number(textOf(child(idDoc, 'TipoDTE'))),
    folio: number(textOf(child(idDoc, 'Folio'))),
    date: textOf(child(idDoc, 'FchEmis')),
    issuerRut: textOf(at(encabezado, 'Emisor', 'RUTEmisor')),
    receiverRut: textOf(at(encabezado, 'Receptor', 'RUTRecep')),
    receiverName: textOf(at(encabezado, 'Receptor', 'RznSocRecep')),
    total: number(textOf(at(encabezado, 'Totales', 'MntTotal'))),
  };
}

function readParty(el: Element | null): AecPartyRead {
  return {
    rut: textOf(child(el, 'RUT')),
    razonSocial: textOf(child(el, 'RazonSocial')),
    direccion: textOf(child(el, 'Direccion')),
    email: textOf(child(el, 'eMail')),
  };
}

function readCesion(cesion: Element): AecCesionRead {
  const doc = child(cesion, 'DocumentoCesion');
  const idDte = child(doc, 'IdDTE');
  const cedente = child(doc, 'Cedente');
  const declaracion = child(cedente, 'DeclaracionJurada');
  const signatures = named(cesion, 'Signature');
  return {
    seq: number(textOf(child(doc, 'SeqCesion'))),
    idDte: {
      type: number(textOf(child(idDte, 'TipoDTE'))),
      issuerRut: textOf(child(idDte, 'RUTEmisor')),
      receiverRut: textOf(child(idDte, 'RUTReceptor')),
      folio: number(textOf(child(idDte, 'Folio'))),
      date: textOf(child(idDte, 'FchEmis')),
      total: number(textOf(child(idDte, 'MntTotal'))),
    },
    cedente: {
      ...readParty(cedente),
      autorizados: named(cedente, 'RUTAutorizado').map((a) => ({
        rut: textOf(child(a, 'RUT')),
        nombre: textOf(child(a, 'Nombre')),
      })),
      ...(declaracion && { declaracionJurada: textOf(declaracion) }),
    },
    cesionario: readParty(child(doc, 'Cesionario')),
    monto: number(textOf(child(doc, 'MontoCesion'))),
    ultimoVencimiento: textOf(child(doc, 'UltimoVencimiento')),
    tmst: textOf(child(doc, 'TmstCesion')),
    signatures: signatures.length,
    signerRuts: signatures.map(signerRut),
  };
}

/** The holder RUT in the X509Certificate of a Signature (null when absent or unreadable). */
function signerRut(signature: Element): string | null {
  const der = textOf(at(signature, 'KeyInfo', 'X509Data', 'X509Certificate')).replace(/\s+/g, '');
  if (!der) return null;
  try {
    return holderRutOfCertificate(Buffer.from(der, 'base64'));
  } catch {
    return null;
  }
}

/**
 * The text of the `index`-th element named `name` (any prefix) as it stands in the file; null
 * when it cannot be found. The elements cut out here never nest in themselves.
 */
function cutOut(text: string, name: string, index: number): string | null {
  const re = new RegExp(`<((?:[\\w.-]+:)?${name})(?=[\\s>])[^>]*>[\\s\\S]*?</\\1\\s*>`, 'g');
  return [...text.matchAll(re)][index]?.[0] ?? null;
}

/**
 * Each `Signature` child of `host`, checked in place, then (when that fails) in the cut-out text
 * of `host` as written and with its default namespace toggled.
 */
function signatureChecks(doc: XmlDocument, host: Element, hostText: string | null): SignatureCheck[] {
  const signatures = named(host, 'Signature');
  return signatures.map((sig, i) => {
    const inPlace = guarded(() => checkSignatureElement(doc, sig));
    if (inPlace.valid || !hostText) return inPlace;
    for (const variant of namespaceVariants(hostText)) {
      const alone = checkCutOut(variant, i);
      if (alone.valid) return alone;
    }
    return inPlace;
  });
}

function namespaceVariants(elementText: string): string[] {
  const open = /^<[^>]*>/.exec(elementText)?.[0];
  if (!open) return [elementText];
  const rest = elementText.slice(open.length);
  const declared = /\sxmlns="[^"]*"/.test(open);
  const toggled = declared
    ? open.replace(/\sxmlns="[^"]*"/, '')
    : open.replace(/^<([\w.:-]+)/, `<$1 xmlns="${SII_NS}"`);
  return [elementText, toggled + rest];
}

function checkCutOut(elementText: string, signatureIndex: number): SignatureCheck {
  let doc: XmlDocument;
  try {
    doc = parseXml(elementText);
  } catch (e) {
    return { valid: false, reason: `not well-formed XML: ${(e as Error).message}` };
  }
  const sig = doc.documentElement ? named(doc.documentElement, 'Signature')[signatureIndex] : undefined;
  return sig ? guarded(() => checkSignatureElement(doc, sig)) : NO_SIGNATURE;
}
