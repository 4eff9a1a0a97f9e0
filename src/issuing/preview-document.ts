/**
 * Preview (docs/design.md §8): validates and computes a request exactly as issuing would — the same
 * `computeDocument` and `checkReferences` stages of src/issuing/issue-document.ts — and stops
 * there: no folio is reserved, nothing is stored, nothing is signed. The PDF form is the
 * printed document marked "BORRADOR — SIN FOLIO" without a stamp.
 */
import type { AppContext } from '../context.ts';
import { todayInSantiago } from '../dte/chile-time.ts';
import type { IssueRequest } from '../dte/issue-request.ts';
import type { DteDocument } from '../dte/model.ts';
import { renderPdf } from '../dte/pdf/index.ts';
import { computeDocument } from '../dte/totals.ts';
import type { Environment, Issuer } from '../generated/prisma/client.ts';
import { type ErrorDetail, type RuleArgs, type RuleId, ruleDetail } from '../rules.ts';
import { environmentOf } from '../admin/environment.ts';
import { issuerInfo } from './issue-document.ts';
import { checkReferences } from './references.ts';

export interface Preview {
  env: Environment;
  doc: DteDocument;
  /** What would stop or change the real issue although the request itself is valid. */
  warnings: PreviewWarning[];
}

/** A preview warning: a rule id of src/rules.ts with its English text (and its params). */
type PreviewWarning = Omit<ErrorDetail, 'path'>;

function warning<R extends RuleId>(id: R, ...args: RuleArgs<R>): PreviewWarning {
  const { path: _, ...rest } = ruleDetail('', id, ...args);
  return rest;
}

export async function previewDocument(ctx: AppContext, issuer: Issuer, req: IssueRequest): Promise<Preview> {
  const env = environmentOf(issuer);
  const date = req.date ?? todayInSantiago(ctx.clock);
  const doc = computeDocument(req, { issuer: issuerInfo(issuer), folio: 0, date });
  await checkReferences(ctx, issuer, env, doc);
  const warnings: PreviewWarning[] = [];
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
    if (!free) warnings.push(warning('live.no_folios', { type: doc.type }));
  }
  return { env, doc, warnings };
}

export function previewView(p: Preview) {
  return {
    ok: true as const,
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

export async function previewPdf(p: Preview, format: 'letter' | '80mm' = 'letter'): Promise<Buffer> {
  return renderPdf(p.doc, '', { format, sandbox: p.env === 'sandbox', draft: true });
}
