/**
 * Signing certificates (src/dte/certificate.ts): .p12 files as Chilean CAs and OpenSSL 3 write
 * them, and the holder RUT in SubjectAltName otherName 1.3.6.1.4.1.8321.1 (docs/sii-reference.md §1), which
 * becomes RutEnvia. Real signer certificates of production DTEs come from test/fixtures/sii/samples.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createPublicKey, sign, verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { afterAll, describe, expect, it } from 'vitest';
import {
  assertUsableForImport,
  generateTestCertificate,
  holderRutOfCertificate,
  parsePkcs12,
  type SigningCertificate,
} from '../../src/dte/certificate.ts';
import { AppError } from '../../src/errors.ts';
import { verifyDte } from '../../src/dte/xmldsig.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const work = mkdtempSync(join(tmpdir(), 'timbre-cert-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function openssl(...args: string[]): string {
  return execFileSync('openssl', args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('no error thrown');
}

/** True when `cert`'s private key and certificate belong together (a signature verifies). */
function keyMatchesCertificate(cert: SigningCertificate): boolean {
  const data = Buffer.from('Timbre');
  return verify('sha256', data, new X509Certificate(cert.certPem).publicKey, sign('sha256', data, cert.privateKey));
}

const generated = generateTestCertificate({ holderRut: '13185095-6', name: 'José Muñoz Peña', validDays: 30 });
const cert = parsePkcs12(generated.p12, generated.password);

