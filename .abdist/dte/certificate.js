/**
 * The issuer's signing certificate (a .p12 from a Chilean certification authority) and, for
 * sandbox, generated test certificates of the same shape.
 *
 * node-forge reads PKCS#12 (legacy 3DES and OpenSSL 3 AES/PBKDF2 files alike; node:crypto has no PKCS#12 reader);
 * the key is then handed to node:crypto, which does all signing. The holder's RUT lives in the
 * SubjectAltName as an otherName with the SII's OID 1.3.6.1.4.1.8321.1 (docs/sii-reference.md §1): it is
 * the `RutEnvia` of envelopes and the `rutSender` of uploads.
 */
import { createPrivateKey, generateKeyPair, generateKeyPairSync, randomBytes, sign, X509Certificate, } from 'node:crypto';
import forge from 'node-forge';
import { AppError } from '../errors.js';
import { normalizeRut } from './rut.js';
const SII_RUT_OID = '1.3.6.1.4.1.8321.1';
/** The holder RUT inside a SubjectAltName extension value (DER bytes as a forge binary string). */
function holderRutFromAltNames(der) {
    const seq = forge.asn1.fromDer(der);
    for (const general of seq.value) {
        // otherName ::= [0] { type-id OBJECT IDENTIFIER, value [0] EXPLICIT ANY }
        if (general.tagClass !== forge.asn1.Class.CONTEXT_SPECIFIC || general.type !== 0)
            continue;
        const parts = general.value;
        const oid = parts[0];
        if (!oid || oid.type !== forge.asn1.Type.OID || forge.asn1.derToOid(oid.value) !== SII_RUT_OID)
            continue;
        const text = firstString(parts[1]);
        if (text)
            return normalizeRut(text);
    }
    return null;
}
function firstString(node) {
    if (!node)
        return null;
    if (Array.isArray(node.value)) {
        for (const child of node.value) {
            const s = firstString(child);
            if (s)
                return s;
        }
        return null;
    }
    return typeof node.value === 'string' && /^[0-9.]+-[0-9Kk]$/.test(node.value.trim()) ? node.value.trim() : null;
}
/**
 * The holder RUT of a certificate alone (PEM text or DER bytes), e.g. the signer certificate of
 * a received DTE's X509Data or of a signed seed; null when it carries no SII otherName (or is
 * not a certificate).
 */
export function holderRutOfCertificate(cert) {
    try {
        const parsed = typeof cert === 'string'
            ? forge.pki.certificateFromPem(cert)
            : forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(cert.toString('binary'))));
        const altNames = parsed.extensions.find((e) => e.name === 'subjectAltName' || e.id === '2.5.29.17');
        const rawAlt = altNames?.value;
        return typeof rawAlt === 'string' ? holderRutFromAltNames(rawAlt) : null;
    }
    catch {
        return null;
    }
}
function bagsOf(p12, type) {
    return p12.getBags({ bagType: type })[type] ?? [];
}
/**
 * PKCS#12 passwords are a BMPString for the MAC and the legacy PBE ciphers, but the UTF-8 bytes
 * for PBES2 (AES, the OpenSSL 3 default; RFC 8018). node-forge hands PBKDF2 the string's Latin-1
 * bytes, so a password such as "contraseña" verifies the MAC and then decrypts garbage. Mostly
 * forge says so ("unable to decrypt": the padding is wrong), but in about 1 file in 250 the
 * garbage ends in valid padding and the error is whatever its DER parser makes of it, so for a
 * non-ASCII password any error but a failed MAC means: retry with the UTF-8 bytes, without the
 * MAC (forge checks it before decrypting anything, so it was verified already).
 */
