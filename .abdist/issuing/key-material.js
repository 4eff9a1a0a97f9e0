/**
 * Key material for issuing, decrypted once per process and cached in `ctx.caches`
 * (src/caches.ts says what is kept and for how long):
 * - the signing certificate of an issuer (imported .p12; in sandbox, when none was imported,
 *   a per-issuer generated test certificate, created on first use);
 * - each CAF's parsed content and private key (signs the TED);
 * - the installation's sandbox CAF-signing key (signs the FRMA of generated sandbox CAFs;
 *   stored encrypted in `settings` so every instance shares it).
 */
import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { parseCaf } from '../dte/caf.js';
import { certificateFromKeyMaterial, generateTestCertificateAsync, parsePkcs12, sealableKeyMaterial, } from '../dte/certificate.js';
import { AppError } from '../errors.js';
function cafMaterial(ctx, row) {
    const cached = ctx.caches.cafs.get(row.id);
    if (cached)
        return cached;
    const original = ctx.db.secrets.open(row.originalEncrypted);
    const caf = parseCaf(original);
    const material = { caf, privateKey: createPrivateKey(caf.privateKeyPem) };
    ctx.caches.cafs.set(row.id, material);
    return material;
}
/** The material of a CAF by id (cached; read from the database once per process). */
export async function cafMaterialById(ctx, cafId) {
    const cached = ctx.caches.cafs.get(cafId);
    if (cached)
        return cached;
    return cafMaterial(ctx, await ctx.db.prisma.caf.findUniqueOrThrow({ where: { id: cafId } }));
}
/**
 * A certificate's key and parts, from its sealed key material (node:crypto, well under a
 * millisecond). A row written before that column existed has only its .p12: read once (PKCS#12's
 * key derivation, ~110 ms of this thread), and the key material is written back for every
 * process after this one.
 */
function certificateMaterial(ctx, row) {
    const cached = ctx.caches.certificates.get(row.id);
    if (cached)
        return cached;
    const { secrets } = ctx.db;
    let cert;
    if (row.keyMaterialEncrypted) {
        cert = certificateFromKeyMaterial(secrets.open(row.keyMaterialEncrypted));
    }
    else {
        cert = parsePkcs12(secrets.open(row.p12Encrypted), secrets.open(row.passwordEncrypted).toString('utf8'));
        ctx.db.pool
            .query('UPDATE certificates SET key_material_encrypted = $1 WHERE id = $2::uuid AND key_material_encrypted IS NULL', [secrets.seal(sealableKeyMaterial(cert)), row.id])
            .catch((err) => ctx.log.warn({ err, certificate: row.id }, 'could not store a certificate key material'));
    }
    ctx.caches.certificates.set(row.id, cert);
    return cert;
}
/**
 * The issuer's imported certificates, newest first. Reused while the change feed is heard (an
 * import anywhere drops it at once, src/caches.ts), which saves a query on every issue;
 * validity dates are still checked on every use. "None" is never cached, so it is asked on
 * every issue — unless the caller already read it from the database in the same request
 * (`known`: the folio reservation reads it, src/issuing/folios.ts).
 */
async function importedCertificates(ctx, issuerId, known) {
    const cached = ctx.caches.certificateList(issuerId);
    if (cached)
        return cached;
    if (known?.hasImported === false)
        return [];
    const snapshot = ctx.caches.snapshot();
    if (!known) {
        // The cheapest statement, prepared once per connection.
        const any = await ctx.db.pool.query(ctx.db.statement('has-imported-certificate', "SELECT 1 FROM certificates WHERE issuer_id = $1::uuid AND kind = 'imported' LIMIT 1", [issuerId]));
        if (any.rowCount === 0)
            return [];
    }
    const rows = await ctx.db.prisma.certificate.findMany({
        where: { issuerId, kind: 'imported' },
        orderBy: { notAfter: 'desc' },
    });
    ctx.caches.rememberCertificateList(issuerId, rows, snapshot);
    return rows;
}
/**
 * The certificate that signs the issuer's documents. Live: the newest imported certificate,
 * which must be valid now (else 422). Sandbox: the newest valid imported one, else the
 * issuer's generated test certificate.
 */
