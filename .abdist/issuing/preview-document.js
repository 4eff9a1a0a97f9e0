import { todayInSantiago } from '../dte/chile-time.js';
import { renderPdf } from '../dte/pdf/index.js';
import { computeDocument } from '../dte/totals.js';
import { ruleDetail } from '../rules.js';
import { environmentOf } from '../admin/environment.js';
import { issuerInfo } from './issue-document.js';
import { checkReferences } from './references.js';
function warning(id, ...args) {
    const { path: _, ...rest } = ruleDetail('', id, ...args);
    return rest;
}
export async function previewDocument(ctx, issuer, req) {
    const env = environmentOf(issuer);
    const date = req.date ?? todayInSantiago(ctx.clock);
    const doc = computeDocument(req, { issuer: issuerInfo(issuer), folio: 0, date });
    await checkReferences(ctx, issuer, env, doc);
    const warnings = [];
    if (env === 'live') {
        if (!issuer.resolutionDate || issuer.resolutionNumber === null) {
            warnings.push(warning('live.no_resolution'));
        }
        const free = await ctx.db.prisma.caf.findFirst({
            where: {
                issuerId: issuer.id,
                environment: 'live',
                type: doc.type,
                nextFolio: { lte: ctx.db.prisma.caf.fields.rangeTo },
            },
            select: { id: true },
        });
        if (!free)
            warnings.push(warning('live.no_folios', { type: doc.type }));
    }
    return { env, doc, warnings };
}
export function previewView(p) {
    return {
        ok: true,
        env: p.env,
        type: p.doc.type,
        date: p.doc.date,
        totals: {
            net: p.doc.totals.net,
            exempt: p.doc.totals.exempt,
            vat: p.doc.totals.vat,
            vat_rate: p.doc.totals.vatRate,
            total: p.doc.totals.total,
        },
        lines: p.doc.lines.map((l) => ({
            name: l.name,
            qty: Number(l.qty),
            price: l.price === undefined ? null : Number(l.price),
            discount: l.discountAmount ?? 0,
            amount: l.amount,
            exempt: l.exempt,
        })),
        warnings: p.warnings.map((w) => w.message),
    };
}
export async function previewPdf(p, format = 'letter') {
    return renderPdf(p.doc, '', { format, sandbox: p.env === 'sandbox', draft: true });
}
