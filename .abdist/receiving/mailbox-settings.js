import { AppError } from '../errors.js';
import { connectImap, imapErrorText } from './imap.js';
export const MAILBOX_TLS = ['implicit', 'starttls', 'none'];
/** The standard port of each kind of connection. */
const defaultPort = (tls) => (tls === 'implicit' ? 993 : 143);
export async function mailboxView(ctx, m) {
    const messagesRead = await ctx.db.prisma.receivedMailboxMessage.count({ where: { mailboxId: m.id } });
    return {
        host: m.host,
        port: m.port,
        tls: m.tls,
        user: m.user,
        folder: m.folder,
        answer_by_email: m.answerByEmail,
        last_ok_at: m.lastOkAt?.toISOString() ?? null,
        last_error: m.lastError,
        last_error_at: m.lastErrorAt?.toISOString() ?? null,
        last_uid: Number(m.lastUid),
        messages_read: messagesRead,
        updated_at: m.updatedAt.toISOString(),
    };
}
export async function findMailbox(ctx, issuer) {
    return ctx.db.prisma.receivedMailbox.findUnique({ where: { issuerId: issuer.id } });
}
export async function getMailbox(ctx, issuer) {
    const m = await findMailbox(ctx, issuer);
    if (!m)
        throw new AppError('MAILBOX_NOT_FOUND');
    return m;
}
/**
 * Creates or replaces the settings. Pointing at another server, account or folder starts the
 * reading over (UIDs belong to one folder); the messages already received stay received.
 */
export async function setMailbox(ctx, issuer, input) {
    const existing = await findMailbox(ctx, issuer);
    if (!existing && !input.password)
        throw new AppError('MAILBOX_PASSWORD_REQUIRED');
    const tls = input.tls ?? existing?.tls ?? 'implicit';
    const folder = input.folder ?? existing?.folder ?? 'INBOX';
    const sealed = input.password !== undefined ? new Uint8Array(ctx.db.secrets.seal(input.password)) : null;
    const data = {
        host: input.host,
        port: input.port ?? defaultPort(tls),
        tls,
        user: input.user,
        folder,
        answerByEmail: input.answerByEmail ?? existing?.answerByEmail ?? true,
        ...(sealed && { passwordEncrypted: sealed }),
        // Read at once, with the new settings.
        nextRunAt: ctx.clock(),
        failures: 0,
    };
    if (!existing) {
        return ctx.db.prisma.receivedMailbox.create({
            data: { ...data, issuerId: issuer.id, passwordEncrypted: sealed },
        });
    }
    const elsewhere = existing.host !== data.host || existing.user !== data.user || existing.folder !== data.folder;
    return ctx.db.prisma.receivedMailbox.update({
        where: { id: existing.id },
        data: { ...data, ...(elsewhere && { uidValidity: null, lastUid: 0n }) },
    });
}
export async function removeMailbox(ctx, issuer) {
    const { count } = await ctx.db.prisma.receivedMailbox.deleteMany({ where: { issuerId: issuer.id } });
    if (count === 0)
        throw new AppError('MAILBOX_NOT_FOUND');
}
/** The stored password, opened. */
export function mailboxPassword(ctx, m) {
    return ctx.db.secrets.open(Buffer.from(m.passwordEncrypted)).toString('utf8');
}
/** "Probar conexión": connects, logs in and opens the folder, read-only; nothing is recorded. */
export async function testMailbox(ctx, issuer) {
    const m = await getMailbox(ctx, issuer);
    let client = null;
    try {
        client = await connectImap({ ...m, password: mailboxPassword(ctx, m) });
        const status = await client.status(m.folder, { messages: true });
        if (!status)
            return { ok: false, message: `Conectado, pero la carpeta «${m.folder}» no existe.`, messages: null };
        const count = status.messages ?? 0;
        return {
            ok: true,
            message: `Conexión correcta: la carpeta «${m.folder}» tiene ${count} ${count === 1 ? 'mensaje' : 'mensajes'}.`,
            messages: count,
        };
    }
    catch (err) {
        return { ok: false, message: `No se pudo conectar a ${m.host}:${m.port}: ${imapErrorText(err)}`, messages: null };
    }
    finally {
        await client?.logout().catch(() => client?.close());
    }
}
