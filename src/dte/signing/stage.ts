/**
 * The CPU-heavy stage of issuing, as one pure function: stamp the TED, write the DTE XML, sign
 * it (XMLDSig), encode the bytes to store, and run the last check on those bytes
 * (`verifyStoredDte`: libxml2 re-reads them; XSD, digest, SignatureValue, TED). The worker
 * threads of `pool.ts` run it, and so does the main thread when `SIGN_WORKERS=0`; either way
 * the result is the same bytes (PKCS#1 v1.5 signatures are deterministic).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { type Caf, cafPublicKey } from '../caf.ts';
import { buildDteXml } from '../dte-xml.ts';
import type { DteDocument } from '../model.ts';
import { buildTed } from '../ted.ts';
import { verifyStoredDte } from '../verify-stored.ts';
import { encodeLatin1, type SignatureKey, signatureKeyOf, signDte, withXmlDeclaration } from '../xmldsig.ts';

export interface StageInput {
  doc: DteDocument;
  /** TSTED and TmstFirma, YYYY-MM-DDTHH:MM:SS (Chile). */
  timestamp: string;
}

/** Everything the stage needs of the keys, parsed once (per process, or per worker). */
export interface SigningKeys {
  cert: SignatureKey;
  /** The public key of `cert`, for the last check. */
  certificateKey: KeyObject;
  caf: Pick<Caf, 'cafXml'>;
  cafPrivateKey: KeyObject;
  /** The CAF's public key (RSAPK), for the last check. */
  cafKey: KeyObject;
}

/** The stored form and its TED, or why the produced bytes do not verify (a Timbre bug). */
export type StageResult = { ok: true; ted: string; bytes: Buffer } | { ok: false; errors: string[] };

export function signStage({ doc, timestamp }: StageInput, keys: SigningKeys): StageResult {
  const ted = buildTed({ doc, caf: keys.caf, cafPrivateKey: keys.cafPrivateKey, timestamp });
  const { xml, documentId } = buildDteXml(doc, { ted, timestamp });
  const bytes = encodeLatin1(withXmlDeclaration(signDte(xml, documentId, keys.cert)));
  // The bytes about to be stored, re-read by another XML parser (libxml2): XSD, XMLDSig and TED
  // must verify, or nothing is stored and the folio goes back (docs/design.md §7).
  const check = verifyStoredDte(bytes, { certificateKey: keys.certificateKey, cafKey: keys.cafKey });
  return check.valid ? { ok: true, ted, bytes } : { ok: false, errors: check.errors };
}

/**
 * Key material as it travels to a worker, once per worker and key (never per document): the
 * certificate's private key and KeyInfo parts, or a CAF's flattened element, RSAPK and private
 * key. `KeyObject`s cross threads by structured clone (node:crypto); nothing is written anywhere.
 */
export type KeyPayload =
  | { kind: 'cert'; id: string; cert: SignatureKey }
  | { kind: 'caf'; id: string; caf: Pick<Caf, 'cafXml' | 'modulus' | 'exponent'>; privateKey: KeyObject };

/**
 * Parsed keys by id, with the public keys the last check needs derived once. Each worker holds
 * one; so does the main thread when it signs in-process. The pool decides what is kept
 * (it tells a worker to forget a key when it evicts it), so this store never evicts by itself.
 */
export class KeyStore {
  private readonly certs = new Map<string, { cert: SignatureKey; certificateKey: KeyObject }>();
  private readonly cafs = new Map<string, { caf: Pick<Caf, 'cafXml'>; cafPrivateKey: KeyObject; cafKey: KeyObject }>();

  add(p: KeyPayload): void {
    if (p.kind === 'cert') {
      this.certs.set(p.id, { cert: signatureKeyOf(p.cert), certificateKey: createPublicKey(p.cert.privateKey) });
    } else {
      this.cafs.set(p.id, { caf: { cafXml: p.caf.cafXml }, cafPrivateKey: p.privateKey, cafKey: cafPublicKey(p.caf) });
    }
  }

  has(id: string): boolean {
    return this.certs.has(id) || this.cafs.has(id);
  }

  forget(id: string): void {
    this.certs.delete(id);
    this.cafs.delete(id);
  }

  get size(): number {
    return this.certs.size + this.cafs.size;
  }

  /** The keys of one document; throws when either was never sent (a pool bug). */
  keys(certId: string, cafId: string): SigningKeys {
    const cert = this.certs.get(certId);
    const caf = this.cafs.get(cafId);
    if (!cert || !caf) throw new Error(`signing keys missing in this thread (${cert ? 'CAF' : 'certificate'})`);
    return { ...cert, ...caf };
  }
}
