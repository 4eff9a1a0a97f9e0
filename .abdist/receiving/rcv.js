import { fromDbDate, isRealDate } from '../dte/calendar-date.js';
import { instantOfSantiagoTimestamp } from '../dte/chile-time.js';
import { normalizeRut } from '../dte/rut.js';
import { AppError } from '../errors.js';
import { deadlineOf, plazoOf } from './reception-clock.js';
/** The most rows one file may carry (a month of a large company's purchases fits). */
const MAX_ROWS = 50_000;
/** The columns Timbre reads, as the SII names them in the header. */
const COLUMNS = {
    type: 'Tipo Doc',
    rut: 'RUT Proveedor',
    name: 'Razon Social',
    folio: 'Folio',
    fechaDocto: 'Fecha Docto',
    fechaRecepcion: 'Fecha Recepcion',
    total: 'Monto Total',
};
const MISSING_ESTADO = 'en el SII, no recibido por correo';
/** UTF-8 when the bytes are valid UTF-8, Latin-1 otherwise (the SII's downloads have been both); no BOM. */
function decode(bytes) {
    let text;
    try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    }
    catch {
        text = bytes.toString('latin1');
    }
    return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
/** `;`-separated records; a quoted field may hold `;`, newlines and `""`. Blank lines are dropped. */
function records(text) {
    const out = [];
    let row = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (quoted) {
            if (c === '"' && text[i + 1] === '"') {
                field += '"';
                i++;
            }
            else if (c === '"')
                quoted = false;
            else
                field += c;
        }
        else if (c === '"' && field === '')
            quoted = true;
        else if (c === ';') {
            row.push(field);
            field = '';
        }
        else if (c === '\n' || c === '\r') {
            if (c === '\r' && text[i + 1] === '\n')
                i++;
            row.push(field);
            if (row.some((f) => f.trim() !== ''))
                out.push(row);
            row = [];
            field = '';
        }
        else
            field += c;
    }
    row.push(field);
    if (row.some((f) => f.trim() !== ''))
        out.push(row);
    return out;
}
/** Header names compared without case, accents, dots or extra spaces. */
const headerKey = (s) => s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
function columnIndexes(header) {
    const keys = header.map(headerKey);
    const indexes = {};
    for (const [column, name] of Object.entries(COLUMNS)) {
        const i = keys.indexOf(headerKey(name));
        if (i < 0) {
            throw new AppError('VALIDATION_FAILED', `Not an RCV compras CSV: missing column "${name}".`);
        }
        indexes[column] = i;
    }
    return indexes;
}
function rowError(line, column, message) {
    return new AppError('VALIDATION_FAILED', `RCV row ${line}, column "${column}": ${message}.`);
}
/** DD/MM/YYYY (also D/M/YYYY, or YYYY-MM-DD) to a calendar date. */
function calendarOf(s) {
    const dmy = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(s);
    const iso = dmy ? `${dmy[3]}-${dmy[2].padStart(2, '0')}-${dmy[1].padStart(2, '0')}` : s;
    return isRealDate(iso) ? iso : null;
}
/** "DD/MM/YYYY HH:MM:SS" (seconds optional; a bare date is its midnight), Santiago time. */
function receptionOf(s) {
    const m = /^(\S+)(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
    if (!m)
        return null;
    const day = calendarOf(m[1]);
    if (!day)
        return null;
    const time = `${(m[2] ?? '0').padStart(2, '0')}:${m[3] ?? '00'}:${m[4] ?? '00'}`;
    return instantOfSantiagoTimestamp(`${day}T${time}`);
}
function rowOf(fields, at, line) {
    const get = (c) => (fields[at[c]] ?? '').trim();
    const rut = normalizeRut(get('rut'));
    if (!rut)
        throw rowError(line, COLUMNS.rut, 'not a RUT with its check digit');
    const type = get('type');
    if (!/^\d{1,3}$/.test(type))
        throw rowError(line, COLUMNS.type, 'not a document type');
    const folio = get('folio');
    if (!/^\d{1,10}$/.test(folio) || BigInt(folio) === 0n)
        throw rowError(line, COLUMNS.folio, 'not a folio');
    const fechaDocto = calendarOf(get('fechaDocto'));
    if (!fechaDocto)
        throw rowError(line, COLUMNS.fechaDocto, 'not a date DD/MM/YYYY');
    const fechaRecepcion = receptionOf(get('fechaRecepcion'));
    if (!fechaRecepcion)
        throw rowError(line, COLUMNS.fechaRecepcion, 'not a date-time DD/MM/YYYY HH:MM:SS');
    const total = get('total') || '0';
    if (!/^-?\d{1,18}$/.test(total))
        throw rowError(line, COLUMNS.total, 'not a whole amount');
    return {
        issuerRut: rut,
        razonSocial: get('name').slice(0, 200),
        type: Number(type),
        folio: BigInt(folio),
        fechaDocto,
        fechaRecepcion,
        montoTotal: BigInt(total),
    };
}
/** The rows of an RCV compras CSV; a file that is not one is refused naming what is wrong. */
export function parseRcvCsv(bytes) {
    const [header, ...rows] = records(decode(bytes));
    if (!header)
        throw new AppError('VALIDATION_FAILED', 'Not an RCV compras CSV: the file is empty.');
    const at = columnIndexes(header);
    if (rows.length > MAX_ROWS) {
        throw new AppError('VALIDATION_FAILED', `The RCV file has more than ${MAX_ROWS} rows; split it by month.`);
    }
    // One row per document: a later row of the same document wins.
    const byKey = new Map();
    rows.forEach((fields, i) => {
        const row = rowOf(fields, at, i + 2);
        byKey.set(`${row.issuerRut}|${row.type}|${row.folio}`, row);
    });
    return [...byKey.values()];
}
function faltanteOf(e, now) {
    const plazo = plazoOf({ type: e.type, siiReceivedAt: e.fechaRecepcion, deadline: deadlineOf(e.fechaRecepcion), receptionError: null }, now);
    const mensaje = !plazo
        ? 'El SII registra este documento, pero no llegó al buzón: pídalo al proveedor.'
        : plazo.expired
            ? 'El SII registra este documento, pero no llegó al buzón; el plazo de 8 días para reclamar ya venció.'
            : `El SII registra este documento, pero no llegó al buzón: pídalo al proveedor; quedan ${plazo.days_left} días para reclamar.`;
    return {
        emisor_rut: e.issuerRut,
        razon_social: e.razonSocial,
        tipo_dte: e.type,
        folio: Number(e.folio),
        fecha_docto: fromDbDate(e.fechaDocto),
        fecha_recepcion: e.fechaRecepcion.toISOString(),
        monto_total: Number(e.montoTotal),
        estado: MISSING_ESTADO,
        mensaje,
        vence_at: plazo?.deadline ?? null,
        dias_restantes: plazo?.days_left ?? null,
        vencido: plazo?.expired ?? false,
        imported_at: e.importedAt.toISOString(),
    };
}
/**
 * The RCV entries of the issuer with no received document of the same supplier, type and folio,
 * soonest deadline (earliest SII reception) first, paged.
 */
export async function listFaltantes(ctx, issuer, page) {
    const offset = (page.page - 1) * page.limit;
    const missing = `FROM rcv_entries e WHERE e.issuer_id = $1::uuid AND NOT EXISTS (
      SELECT 1 FROM received_documents r
      WHERE r.issuer_id = e.issuer_id AND r.emisor_rut = e.issuer_rut AND r.type = e.type AND r.folio = e.folio)`;
    const [rows, counted] = await Promise.all([
        ctx.db.prisma.$queryRawUnsafe(`SELECT e.issuer_rut, e.razon_social, e.type, e.folio, e.fecha_docto, e.fecha_recepcion, e.monto_total, e.imported_at
       ${missing} ORDER BY e.fecha_recepcion ASC, e.issuer_rut, e.type, e.folio LIMIT $2 OFFSET $3`, issuer.id, page.limit, offset),
        ctx.db.prisma.$queryRawUnsafe(`SELECT count(*) AS n ${missing}`, issuer.id),
    ]);
    const now = ctx.clock();
    return {
        data: rows.map((r) => faltanteOf({
            issuerRut: r.issuer_rut,
            razonSocial: r.razon_social,
            type: r.type,
            folio: r.folio,
            fechaDocto: r.fecha_docto,
            fechaRecepcion: r.fecha_recepcion,
            montoTotal: r.monto_total,
            importedAt: r.imported_at,
        }, now)),
        total: Number(counted[0]?.n ?? 0),
        page: page.page,
        limit: page.limit,
    };
}
/** Rows per INSERT: seven array parameters each, whatever the chunk's size. */
const CHUNK = 2_000;
/**
 * Stores the rows (a re-import of the same document updates it), in chunks of one INSERT … ON
 * CONFLICT each; `xmax = 0` tells an inserted row from an updated one.
 */
export async function importRcv(ctx, issuer, rows) {
    const importedAt = ctx.clock();
    let nuevos = 0;
    for (let i = 0; i < rows.length; i += CHUNK) {
        const chunk = rows.slice(i, i + CHUNK);
        const result = await ctx.db.prisma.$queryRaw `
      INSERT INTO rcv_entries (id, issuer_id, issuer_rut, razon_social, type, folio, fecha_docto, fecha_recepcion, monto_total, imported_at)
      SELECT gen_random_uuid(), ${issuer.id}::uuid, r.rut, r.name, r.type::int, r.folio::bigint, r.docto::date,
             r.recepcion::timestamptz, r.total::bigint, ${importedAt}
      FROM unnest(${chunk.map((r) => r.issuerRut)}::text[], ${chunk.map((r) => r.razonSocial)}::text[],
                  ${chunk.map((r) => String(r.type))}::text[], ${chunk.map((r) => String(r.folio))}::text[],
                  ${chunk.map((r) => r.fechaDocto)}::text[], ${chunk.map((r) => r.fechaRecepcion.toISOString())}::text[],
                  ${chunk.map((r) => String(r.montoTotal))}::text[])
           AS r(rut, name, type, folio, docto, recepcion, total)
      ON CONFLICT (issuer_id, issuer_rut, type, folio) DO UPDATE SET
        razon_social = EXCLUDED.razon_social, fecha_docto = EXCLUDED.fecha_docto,
        fecha_recepcion = EXCLUDED.fecha_recepcion, monto_total = EXCLUDED.monto_total,
        imported_at = EXCLUDED.imported_at
      RETURNING (xmax = 0) AS inserted`;
        nuevos += result.filter((r) => r.inserted).length;
    }
    return { imported: rows.length, nuevos };
}