export async function signingCertificate(ctx, issuer, live, known) {
    const now = ctx.clock();
    const imported = await importedCertificates(ctx, issuer.id, known);
    const current = imported.find((c) => c.notBefore <= now && c.notAfter > now);
    if (current)
        return { row: current, cert: certificateMaterial(ctx, current) };
    if (live) {
        if (imported.length === 0) {
            throw new AppError('NO_CERTIFICATE', `The issuer ${issuer.rut} has no digital certificate; import one with \`cert import\` before issuing in live.`);
        }
        const newest = imported[0];
        if (newest.notBefore > now) {
            throw new AppError('CERTIFICATE_NOT_YET_VALID', `The issuer's certificate is valid only from ${newest.notBefore.toISOString()}.`);
        }
        throw new AppError('CERTIFICATE_EXPIRED', `The issuer's certificate expired on ${newest.notAfter.toISOString()}.`);
    }
    // Concurrent first requests of a new sandbox issuer share one generation.
    const pendings = ctx.caches.sandboxCertificates;
    let pending = pendings.get(issuer.id);
    if (!pending) {
        pending = sandboxCertificate(ctx, issuer);
        pendings.set(issuer.id, pending);
        pending.catch(() => pendings.delete(issuer.id));
    }
    const row = await pending;
    if (row.notAfter <= now)
        pendings.delete(issuer.id);
    return { row, cert: certificateMaterial(ctx, row) };
}
async function sandboxCertificate(ctx, issuer) {
    const { prisma, secrets } = ctx.db;
    const now = ctx.clock();
    const find = () => prisma.certificate.findFirst({
        where: { issuerId: issuer.id, kind: 'sandbox_generated', notAfter: { gt: now } },
        orderBy: { notAfter: 'desc' },
    });
    const existing = await find();
    if (existing)
        return existing;
    const { p12, password, cert: parsed, } = await generateTestCertificateAsync({
        holderRut: issuer.rut,
        name: `${issuer.name} (SANDBOX)`.slice(0, 64),
        notBefore: new Date(now.getTime() - 24 * 3600 * 1000),
        validDays: 3 * 365,
    });
    return prisma.$transaction(async (tx) => {
        // One generator per issuer even when many requests arrive at once.
        await tx.$queryRaw `SELECT id FROM issuers WHERE id = ${issuer.id}::uuid FOR UPDATE`;
        const again = await tx.certificate.findFirst({
            where: { issuerId: issuer.id, kind: 'sandbox_generated', notAfter: { gt: now } },
        });
        if (again)
            return again;
        return tx.certificate.create({
            data: {
                issuerId: issuer.id,
                kind: 'sandbox_generated',
                p12Encrypted: new Uint8Array(secrets.seal(p12)),
                passwordEncrypted: new Uint8Array(secrets.seal(password)),
                keyMaterialEncrypted: new Uint8Array(secrets.seal(sealableKeyMaterial(parsed))),
                holderRut: parsed.holderRut ?? issuer.rut,
                subjectName: parsed.subjectName,
                fingerprint: createHash('sha256').update(Buffer.from(parsed.certDerBase64, 'base64')).digest('hex'),
                notBefore: parsed.notBefore,
                notAfter: parsed.notAfter,
            },
        });
    });
}
/** IDK used in the DA of sandbox CAFs: not an SII key id (100 / 300), so they can never pass as real. */
export const SANDBOX_CAF_IDK = 9;
/** The installation-wide key that signs sandbox CAFs (generated once, stored encrypted). */
export async function sandboxCafSigner(ctx) {
    const cached = ctx.caches.sandboxCafSigner;
    if (cached)
        return cached;
    const { prisma, secrets } = ctx.db;
    let row = await prisma.setting.findUnique({ where: { key: 'sandbox_caf_signing_key' } });
    if (!row) {
        const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: 65537 });
        const pem = privateKey.export({ type: 'pkcs1', format: 'pem' });
        await prisma.setting.createMany({
            data: [{ key: 'sandbox_caf_signing_key', value: new Uint8Array(secrets.seal(pem)) }],
            skipDuplicates: true,
        });
        row = await prisma.setting.findUniqueOrThrow({ where: { key: 'sandbox_caf_signing_key' } });
    }
    const key = createPrivateKey(secrets.open(row.value).toString('utf8'));
    ctx.caches.sandboxCafSigner = key;
    return key;
}