function pfxFromDer(p12, password) {
    const asn1 = () => forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
    try {
        return forge.pkcs12.pkcs12FromAsn1(asn1(), false, password);
    }
    catch (e) {
        const utf8 = forge.util.encodeUtf8(password);
        if (utf8 === password || /MAC could not be verified|Invalid password/i.test(e.message ?? ''))
            throw e;
        const withoutMac = asn1();
        withoutMac.value.splice(2);
        return forge.pkcs12.pkcs12FromAsn1(withoutMac, false, utf8);
    }
}
/** What a signer uses of a certificate, read from it by node:crypto. */
function certificateParts(x509) {
    const jwk = x509.publicKey.export({ format: 'jwk' });
    return {
        certPem: x509.toString(),
        certDerBase64: Buffer.from(x509.raw).toString('base64'),
        modulusBase64: Buffer.from(jwk.n ?? '', 'base64url').toString('base64'),
        exponentBase64: Buffer.from(jwk.e ?? '', 'base64url').toString('base64'),
        subjectName: /(?:^|\n)CN=([^\n]*)/.exec(x509.subject)?.[1] ?? x509.subject,
        notBefore: new Date(x509.validFrom),
        notAfter: new Date(x509.validTo),
    };
}
/** Reads a .p12: the private key and the certificate that belongs to it (CA p12s carry the chain). */
export function parsePkcs12(p12, password) {
    let pfx;
    try {
        pfx = pfxFromDer(p12, password);
    }
    catch (e) {
        const message = e.message ?? '';
        if (/MAC could not be verified|Invalid password|decrypt/i.test(message)) {
            throw new AppError('CERT_BAD_PASSWORD');
        }
        throw new AppError('CERT_UNREADABLE', `The file is not a readable PKCS#12 (.p12/.pfx): ${message}`);
    }
    const keyBag = bagsOf(pfx, forge.pki.oids.pkcs8ShroudedKeyBag).find((b) => b.key) ??
        bagsOf(pfx, forge.pki.oids.keyBag).find((b) => b.key);
    if (!keyBag?.key)
        throw new AppError('CERT_NO_PRIVATE_KEY');
    const key = keyBag.key;
    const certs = bagsOf(pfx, forge.pki.oids.certBag)
        .map((b) => b.cert)
        .filter((c) => Boolean(c));
    const cert = certs.find((c) => c.publicKey.n.equals(key.n));
    if (!cert)
        throw new AppError('CERT_UNREADABLE', 'The .p12 holds no certificate for its private key.');
    const certPem = forge.pki.certificateToPem(cert);
    const x509 = new X509Certificate(certPem);
    const altNames = cert.extensions.find((e) => e.name === 'subjectAltName' || e.id === '2.5.29.17');
    const rawAlt = altNames?.value;
    return {
        ...certificateParts(x509),
        privateKey: createPrivateKey(forge.pki.privateKeyToPem(key)),
        holderRut: typeof rawAlt === 'string' ? holderRutFromAltNames(rawAlt) : null,
    };
}
/**
 * The key material issuing keeps of a certificate, to be sealed with the master key: the private
 * key as PKCS#8 DER and the certificate as DER (JSON, base64), with the holder RUT read from the
 * .p12 (node:crypto cannot read the SII's otherName; the rest comes from the certificate).
 * `certificateFromKeyMaterial` reads it back with node:crypto alone: reading
 * the .p12 again would mean PKCS#12's key derivation in JavaScript, ~110 ms per certificate on
 * the event loop of every process that starts (migration 20261127190000_certificate_key_material).
 */
export function sealableKeyMaterial(cert) {
    const material = {
        key: cert.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
        cert: cert.certDerBase64,
        holderRut: cert.holderRut,
    };
    return Buffer.from(JSON.stringify(material), 'utf8');
}
/** The certificate as `parsePkcs12` returns it, from what `sealableKeyMaterial` wrote. */
export function certificateFromKeyMaterial(plain) {
    const m = JSON.parse(plain.toString('utf8'));
    return {
        ...certificateParts(new X509Certificate(Buffer.from(m.cert, 'base64'))),
        privateKey: createPrivateKey({ key: Buffer.from(m.key, 'base64'), format: 'der', type: 'pkcs8' }),
        holderRut: m.holderRut,
    };
}
/** Refusals of `cert import`: expired, or no holder RUT to sign envelopes with. */
export function assertUsableForImport(cert, now) {
    if (cert.notAfter <= now) {
        throw new AppError('CERTIFICATE_EXPIRED', `The certificate expired on ${cert.notAfter.toISOString()}.`);
    }
    if (!cert.holderRut)
        throw new AppError('CERT_NO_HOLDER_RUT');
}
/**
 * A .p12 shaped like a Chilean signing certificate (RSA 2048, SHA-256, holder RUT in the
 * SubjectAltName otherName of the SII): tests and the simulator build them. The password is
 * random and returned with it, and so is the certificate as `parsePkcs12` would read it (reading
 * the .p12 back would cost its key derivation again, ~110 ms).
 */
