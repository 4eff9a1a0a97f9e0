/**
 * The simulator plays a supplier (README "Received documents"): another issuer, with a stand-in
 * certificate and a CAF signed by the simulator's CAF key (the key Timbre trusts through
 * TIMBRE_EXTRA_CAF_KEYS), builds a signed EnvioDTE addressed to a company and delivers it the
 * way suppliers do, by e-mail: the message is put straight into the company's mailbox with
 * IMAP APPEND, so the whole receiving path runs without the real SII or a mail server.
 * Its documents are built, stamped and signed by the pure pipeline of src/dte.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { parseCaf } from '../dte/caf.js';
import { generateTestCertificate, parsePkcs12 } from '../dte/certificate.js';
import { buildDteXml } from '../dte/dte-xml.js';
import { buildEnvelope } from '../dte/envelope.js';
import { issueRequestSchema } from '../dte/issue-request.js';
import { buildTed } from '../dte/ted.js';
import { computeDocument } from '../dte/totals.js';
import { encodeLatin1, signDte, withXmlDeclaration } from '../dte/xmldsig.js';
import { CafIssuer } from './caf-issuer.js';
export const SUPPLIER = {
    rut: '76354771-K',
    name: 'Ingeniería Enacon SpA',
    giro: 'Ingeniería y construcción',
    acteco: ['421000'],
    address: 'Merced 753',
    comuna: 'Quillota',
    city: 'Quillota',
    vatRate: 19,
    resolutionDate: '2014-08-22',
    resolutionNumber: 80,
};
/** The sender (RutEnvia): the holder of the supplier's certificate. */
const SUPPLIER_SENDER = '13185095-6';
/** The supplier's address: the From of its e-mails, where the answers go. */
export const SUPPLIER_EMAIL = 'facturacion@enacon.cl';
/** A factura of the supplier's, in the shape of Timbre's issue request. */
function supplierFactura(over = {}) {
    return {
        type: 33,
        receiver: {
            rut: '76086428-5',
            name: 'Cliente de prueba SpA',
            activity: 'Comercio',
            address: 'Av. Apoquindo 3000',
            comuna: 'Las Condes',
            city: 'Santiago',
        },
        items: [
            { name: 'Clavos de acero 2" (caja)', qty: 10, price: 1350, unit: 'CJ', code: 'CLV-2' },
            { name: 'Martillo carpintero', qty: 2, price: 8990, description: 'Mango de fibra, 16 oz' },
            { name: 'Flete a Ñuñoa', qty: 1, price: 5000, exempt: true },
        ],
        ...over,
    };
}
/**
 * The stand-in supplier. `cafKey`: the simulator's CAF-signing key (so the receiver trusts its
 * CAF like any the simulator hands out); a fresh one when absent.
 */
export function standInSupplier(opts = {}) {
    const sii = opts.cafKey ?? generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    const cafs = new CafIssuer(sii, () => new Date('2026-11-02T12:00:00Z'), new Map([
        [SUPPLIER.rut, { rut: SUPPLIER.rut, resolutionDate: '2014-08-22', resolutionNumber: 80, name: SUPPLIER.name }],
    ]));
    const caf = parseCaf(cafs.issue(SUPPLIER.rut, 33, 500).file);
    const cafKey = createPrivateKey(caf.privateKeyPem);
    const { p12, password } = generateTestCertificate({ holderRut: SUPPLIER_SENDER, name: 'Felipe Barría Soto' });
    const cert = parsePkcs12(p12, password);
    return {
        siiPublicKeyPem: createPublicKey(sii).export({ type: 'spki', format: 'pem' }),
        cert,
        caf,
        dte(receiverRut, folio, over = {}) {
            const base = supplierFactura(over);
            const req = issueRequestSchema.parse({ ...base, receiver: { ...base.receiver, rut: receiverRut } });
            const doc = computeDocument(req, { issuer: SUPPLIER, folio, date: '2026-11-20' });
            const ted = buildTed({ doc, caf, cafPrivateKey: cafKey, timestamp: '2026-11-20T10:15:00' });
            const { xml, documentId } = buildDteXml(doc, { ted, timestamp: '2026-11-20T10:15:01' });
            return encodeLatin1(withXmlDeclaration(signDte(xml, documentId, cert)));
        },
        envelope(receiverRut, dtes, opts = {}) {
            return buildEnvelope('dte', dtes.map((signedXml) => ({ type: 33, signedXml })), {
                issuerRut: SUPPLIER.rut,
                senderRut: SUPPLIER_SENDER,
                receiverRut,
                resolutionDate: '2014-08-22',
                resolutionNumber: 80,
                timestamp: opts.timestamp ?? '2026-11-20T10:16:00',
            }, cert);
        },
    };
}
/** The e-mail as a supplier's software writes it (RFC 5322 bytes, CRLF). */
export async function composeSupplierMail(mail) {
    const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'crlf' });
    const info = await composer.sendMail({
        from: mail.from ?? `${SUPPLIER.name} <${SUPPLIER_EMAIL}>`,
        to: mail.to,
        ...(mail.replyTo && { replyTo: mail.replyTo }),
        subject: mail.subject ?? `Envío de DTE de ${SUPPLIER.name}`,
        text: 'Se adjunta el envío de documentos tributarios electrónicos (EnvioDTE).\n',
        attachments: mail.attachments.map((a) => ({
            filename: a.filename,
            content: a.content,
            contentType: a.contentType ?? 'application/xml',
        })),
    });
    return info.message;
}
/** Puts a raw message into the mailbox (IMAP APPEND); returns its UID when the server says it. */
export async function appendToMailbox(target, raw) {
    const client = new ImapFlow({
        host: target.host,
        port: target.port,
        secure: target.tls === 'implicit',
        ...{ doSTARTTLS: target.tls === 'starttls' ? true : target.tls === 'none' ? false : undefined },
        auth: { user: target.user, pass: target.password },
        logger: false,
        connectionTimeout: 15_000,
    });
    client.on('error', () => { });
    await client.connect();
    try {
        const appended = await client.append(target.folder ?? 'INBOX', raw);
        return appended && typeof appended.uid === 'number' ? appended.uid : null;
    }
    finally {
        await client.logout().catch(() => client.close());
    }
}
/** Builds the supplier's EnvioDTE of one factura to `toRut` and e-mails it into the mailbox. */
export async function sendSupplierDte(supplier, input) {
    let envelope = supplier.envelope(input.toRut, [supplier.dte(input.toRut, input.folio)]);
    if (input.tamper) {
        const text = envelope.toString('latin1');
        const total = /<MntTotal>(\d+)<\/MntTotal>/.exec(text)?.[1] ?? '0';
        envelope = Buffer.from(text.replace(`<MntTotal>${total}</MntTotal>`, `<MntTotal>${Number(total) + 1}</MntTotal>`), 'latin1');
    }
    const fileName = `EnvioDTE_${SUPPLIER.rut}_F${input.folio}.xml`;
    const raw = await composeSupplierMail({
        to: input.mailbox.user.includes('@') ? input.mailbox.user : `dte@${input.toRut}.cl`,
        attachments: [{ filename: fileName, content: envelope }],
    });
    return { uid: await appendToMailbox(input.mailbox, raw), file_name: fileName, folio: input.folio };
}
