/**
 * Issuing loads a certificate from its sealed key material (the key as PKCS#8 DER and the
 * certificate as DER), not from its .p12: reading a .p12 is PKCS#12's key derivation in
 * JavaScript, ~110 ms on the event loop for each certificate every time a process starts
 * (src/issuing/key-material.ts, migration 20261127190000_certificate_key_material). Rows written
 * before the column existed get it from their .p12 the first time a process loads them.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { importCertificate } from '../../src/admin/certificates.ts';
import {
  certificateFromKeyMaterial,
  generateTestCertificate,
  generateTestCertificateAsync,
  parsePkcs12,
  type SigningCertificate,
  sealableKeyMaterial,
} from '../../src/dte/certificate.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { factura } from '../helpers/requests.ts';
import { waitFor } from '../helpers/time.ts';
import { xmlsecVerify } from '../helpers/verify.ts';

/** Everything a signer uses of a certificate, comparable with toEqual (the key as its DER). */
function comparable(c: SigningCertificate) {
  const { privateKey, ...rest } = c;
  return { ...rest, privateKey: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64') };
}

describe('the sealed key material', () => {
  it('a generated certificate comes with what reading its .p12 gives (a sandbox issuer does not read it back)', async () => {
    const input = { holderRut: '13185095-6', name: 'FIRMANTE ÑANDÚ', validDays: 30 };
    for (const generated of [generateTestCertificate(input), await generateTestCertificateAsync(input)]) {
      expect(comparable(generated.cert)).toEqual(comparable(parsePkcs12(generated.p12, generated.password)));
      const x509 = new X509Certificate(Buffer.from(generated.cert.certDerBase64, 'base64'));
      expect(x509.verify(x509.publicKey)).toBe(true);
    }
  });

  it('reads back as the .p12 reads, for a CA-style .p12 (OpenSSL 3, AES) and a generated one', () => {
    const files = [
      { p12: readFileSync(fixturePath('p12', 'openssl3-aes-valid-padding.p12')), password: 'clave secreta ñ' },
      generateTestCertificate({ holderRut: '13185095-6', name: 'FIRMANTE ÑANDÚ', validDays: 30, password: 'pw' }),
    ];
    for (const { p12, password } of files) {
      const parsed = parsePkcs12(p12, password);
      const material = sealableKeyMaterial(parsed);
      expect(comparable(certificateFromKeyMaterial(material))).toEqual(comparable(parsed));
    }
  });
});

describe('issuing with an imported certificate', () => {
  let t: TestApp;
  let rut: string;
  let issuerId: string;
  let auth: { authorization: string };
  let imports = 0;

  beforeAll(async () => {
    t = await buildTestApp();
    const issuer = await createTestIssuer(t.ctx);
    rut = issuer.rut;
    issuerId = issuer.id;
    auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut)}` };
  });

  /** Imports a new certificate, valid longer than the ones before it (so the one that signs). */
  async function importNewest(name: string) {
    imports += 1;
    const password = `clave ${imports}`;
    const { p12 } = generateTestCertificate({ holderRut: '13185095-6', name, validDays: 30 + imports, password });
    const row = await importCertificate(t.ctx, { rut, p12, password });
    return { row, p12, password, cert: parsePkcs12(p12, password) };
  }

  /** Issues a factura as a freshly started process would (nothing parsed yet) and returns its signed XML. */
  async function issueAfterRestart(): Promise<string> {
    t.ctx.caches.reset();
    t.ctx.caches.certificates.clear();
    const res = await t.app.inject({ method: 'POST', url: `/api/${rut}/emitir`, headers: auth, payload: factura() });
    expect(res.statusCode, res.body).toBe(200);
    const doc = await t.db.prisma.document.findFirstOrThrow({
      where: { issuerId, folio: res.json().folio, type: 33 },
      select: { issuerId: true, signedXml: true },
    });
    return (await signedXmlOf(t.ctx, doc)).toString('latin1');
  }

  function signerOf(xml: string): string {
    return /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(xml)![1]!.replace(/\s+/g, '');
  }

  it('is stored at import, and signing never reads the .p12 again', async () => {
    const { row, cert } = await importNewest('FIRMANTE IMPORTADO');
    expect(row.keyMaterialEncrypted).not.toBeNull();
    // Whatever the .p12 column holds now, a new process signs with the certificate imported.
    await t.db.prisma.certificate.update({
      where: { id: row.id },
      data: { p12Encrypted: new Uint8Array(t.db.secrets.seal('not a .p12')) },
    });
    const xml = await issueAfterRestart();
    expect(signerOf(xml)).toBe(cert.certDerBase64);
    expect(xmlsecVerify(Buffer.from(xml, 'latin1')).ok).toBe(true);
  });

  it('a row written before the column gets it from its .p12 on first use, and signs the same', async () => {
    const { row, cert } = await importNewest('FIRMANTE ANTIGUO');
    await t.db.prisma.certificate.update({ where: { id: row.id }, data: { keyMaterialEncrypted: null } });
    const xml = await issueAfterRestart();
    expect(signerOf(xml)).toBe(cert.certDerBase64);
    expect(xmlsecVerify(Buffer.from(xml, 'latin1')).ok).toBe(true);
    const stored = await waitFor(
      async () =>
        (await t.db.prisma.certificate.findUniqueOrThrow({ where: { id: row.id } })).keyMaterialEncrypted ?? undefined,
      { what: 'the key material written back' },
    );
    expect(comparable(certificateFromKeyMaterial(t.db.secrets.open(stored)))).toEqual(comparable(cert));
  });
});
