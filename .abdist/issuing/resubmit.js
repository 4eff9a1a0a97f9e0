import { isUniqueViolation } from '../db/database.js';
import { AppError } from '../errors.js';
import { isAccepted } from './document-state.js';
import { findIssuedDocument } from './document-status.js';
import { environmentOf } from '../admin/environment.js';
import { createSubmission, submitNow } from './submissions.js';
export async function resubmitDocument(ctx, issuer, input) {
    if (environmentOf(issuer) === 'sandbox') {
        throw new AppError('SANDBOX_NOT_SUBMITTABLE', `The issuer ${issuer.rut} is in sandbox (sii_ambiente 0): its documents are never sent to the SII.`);
    }
    const document = await findIssuedDocument(ctx, issuer, input.type, input.folio, 'live');
    const latest = await ctx.db.prisma.submission.findFirst({
        where: { documentId: document.id },
        orderBy: { createdAt: 'desc' },
    });
    if (isAccepted(document.estadoSii) || document.estadoSii === 'anulado') {
        return {
            document,
            env: 'live',
            warning: `The SII already accepted this document (${document.estadoSii}); nothing was sent.`,
        };
    }
    let submissionId;
    if (!latest || (latest.state === 'done' && document.estadoSii === 'rechazado')) {
        try {
            const created = await createSubmission(ctx, { issuer, document });
            submissionId = created.id;
        }
        catch (err) {
            // A concurrent resubmit created it first: the schema allows one open submission per
            // document (submissions_one_open_per_document), and this request follows that one.
            if (!isUniqueViolation(err))
                throw err;
            const open = await ctx.db.prisma.submission.findFirstOrThrow({
                where: { documentId: document.id, state: { not: 'done' } },
            });
            submissionId = open.id;
        }
    }
    else {
        submissionId = latest.id;
    }
    const step = await submitNow(ctx, submissionId);
    if (!step) {
        // Another worker holds it right now: report the current state.
        const current = await ctx.db.prisma.document.findUniqueOrThrow({ where: { id: document.id } });
        return { document: current, env: 'live', warning: 'The document is being sent to the SII right now.' };
    }
    const warning = step.document.estadoSii === 'pendiente'
        ? `The document could not be sent to the SII: ${step.failure ?? 'it is queued'}. Timbre retries automatically.`
        : undefined;
    return { document: step.document, env: 'live', ...(warning && { warning }) };
}
