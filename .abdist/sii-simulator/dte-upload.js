import { santiagoTimestamp } from '../dte/chile-time.js';
import { create } from 'xmlbuilder2';
import { screenEnvelope } from './envelope-checks.js';
import { cookie, hasContentLength, hasProgUserAgent, htmlReply, parseRut, reply } from './http-util.js';
import { fieldOf, parseMultipart } from './multipart.js';
import { DUPLICATE_WINDOW_MS } from './processing.js';
/** The largest file the simulator takes (STATUS 2 above it). */
const MAX_UPLOAD_FILE_BYTES = 20 * 1024 * 1024;
/** RECEPCIONDTE as in test/fixtures/sii/responses/dteupload_recepciondte_status0.xml / status7.xml. */
function recepcionDte(ctx, r) {
    const timestamp = santiagoTimestamp(ctx.clock()).replace('T', ' ');
    // One element per line, no indentation, as the SII writes it.
    const doc = create().ele('RECEPCIONDTE');
    doc.ele('RUTSENDER').txt(r.rutSender);
    doc.ele('RUTCOMPANY').txt(r.rutCompany);
    doc.ele('FILE').txt(r.file);
    doc.ele('TIMESTAMP').txt(timestamp);
    doc.ele('STATUS').txt(String(r.status));
    if (r.trackId)
        doc.ele('TRACKID').txt(r.trackId);
    if (r.errors?.length) {
        const detail = doc.ele('DETAIL');
        for (const e of r.errors)
            detail.ele('ERROR').txt(e);
    }
    const xml = `<?xml version="1.0"?>\n${doc.end({ headless: true, prettyPrint: true, indent: '', newline: '\n' })}\n`;
    return reply(200, xml, 'text/xml; charset=utf-8');
}
export function handleDteUpload(ctx, req, body) {
    if (req.method !== 'POST')
        return htmlReply(405, 'Method Not Allowed', 'DTEUpload only takes POST');
    if (!hasProgUserAgent(req)) {
        return htmlReply(401, 'NO ESTA AUTENTICADO', 'Usuario no autenticado', {
            'X-Sim-Reason': 'User-Agent without PROG 1.0',
        });
    }
    const parts = parseMultipart(body, req.headers['content-type']) ?? [];
    const archivo = parts.find((p) => p.name === 'archivo');
    const sender = `${fieldOf(parts, 'rutSender')}-${fieldOf(parts, 'dvSender')}`;
    const company = `${fieldOf(parts, 'rutCompany')}-${fieldOf(parts, 'dvCompany')}`;
    const base = { rutSender: sender, rutCompany: company, file: archivo?.filename ?? '' };
    const token = ctx.auth.check('dte', cookie(req, 'TOKEN'));
    if (!token.ok)
        return recepcionDte(ctx, { ...base, status: 5, errors: [`Token: ${token.glosa}`] });
    if (!hasContentLength(req)) {
        return recepcionDte(ctx, { ...base, status: 3, errors: ['Archivo cortado: falta Content-Length'] });
    }
    const senderRut = parseRut(fieldOf(parts, 'rutSender'), fieldOf(parts, 'dvSender'));
    if (!senderRut || senderRut !== token.token.holderRut) {
        return recepcionDte(ctx, { ...base, status: 1, errors: ['rutSender no corresponde al usuario autenticado'] });
    }
    const companyRut = parseRut(fieldOf(parts, 'rutCompany'), fieldOf(parts, 'dvCompany'));
    if (!companyRut)
        return recepcionDte(ctx, { ...base, status: 6, errors: ['rutCompany invalido'] });
    if (!archivo || archivo.data.length === 0 || archivo.data.length > MAX_UPLOAD_FILE_BYTES) {
        return recepcionDte(ctx, { ...base, status: 2, errors: ['Error en el tamano del archivo'] });
    }
    const repeat = ctx.processor.findRepeat('dteupload', archivo.data);
    if (repeat) {
        const before = repeat.timesSent++;
        const wait = Math.ceil((repeat.receivedAt.getTime() + DUPLICATE_WINDOW_MS - ctx.clock().getTime()) / 1000);
        const glosa = `Archivo ya fue enviado ${before} veces con Trackid ${repeat.trackId}. Debe esperar ${wait} segundos`;
        return recepcionDte(ctx, { ...base, status: 99, trackId: repeat.trackId, errors: [glosa] });
    }
    const screening = screenEnvelope(archivo.data, ['dte', 'boleta']);
    if (screening.errors.length > 0)
        return recepcionDte(ctx, { ...base, status: 7, errors: screening.errors });
    const upload = ctx.processor.receive({
        channel: 'dteupload',
        bytes: archivo.data,
        filename: base.file,
        senderRut,
        companyRut,
        screening,
    });
    return recepcionDte(ctx, { ...base, status: 0, trackId: upload.trackId });
}
