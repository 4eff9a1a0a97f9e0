import { emailEnabled } from '../issuing/email-queue.js';
/** A plain address (local@domain), as a mail header or CorreoEmisor gives it; anything else is not answered. */
const ADDRESS = /^[^\s@<>(),;:"]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$/;
export function answerAddress(candidates) {
    for (const c of candidates) {
        const a = c?.trim();
        if (a && ADDRESS.test(a))
            return a;
    }
    return null;
}
/** Whether this issuer answers by e-mail: its mailbox setting, on by default. */
export async function answersByEmail(tx, issuer) {
    const mailbox = await tx.receivedMailbox.findUnique({
        where: { issuerId: issuer.id },
        select: { answerByEmail: true },
    });
    return mailbox?.answerByEmail ?? true;
}
/** Queues the answer of `envelope` to `to`, in the caller's transaction. */
export async function queueAnswerEmail(ctx, tx, issuer, envelope, to, now) {
    await tx.emailMessage.create({
        data: {
            issuerId: issuer.id,
            receivedEnvelopeId: envelope.id,
            to: [to],
            state: emailEnabled(ctx) ? 'pending' : 'disabled',
            nextRunAt: now,
        },
    });
}
/** The message: a short Spanish text and the RespuestaDTE exactly as signed. */
async function composeAnswerEmail(ctx, m) {
    const envelope = await ctx.db.prisma.receivedEnvelope.findUniqueOrThrow({
        where: { id: m.receivedEnvelopeId },
        include: { issuer: true },
    });
    if (!envelope.respuestaXml)
        throw new Error('the envelope has no answer to send');
    const { issuer } = envelope;
    const accepted = envelope.estadoRecepEnv === 0;
    const subject = `Respuesta de recepción de ${issuer.name} (${issuer.rut}): ${envelope.fileName}`;
    const text = `${issuer.name} (RUT ${issuer.rut}) ha recibido su envío ${envelope.fileName}.\n\n` +
        `Resultado: ${envelope.estadoRecepEnv} ${envelope.glosa}` +
        (accepted || !envelope.reason ? '' : ` (${envelope.reason})`) +
        '.\n\nSe adjunta la respuesta firmada (RespuestaDTE, RecepcionEnvio).\n';
    return {
        from: ctx.config.MAIL_FROM,
        to: m.to,
        subject,
        text,
        attachments: [
            {
                filename: `RespuestaDTE_${issuer.rut}_${envelope.number}.xml`,
                content: Buffer.from(envelope.respuestaXml),
                contentType: 'application/xml; charset=ISO-8859-1',
            },
        ],
    };
}
/** The outbox's reader for an answer row (src/jobs.ts hands it to the one mail sender). */
export const answerEmail = async (ctx, m) => {
    if (!m.receivedEnvelopeId)
        return null;
    return {
        about: { to: m.to, received_envelope: m.receivedEnvelopeId },
        compose: () => composeAnswerEmail(ctx, m),
    };
};
