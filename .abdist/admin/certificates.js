/**
 * `cert import`: the issuer's signing certificate (.p12). Parsed with node-forge, refused when
 * the password is wrong, there is no private key, it has expired or it lacks the holder RUT
 * (SII OID 1.3.6.1.4.1.8321.1, needed as RutEnvia / rutSender). Stored encrypted (.p12 and
 * password, and the key and certificate as DER, which is what issuing loads: no PKCS#12 key
 * derivation on every process start); the holder RUT and validity are kept in clear for queries.
 */
import { createHash } from 'node:crypto';
import { assertUsableForImport, parsePkcs12, sealableKeyMaterial } from '../dte/certificate.js';
import { changing } from './changes.js';
import { findIssuerOrThrow } from './issuers.js';
export async function importCertificate(ctx, input) {
    const issuer = await findIssuerOrThrow(ctx, input.rut, { includeInactive: true });
    const cert = parsePkcs12(input.p12, input.password);
    assertUsableForImport(cert, ctx.clock());
    const { secrets } = ctx.db;
    // Announced to every running instance: the next issue anywhere signs with this certificate.
    return changing(ctx, { kind: 'certificates', issuerId: issuer.id }, (tx) => tx.certificate.create({
        data: {
            issuerId: issuer.id,
            kind: 'imported',
            p12Encrypted: new Uint8Array(secrets.seal(input.p12)),
            passwordEncrypted: new Uint8Array(secrets.seal(input.password)),
            keyMaterialEncrypted: new Uint8Array(secrets.seal(sealableKeyMaterial(cert))),
            holderRut: cert.holderRut ?? '',
            subjectName: cert.subjectName,
            fingerprint: createHash('sha256').update(Buffer.from(cert.certDerBase64, 'base64')).digest('hex'),
            notBefore: cert.notBefore,
            notAfter: cert.notAfter,
        },
    }));
}
export function certificateView(c) {
    return {
        id: c.id,
        holder_rut: c.holderRut,
        subject: c.subjectName,
        not_before: c.notBefore.toISOString(),
        not_after: c.notAfter.toISOString(),
        fingerprint_sha256: c.fingerprint,
    };
}
/** An issuer's certificates, newest first (the dashboard's Certificado page). */
export async function listCertificates(ctx, issuerId) {
    return ctx.db.prisma.certificate.findMany({ where: { issuerId }, orderBy: { createdAt: 'desc' } });
}
