/**
 * First-start demo: a demo account, a sandbox issuer and an owner key, so that
 * `npm install && npm start` ends with a working curl line. Runs once per database (guarded
 * by a settings row under an advisory lock, so several instances starting together create
 * one demo). The key is printed once and never stored in clear.
 */
import { randomBytes } from 'node:crypto';
import { createApiKey } from './api-keys.js';
import { createIssuer } from './issuers.js';
import { createSignInToken, createUser } from './users.js';
/** The demo owner's e-mail; its password is random and never shown (the banner's link signs in). */
const DEMO_EMAIL = 'demo@timbre.local';
const DEMO_ISSUER = {
    rut: '76086428-5',
    name: 'Comercial Demo Ñuñoa SpA',
    giro: 'Venta al por menor de artículos de ferretería y servicios de software',
    acteco: ['475201', '620200'],
    address: 'Av. Irarrázaval 1234',
    comuna: 'Ñuñoa',
    city: 'Santiago',
    ambiente: 0,
    vatRate: 19,
    resolutionDate: '2014-08-22',
    resolutionNumber: 80,
    /** The SII unit of Ñuñoa (printed "S.I.I. - SANTIAGO ORIENTE", MUE §1.1.7). */
    siiOffice: 'Santiago Oriente',
};
export async function ensureDemo(ctx) {
    const { prisma } = ctx.db;
    return prisma
        .$transaction(async (tx) => {
        await tx.$executeRaw `SELECT pg_advisory_xact_lock(727466101)`;
        const marker = await tx.setting.findUnique({ where: { key: 'demo_created' } });
        if (marker)
            return { created: false, rut: DEMO_ISSUER.rut };
        await tx.setting.create({
            data: { key: 'demo_created', value: new Uint8Array(Buffer.from(new Date().toISOString())) },
        });
        return { created: true, rut: DEMO_ISSUER.rut };
    }, { timeout: 30_000 })
        .then(async (r) => {
        if (!r.created)
            return r;
        const existing = await prisma.issuer.findUnique({ where: { rut: DEMO_ISSUER.rut } });
        if (!existing)
            await createIssuer(ctx, { ...DEMO_ISSUER, acteco: [...DEMO_ISSUER.acteco] });
        const issuer = existing ?? (await prisma.issuer.findUniqueOrThrow({ where: { rut: DEMO_ISSUER.rut } }));
        const { key } = await createApiKey(ctx, { rut: DEMO_ISSUER.rut, role: 'owner' });
        // The dashboard's owner (docs/design.md §10). Nobody knows the random password: the one-time link
        // signs in, and `user reset-password --email demo@timbre.local` sets a real one.
        const user = (await prisma.user.findUnique({ where: { email: DEMO_EMAIL } })) ??
            (await createUser(ctx, {
                accountId: issuer.accountId,
                email: DEMO_EMAIL,
                role: 'owner',
                password: randomBytes(24).toString('base64url'),
            }));
        return { ...r, key, signInToken: await createSignInToken(ctx, user.id) };
    });
}
