import { addDays, calendarDate, toDbDate } from '../dte/calendar-date.js';
import { instantOfSantiagoTimestamp } from '../dte/chile-time.js';
import { AppError } from '../errors.js';
import { ReceivedState } from '../generated/prisma/enums.js';
/** The states a received document can be in, for filters. */
export const RECEIVED_STATES = Object.values(ReceivedState);
import { searchable } from '../events/document-view.js';
import { decisionsOf } from './decisions.js';
import { printedReceivedDte } from './printed-dte.js';
import { receptionView } from './receive.js';
import { receivedDocumentDetail, receivedDocumentView, } from './views.js';
export async function listReceived(ctx, issuer, f) {
    const where = {
        issuerId: issuer.id,
        ...(f.emisor !== undefined && { emisorRut: f.emisor }),
        ...(f.type !== undefined && { type: f.type }),
        ...(f.estado !== undefined && { state: f.estado }),
        ...((f.from || f.to) && {
            date: {
                ...(f.from && { gte: toDbDate(calendarDate(f.from)) }),
                ...(f.to && { lte: toDbDate(calendarDate(f.to)) }),
            },
        }),
    };
    if (f.dueBefore !== undefined) {
        const endOfDay = instantOfSantiagoTimestamp(`${addDays(calendarDate(f.dueBefore), 1)}T00:00:00`);
        where.deadline = { gt: ctx.clock(), ...(endOfDay && { lt: endOfDay }) };
    }
    const text = f.q?.trim();
    const needle = text ? searchable(text) : '';
    if (text && needle) {
        where.OR = [{ searchText: { contains: needle } }, ...(/^\d{1,10}$/.test(text) ? [{ folio: BigInt(text) }] : [])];
    }
    const [rows, total] = await Promise.all([
        ctx.db.prisma.receivedDocument.findMany({
            where,
            orderBy: f.dueBefore !== undefined
                ? [{ deadline: 'asc' }, { id: 'asc' }]
                : [{ date: 'desc' }, { createdAt: 'desc' }, { id: 'desc' }],
            skip: (f.page - 1) * f.limit,
            take: f.limit,
            // Never the XML or the model: a page shows only the entry.
            omit: { xml: true, model: true, checks: true },
            include: { envelope: { select: { number: true } } },
        }),
        ctx.db.prisma.receivedDocument.count({ where }),
    ]);
    const data = rows.map((r) => receivedDocumentView(ctx, issuer, { ...r, xml: new Uint8Array(), model: null, checks: [] }, r.envelope));
    return { data, total, page: f.page, limit: f.limit };
}
async function findReceived(ctx, issuer, key) {
    const row = await ctx.db.prisma.receivedDocument.findUnique({
        where: {
            issuerId_emisorRut_type_folio: {
                issuerId: issuer.id,
                emisorRut: key.emisor,
                type: key.type,
                folio: BigInt(key.folio),
            },
        },
        include: { envelope: { select: { number: true, respuestaXml: true } } },
    });
    if (!row) {
        throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND', `No document of type ${key.type} and folio ${key.folio} from ${key.emisor} was received by ${issuer.rut}.`);
    }
    return row;
}
export async function receivedDetail(ctx, issuer, key) {
    const row = await findReceived(ctx, issuer, key);
    return { ...receivedDocumentDetail(ctx, issuer, row, row.envelope), decisions: await decisionsOf(ctx, issuer, row) };
}
/** The DTE as received (cut out of its envelope, with the envelope's XML declaration). */
export async function receivedXml(ctx, issuer, key) {
    const row = await findReceived(ctx, issuer, key);
    return { filename: `DTE_${key.emisor}_T${key.type}_F${key.folio}.xml`, body: Buffer.from(row.xml) };
}
/**
 * The received document's PDF, rendered by Timbre from the XML as received (src/receiving/printed-dte.ts)
 * in the issued documents' layout, with the supplier's TED as its PDF417; under the stamp, the
 * supplier's resolution from its envelope's Carátula. Rendered on each download, in the PDF
 * worker pool (received documents are opened a few times, not served publicly like issued ones).
 */
export async function receivedPdf(ctx, issuer, key, format) {
    const row = await findReceived(ctx, issuer, key);
    const envelope = await ctx.db.prisma.receivedEnvelope.findUniqueOrThrow({
        where: { id: row.envelopeId },
        select: { xml: true },
    });
    const printed = printedReceivedDte(Buffer.from(row.xml), caratulaResolution(Buffer.from(envelope.xml)));
    if (!printed) {
        throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND', `The received document ${key.type}/${key.folio} is not printable.`);
    }
    const body = await ctx.pdf.render({ doc: printed.doc, ted: printed.ted, format, sandbox: printed.certification, received: true }, `received:${row.id}:${format}`);
    const suffix = format === '80mm' ? '_80mm' : '';
    return { filename: `DTE_${key.emisor}_T${key.type}_F${key.folio}${suffix}.pdf`, body };
}
/** FchResol and NroResol of an EnvioDTE's Carátula (its first kilobytes); null for a lone DTE. */
function caratulaResolution(envelope) {
    const head = envelope.subarray(0, 16_384).toString('latin1');
    const date = /<FchResol>\s*(\d{4}-\d{2}-\d{2})\s*<\/FchResol>/.exec(head)?.[1];
    const number = /<NroResol>\s*(\d{1,6})\s*<\/NroResol>/.exec(head)?.[1];
    return date && number ? { date, number: Number(number) } : null;
}
async function findEnvelope(ctx, issuer, number) {
    const row = await ctx.db.prisma.receivedEnvelope.findFirst({
        where: { issuerId: issuer.id, number: BigInt(number) },
    });
    if (!row)
        throw new AppError('RECEIVED_ENVELOPE_NOT_FOUND', `No received envelope ${number} for ${issuer.rut}.`);
    return row;
}
/** A received file's verdict, as `POST /recibidos` answered it (the dashboard's page of an upload). */
export async function envelopeReception(ctx, issuer, number) {
    const row = await ctx.db.prisma.receivedEnvelope.findFirst({
        where: { issuerId: issuer.id, number: BigInt(number) },
        omit: { xml: true },
        include: { receivedDocuments: { omit: { xml: true }, orderBy: { createdAt: 'asc' } } },
    });
    if (!row)
        throw new AppError('RECEIVED_ENVELOPE_NOT_FOUND', `No received envelope ${number} for ${issuer.rut}.`);
    const { receivedDocuments, ...envelope } = row;
    return receptionView(ctx, issuer, { ...envelope, xml: new Uint8Array() }, receivedDocuments.map((d) => ({ ...d, xml: new Uint8Array() })));
}
/** A received file exactly as it came, or the RespuestaDTE that answered it. */
export async function envelopeFile(ctx, issuer, number, kind) {
    const row = await findEnvelope(ctx, issuer, number);
    if (kind === 'xml')
        return { filename: row.fileName, body: Buffer.from(row.xml) };
    if (!row.respuestaXml) {
        throw new AppError('RECEIVED_ENVELOPE_NOT_FOUND', `The received envelope ${number} has no answer: ${row.respuestaError ?? 'none was made'}`);
    }
    return { filename: `RespuestaDTE_${issuer.rut}_${number}.xml`, body: Buffer.from(row.respuestaXml) };
}