export function generateTestCertificate(input) {
    return testCertificateWithKey(input, generateKeyPairSync('rsa', { modulusLength: 2048 }));
}
/**
 * The same, for a running server (a sandbox issuer's first document): the RSA key pair is
 * generated on libuv's thread pool, and the certificate is signed by node:crypto, so the event
 * loop is held 35–100 ms (node-forge: the .p12 and its key derivation) instead of 210–580 ms
 * (measured: the prime search alone 190–490 ms, node-forge's JavaScript RSA 40–130 ms).
 */
export async function generateTestCertificateAsync(input) {
    const pair = await new Promise((resolve, reject) => generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) => err ? reject(err) : resolve({ publicKey, privateKey })));
    return testCertificateWithKey(input, pair);
}
function testCertificateWithKey(input, pair) {
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }));
    cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
    const notBefore = input.notBefore ?? new Date(Date.now() - 60_000);
    cert.validity.notBefore = notBefore;
    cert.validity.notAfter = new Date(notBefore.getTime() + (input.validDays ?? 365) * 86_400_000);
    const subject = [
        { shortName: 'C', value: 'CL' },
        { shortName: 'O', value: 'Timbre (certificado de prueba)' },
        { shortName: 'CN', value: input.name, valueTagClass: forge.asn1.Type.UTF8 },
    ];
    cert.setSubject(subject);
    const a = forge.asn1;
    const otherName = a.create(a.Class.CONTEXT_SPECIFIC, 0, true, [
        a.create(a.Class.UNIVERSAL, a.Type.OID, false, a.oidToDer(SII_RUT_OID).getBytes()),
        a.create(a.Class.CONTEXT_SPECIFIC, 0, true, [
            a.create(a.Class.UNIVERSAL, a.Type.IA5STRING, false, input.holderRut),
        ]),
    ]);
    cert.setExtensions([
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, keyEncipherment: true },
        { id: '2.5.29.17', name: 'subjectAltName', value: a.create(a.Class.UNIVERSAL, a.Type.SEQUENCE, true, [otherName]) },
    ]);
    cert.setIssuer(input.issuer
        ? forge.pki.certificateFromPem(input.issuer.certPem).subject.attributes
        : subject);
    // What forge's `cert.sign` does, with the RSA signature made by node:crypto (native) instead
    // of forge's JavaScript: the algorithm in both places, the TBSCertificate, its signature.
    const algorithm = forge.pki.oids.sha256WithRSAEncryption;
    cert.signatureOid = algorithm;
    cert.siginfo.algorithmOid = algorithm;
    // (getTBSCertificate is public in node-forge, missing from its type definitions.)
    const pki = forge.pki;
    cert.tbsCertificate = pki.getTBSCertificate(cert);
    const tbs = Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
    cert.signature = sign('sha256', tbs, input.issuer?.key ?? pair.privateKey).toString('binary');
    const password = input.password ?? randomBytes(18).toString('base64url');
    const privateKey = forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }));
    const asn1 = forge.pkcs12.toPkcs12Asn1(privateKey, [cert], password, { algorithm: '3des' });
    const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
    return {
        p12: Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'),
        password,
        cert: {
            ...certificateParts(new X509Certificate(der)),
            privateKey: pair.privateKey,
            holderRut: normalizeRut(input.holderRut),
        },
    };
}
