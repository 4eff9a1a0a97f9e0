export async function setupProgress(ctx, issuer) {
    const db = ctx.db.prisma;
    const issuerId = issuer.id;
    const [certificate, folios, document, key, webhook] = await Promise.all([
        db.certificate.findFirst({ where: { issuerId, kind: 'imported' }, select: { id: true } }),
        db.caf.findFirst({ where: { issuerId, environment: 'live' }, select: { id: true } }),
        db.document.findFirst({ where: { issuerId }, select: { id: true } }),
        db.apiKey.findFirst({ where: { issuerId, revokedAt: null }, select: { id: true } }),
        db.webhookEndpoint.findFirst({ where: { issuerId }, select: { id: true } }),
    ]);
    return {
        certificate: certificate !== null,
        folios: folios !== null,
        document: document !== null,
        key: key !== null,
        webhook: webhook !== null,
    };
}
