/**
 * Downloads of a document's PDF and signed XML (docs/api.md §4.5, docs/design.md §5). Access is by API
 * key (any role, checked by the auth hook) or by the document's public token `tk`, which opens
 * only that document. The XML is served as the exact signed bytes (ISO-8859-1, unpacked and
 * checked against their SHA-256 by document-content.ts); the PDF is rendered from the stored
 * document model and TED once, then stored (`storedPdf`); both are
 * kept in memory once served (`downloadDocumentFile`, src/file-cache.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { normalizeRut } from '../dte/rut.js';
import { AppError } from '../errors.js';
import { environmentOf } from '../admin/environment.js';
import { FileCache } from '../file-cache.js';
import { documentContent, signedXmlOf } from './document-content.js';
function sameToken(a, b) {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
}
const LIGHT = { request: true, model: true, signedXml: true, ted: true };
async function findDocument(ctx, issuer, type, folio) {
    const candidates = await ctx.db.prisma.document.findMany({
        where: { issuerId: issuer.id, type, folio },
        omit: LIGHT,
    });
    // A folio is unique per environment; prefer the issuer's current one.
    return candidates.find((d) => d.environment === environmentOf(issuer)) ?? candidates[0] ?? null;
}
async function locateDocument(ctx, input) {
    if (input.auth) {
        const issuer = input.auth.issuer;
        const document = await findDocument(ctx, issuer, input.type, input.folio);
        if (!document) {
            throw new AppError('DOCUMENT_NOT_FOUND', `No document of type ${input.type} with folio ${input.folio} for ${issuer.rut}.`);
        }
        return { issuer, document };
    }
    if (!input.tk)
        throw new AppError('UNAUTHENTICATED', 'Send an API key (Authorization: Bearer …) or the document token (?tk=…).');
    // Without a key, a wrong issuer, a wrong document and a wrong token get the same answer, so
    // nobody learns who uses Timbre or how many documents an issuer has (docs/design.md §7).
    const rut = normalizeRut(input.rut);
    const issuer = rut ? await ctx.db.prisma.issuer.findUnique({ where: { rut } }) : null;
    const document = issuer?.active ? await findDocument(ctx, issuer, input.type, input.folio) : null;
    if (!issuer || !document || !sameToken(document.publicToken, input.tk)) {
        throw new AppError('DOCUMENT_NOT_FOUND', TOKEN_NOT_FOUND);
    }
    return { issuer, document };
}
/** The one answer to a failed token download, whatever was wrong. */
const TOKEN_NOT_FOUND = 'No document matches this link: check the issuer, type, folio and token.';
/**
 * A download (README, "Downloads"): the file from memory when this instance served it lately
 * (src/file-cache.ts: no query, a token compare), else located, read (or rendered)
 * and kept for the next one. Access is checked the same way on both paths: an API key was
 * checked against the path's issuer by the auth hook (another issuer's key never gets here),
 * a token must be the document's own, and a wrong one gets the same 404 whether the entry
 * was in memory or not. "Not found" is never kept.
 */
export async function downloadDocumentFile(ctx, input, limitPdf) {
    if (!input.auth && !input.tk) {
        throw new AppError('UNAUTHENTICATED', 'Send an API key (Authorization: Bearer …) or the document token (?tk=…).');
    }
    const rut = input.auth ? input.auth.issuer.rut : normalizeRut(input.rut);
    const key = rut
        ? FileCache.key(rut, input.type, input.folio, input.kind === 'pdf' ? `pdf:${input.format}` : 'xml')
        : null;
    const kept = key ? ctx.caches.file(key) : undefined;
    if (kept) {
        if (!input.auth && !sameToken(kept.publicToken, input.tk ?? '')) {
            throw new AppError('DOCUMENT_NOT_FOUND', TOKEN_NOT_FOUND);
        }
        return kept;
    }
    // Taken before the first read: a file read across an issuer change is served but not kept.
    const snapshot = ctx.caches.snapshot();
    const { issuer, document } = await locateDocument(ctx, input);
    const serve = () => documentFile(ctx, document, issuer, input.kind, input.format);
    const file = input.kind === 'pdf' ? await limitPdf(serve) : await serve();
    // Kept only if the issuer, as read after the snapshot, is active: a key's issuer was read by
    // the auth hook before it (a change in between would go unnoticed), so it is read again —
    // one query, on a miss only. And only a document of the issuer's current environment: the
    // other environment's copy of a folio is what a download finds only until the current
    // environment issues that folio.
    if (key) {
        const current = input.auth ? await ctx.db.prisma.issuer.findUnique({ where: { id: issuer.id } }) : issuer;
        if (current?.active && document.environment === environmentOf(current)) {
            ctx.caches.rememberFile(key, { ...file, issuerId: issuer.id, publicToken: document.publicToken }, snapshot);
        }
    }
    return file;
}
export async function documentFile(ctx, document, issuer, kind, format) {
    const base = `DTE_${issuer.rut}_T${document.type}_F${document.folio}`;
    if (kind === 'xml') {
        return {
            filename: `${base}.xml`,
            contentType: 'application/xml; charset=ISO-8859-1',
            body: await signedXmlOf(ctx, await ctx.db.prisma.document.findUniqueOrThrow({
                where: { id: document.id },
                select: { issuerId: true, signedXml: true },
            })),
        };
    }
    const body = await storedPdf(ctx, document, format);
    return { filename: `${base}${format === '80mm' ? '_80mm' : ''}.pdf`, contentType: 'application/pdf', body };
}
/**
 * The document's PDF in `format`: rendered once, in a worker thread (src/dte/pdf/renderer.ts),
 * on its first download, then stored (document_files) and served from there. Concurrent first
 * downloads in one process share one render; across instances the first stored copy wins.
 * A document's printed form depends only on what was stored at issue (model, TED,
 * environment), so a stored PDF never goes stale.
 */
async function storedPdf(ctx, document, format) {
    const where = { documentId_format: { documentId: document.id, format } };
    const stored = await ctx.db.prisma.documentFile.findUnique({ where, select: { body: true } });
    if (stored)
        return Buffer.from(stored.body);
    const { model, ted } = await documentContent(ctx, await ctx.db.prisma.document.findUniqueOrThrow({
        where: { id: document.id },
        select: { issuerId: true, signedXml: true, ted: true, model: true, request: true },
    }));
    const body = await ctx.pdf.render({
        doc: model,
        ted,
        format,
        sandbox: document.environment === 'sandbox',
    }, `${document.id}:${format}`);
    await ctx.db.prisma.documentFile.createMany({
        data: [{ issuerId: document.issuerId, documentId: document.id, format, body: new Uint8Array(body) }],
        skipDuplicates: true,
    });
    return body;
}
