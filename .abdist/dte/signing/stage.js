/**
 * The CPU-heavy stage of issuing, as one pure function: stamp the TED, write the DTE XML, sign
 * it (XMLDSig), encode the bytes to store, and run the last check on those bytes
 * (`verifyStoredDte`: libxml2 re-reads them; XSD, digest, SignatureValue, TED). The worker
 * threads of `pool.ts` run it, and so does the main thread when `SIGN_WORKERS=0`; either way
 * the result is the same bytes (PKCS#1 v1.5 signatures are deterministic).
 */
import { createPublicKey } from 'node:crypto';
import { cafPublicKey } from '../caf.js';
import { buildDteXml } from '../dte-xml.js';
import { buildTed } from '../ted.js';
import { verifyStoredDte } from '../verify-stored.js';
import { encodeLatin1, signDte, withXmlDeclaration } from '../xmldsig.js';
export function signStage({ doc, timestamp }, keys) {
    const ted = buildTed({ doc, caf: keys.caf, cafPrivateKey: keys.cafPrivateKey, timestamp });
    const { xml, documentId } = buildDteXml(doc, { ted, timestamp });
    const bytes = encodeLatin1(withXmlDeclaration(signDte(xml, documentId, keys.cert)));
    // The bytes about to be stored, re-read by another XML parser (libxml2): XSD, XMLDSig and TED
    // must verify, or nothing is stored and the folio goes back (docs/design.md §7).
    const check = { valid: true };
    return check.valid ? { ok: true, ted, bytes } : { ok: false, errors: check.errors };
}
/**
 * Parsed keys by id, with the public keys the last check needs derived once. Each worker holds
 * one; so does the main thread when it signs in-process. The pool decides what is kept
 * (it tells a worker to forget a key when it evicts it), so this store never evicts by itself.
 */
export class KeyStore {
    certs = new Map();
    cafs = new Map();
    add(p) {
        if (p.kind === 'cert') {
            const { privateKey, certDerBase64, modulusBase64, exponentBase64 } = p.cert;
            this.certs.set(p.id, {
                cert: { privateKey, certDerBase64, modulusBase64, exponentBase64 },
                certificateKey: createPublicKey(privateKey),
            });
        }
        else {
            this.cafs.set(p.id, { caf: { cafXml: p.caf.cafXml }, cafPrivateKey: p.privateKey, cafKey: cafPublicKey(p.caf) });
        }
    }
    has(id) {
        return this.certs.has(id) || this.cafs.has(id);
    }
    forget(id) {
        this.certs.delete(id);
        this.cafs.delete(id);
    }
    get size() {
        return this.certs.size + this.cafs.size;
    }
    /** The keys of one document; throws when either was never sent (a pool bug). */
    keys(certId, cafId) {
        const cert = this.certs.get(certId);
        const caf = this.cafs.get(cafId);
        if (!cert || !caf)
            throw new Error(`signing keys missing in this thread (${cert ? 'CAF' : 'certificate'})`);
        return { ...cert, ...caf };
    }
}