describe('generated test certificates', () => {
  it('read back with the holder RUT and the subject with its accents', () => {
    expect(cert.holderRut).toBe('13185095-6');
    expect(cert.subjectName).toBe('José Muñoz Peña');
  });

  it('hold a private key that belongs to the certificate, RSA 2048 with e = 65537', () => {
    expect(keyMatchesCertificate(cert)).toBe(true);
    expect(Buffer.from(cert.modulusBase64, 'base64')).toHaveLength(256);
    expect(cert.exponentBase64).toBe('AQAB');
    const jwk = createPublicKey(cert.privateKey).export({ format: 'jwk' });
    expect(Buffer.from(jwk.n!, 'base64url').toString('base64')).toBe(cert.modulusBase64);
  });

  it('expose the DER of the PEM certificate for X509Data', () => {
    expect(new X509Certificate(Buffer.from(cert.certDerBase64, 'base64')).raw).toEqual(
      new X509Certificate(cert.certPem).raw,
    );
  });

  it('are valid for the days asked', () => {
    expect(cert.notAfter.getTime() - cert.notBefore.getTime()).toBe(30 * 86_400_000);
    expect(cert.notBefore.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('give the same holder RUT when read from the certificate alone', () => {
    expect(holderRutOfCertificate(cert.certPem)).toBe('13185095-6');
  });

  it('normalise a dotted RUT with a lowercase k', () => {
    const g = generateTestCertificate({ holderRut: '76.354.771-k', name: 'Empresa' });
    expect(parsePkcs12(g.p12, g.password).holderRut).toBe('76354771-K');
  });
});

describe('refusals', () => {
  it('a wrong password is CERT_BAD_PASSWORD (422)', () => {
    for (const password of ['wrong', '', `${generated.password}x`]) {
      const e = appErrorOf(() => parsePkcs12(generated.p12, password));
      expect(e.code).toBe('CERT_BAD_PASSWORD');
      expect(e.status).toBe(422);
    }
  });

  it('bytes that are not a PKCS#12 are CERT_UNREADABLE', () => {
    expect(appErrorOf(() => parsePkcs12(Buffer.from('not a p12'), 'x')).code).toBe('CERT_UNREADABLE');
    expect(appErrorOf(() => parsePkcs12(Buffer.from(cert.certPem), 'x')).code).toBe('CERT_UNREADABLE');
  });

  it('a legacy (3DES) .p12 with a non-ASCII password parses, and refuses a near miss', () => {
    const key = forge.pki.privateKeyFromPem(cert.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string);
    const asn1 = forge.pkcs12.toPkcs12Asn1(key, [forge.pki.certificateFromPem(cert.certPem)], 'contraseña', {
      algorithm: '3des',
    });
    const legacy = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    expect(parsePkcs12(legacy, 'contraseña').holderRut).toBe('13185095-6');
    expect(appErrorOf(() => parsePkcs12(legacy, 'contrasena')).code).toBe('CERT_BAD_PASSWORD');
  });

  it('a .p12 without private key is CERT_NO_PRIVATE_KEY', () => {
    const asn1 = forge.pkcs12.toPkcs12Asn1(null, [forge.pki.certificateFromPem(cert.certPem)], 'pw', {
      algorithm: '3des',
    });
    const p12 = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    expect(appErrorOf(() => parsePkcs12(p12, 'pw')).code).toBe('CERT_NO_PRIVATE_KEY');
  });

  it('an expired certificate cannot be imported', () => {
    const old = generateTestCertificate({
      holderRut: '13185095-6',
      name: 'Vencido',
      notBefore: new Date('2024-01-01T00:00:00Z'),
      validDays: 30,
    });
    const expired = parsePkcs12(old.p12, old.password);
    expect(appErrorOf(() => assertUsableForImport(expired, new Date())).code).toBe('CERTIFICATE_EXPIRED');
    expect(() => assertUsableForImport(cert, new Date())).not.toThrow();
  });
});

describe('a .p12 carrying the CA chain, CA certificate first', () => {
  it('yields the certificate of the private key, not the first one', () => {
    const ca = (() => {
      const g = generateTestCertificate({ holderRut: '60910000-1', name: 'CA de prueba' });
      return parsePkcs12(g.p12, g.password);
    })();
    const leafP12 = generateTestCertificate({
      holderRut: '8480437-1',
      name: 'Firmante Ñuñoa',
      issuer: { key: ca.privateKey, certPem: ca.certPem },
    });
    const leaf = parsePkcs12(leafP12.p12, leafP12.password);
    const key = forge.pki.privateKeyFromPem(leaf.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string);
    const certs = [ca.certPem, leaf.certPem].map((pem) => forge.pki.certificateFromPem(pem));
    const asn1 = forge.pkcs12.toPkcs12Asn1(key, certs, 'cadena', { algorithm: '3des' });
    const chain = parsePkcs12(Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'), 'cadena');
    expect(chain.holderRut).toBe('8480437-1');
    expect(chain.subjectName).toBe('Firmante Ñuñoa');
    expect(new X509Certificate(chain.certPem).issuer).toContain('CN=CA de prueba');
    expect(keyMatchesCertificate(chain)).toBe(true);
  });
});

describe('a .p12 exported by OpenSSL 3 (AES-256-CBC / PBKDF2, its default)', () => {
  // A non-ASCII password: PBES2 derives the key from its UTF-8 bytes, the MAC from its BMPString.
  const password = 'clave secreta ñ';
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'aes.key',
    '-out',
    'aes.pem',
    '-days',
    '30',
    '-utf8',
    '-subj',
    '/C=CL/O=Empresa de Prueba/CN=María Pérez Ñuñez',
    '-addext',
    'subjectAltName=otherName:1.3.6.1.4.1.8321.1;IA5STRING:23099536-2',
  );
  openssl(
    'pkcs12',
    '-export',
    '-inkey',
    'aes.key',
    '-in',
    'aes.pem',
    '-out',
    'aes.p12',
    '-passout',
    `pass:${password}`,
  );
  const p12 = readFileSync(join(work, 'aes.p12'));

  it('really is AES-encrypted (so this test covers the OpenSSL 3 format)', () => {
    const r = spawnSync('openssl', ['pkcs12', '-info', '-noout', '-in', 'aes.p12', '-passin', `pass:${password}`], {
      cwd: work,
      encoding: 'utf8',
    });
    expect(`${r.stdout}${r.stderr}`).toMatch(/Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC/);
  });

  it('parses: key, certificate, holder RUT and UTF-8 subject', () => {
    const parsed = parsePkcs12(p12, password);
    expect(parsed.holderRut).toBe('23099536-2');
    expect(parsed.subjectName).toBe('María Pérez Ñuñez');
    expect(keyMatchesCertificate(parsed)).toBe(true);
    expect(parsed.certPem.replace(/\r/g, '')).toBe(readFileSync(join(work, 'aes.pem'), 'latin1').replace(/\r/g, ''));
  });

  it('refuses a wrong password with CERT_BAD_PASSWORD', () => {
    for (const wrong of ['clave secreta n', 'clave secreta ñ ', 'Clave secreta ñ', 'clave secreta Ã±']) {
      expect(appErrorOf(() => parsePkcs12(p12, wrong)).code).toBe('CERT_BAD_PASSWORD');
    }
  });

  it('parses the 1 export in ~250 where decrypting with the Latin-1 password bytes yields valid padding', () => {
    // test/fixtures/p12/README.md: forge fails in its DER parser there, not with a decryption
    // error; the file is as good as any other export (openssl reads it) and must import.
    const odd = readFileSync(fixturePath('p12/openssl3-aes-valid-padding.p12'));
    const parsed = parsePkcs12(odd, password);
    expect(parsed.holderRut).toBe('23099536-2');
    expect(parsed.subjectName).toBe('María Pérez Ñuñez');
    expect(keyMatchesCertificate(parsed)).toBe(true);
    expect(appErrorOf(() => parsePkcs12(odd, 'clave secreta n')).code).toBe('CERT_BAD_PASSWORD');
  });

  it('without the SII otherName: no holder RUT, and import is refused', () => {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'plain.key',
      '-out',
      'plain.pem',
      '-days',
      '30',
      '-subj',
      '/CN=Sin RUT',
      '-addext',
      'subjectAltName=email:sin.rut@example.cl',
    );
    openssl('pkcs12', '-export', '-inkey', 'plain.key', '-in', 'plain.pem', '-out', 'plain.p12', '-passout', 'pass:x');
    const parsed = parsePkcs12(readFileSync(join(work, 'plain.p12')), 'x');
    expect(parsed.holderRut).toBeNull();
    expect(holderRutOfCertificate(parsed.certPem)).toBeNull();
    expect(appErrorOf(() => assertUsableForImport(parsed, new Date())).code).toBe('CERT_NO_HOLDER_RUT');
  });
});

describe('holder RUT of the real signer certificates (test/fixtures/sii/samples/dte)', () => {
  // Expected values read with `openssl x509 -ext subjectAltName`: othername 1.3.6.1.4.1.8321.1::<RUT>.
  it.each([
    ['DTE--60910000-1--33--2336600', '8480437-1'],
    ['DTE--76354771-K--33--170', '13185095-6'],
    ['DTE--96670340-7--61--110616', '23099536-2'],
  ])('%s was signed by %s', (name, rut) => {
    const pem = readFileSync(fixturePath('sii', 'samples', 'dte', `${name}-cert.pem`), 'latin1');
    expect(holderRutOfCertificate(pem)).toBe(rut);
    // The same certificate travels in the DTE's X509Data: RutEnvia can be read from a received DTE.
    const check = verifyDte(readFileSync(fixturePath('sii', 'samples', 'dte', `${name}.xml`), 'latin1'));
    expect(check.valid).toBe(true);
    expect(check.certificate!.raw).toEqual(new X509Certificate(pem).raw);
    expect(holderRutOfCertificate(check.certificate!.toString())).toBe(rut);
  });
});
