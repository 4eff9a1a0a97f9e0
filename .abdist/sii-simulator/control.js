import { jsonReply, reply, textReply } from './http-util.js';
const noContent = () => ({ status: 204, headers: {}, body: Buffer.alloc(0) });
function parseJson(body) {
    const value = JSON.parse(body.toString('utf8') || '{}');
    if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new Error('a JSON object is expected');
    return value;
}
function route(sim, method, path, body, query) {
    const key = `${method} ${path}`;
    switch (key) {
        case 'GET /sim/uploads':
            return jsonReply(200, sim.uploads());
        case 'GET /sim/faults':
            return jsonReply(200, sim.faults());
        case 'POST /sim/faults':
            sim.setFault(parseJson(body));
            return noContent();
        case 'DELETE /sim/faults':
            sim.clearFaults();
            return noContent();
        case 'POST /sim/issuers':
            sim.registerIssuer(parseJson(body));
            return noContent();
        case 'POST /sim/processing-delay':
            sim.setProcessingDelay(Number(parseJson(body).ms));
            return noContent();
        case 'POST /sim/expire-tokens':
            sim.expireTokens();
            return noContent();
        case 'POST /sim/cafs': {
            const input = parseJson(body);
            const file = sim.issueCaf({ rut: String(input.rut), type: Number(input.type), count: Number(input.count) });
            return reply(200, file, 'text/xml; charset=ISO-8859-1');
        }
        case 'POST /sim/registro/documents':
            sim.registerReceivedDocument(parseJson(body));
            return noContent();
        case 'POST /sim/registro/reception':
            sim.setReceptionDate(parseJson(body));
            return noContent();
        case 'POST /sim/registro/authorizations':
            sim.authorizeUser(parseJson(body));
            return noContent();
        case 'GET /sim/registro/events':
            return jsonReply(200, sim.registroEvents({
                issuerRut: query.get('issuerRut') ?? '',
                type: Number(query.get('type')),
                folio: Number(query.get('folio')),
            }));
        case 'GET /sim/rpetc/uploads':
            return jsonReply(200, sim.aecUploads());
        case 'GET /sim/rpetc/cesiones':
            return jsonReply(200, sim.cesiones({
                issuerRut: query.get('issuerRut') ?? '',
                type: Number(query.get('type')),
                folio: Number(query.get('folio')),
            }));
        case 'POST /sim/rpetc/cesiones':
            return jsonReply(200, sim.registerCesion(parseJson(body)));
        case 'GET /sim/caf-key.pem':
            return reply(200, sim.cafPublicKeyPem, 'application/x-pem-file');
        default:
            return textReply(404, `unknown control request ${key}`);
    }
}
/** `POST /sim/supplier-dte`: the simulator plays a supplier e-mailing a factura (supplier.ts). */
async function supplierDte(sim, body) {
    const input = parseJson(body);
    const m = (input.mailbox ?? {});
    const tls = String(m.tls ?? 'implicit');
    if (!['implicit', 'starttls', 'none'].includes(tls))
        throw new Error('mailbox.tls must be implicit, starttls or none');
    const delivered = await sim.sendSupplierDte({
        toRut: String(input.to_rut),
        folio: Number(input.folio ?? Math.floor(Math.random() * 400) + 1),
        tamper: input.tamper === true,
        mailbox: {
            host: String(m.host),
            port: Number(m.port ?? (tls === 'implicit' ? 993 : 143)),
            tls: tls,
            user: String(m.user),
            password: String(m.password),
            ...(m.folder !== undefined && { folder: String(m.folder) }),
        },
    });
    return jsonReply(200, delivered);
}
export async function handleControl(sim, req, url, body) {
    try {
        if (req.method === 'POST' && url.pathname === '/sim/supplier-dte')
            return await supplierDte(sim, body);
        return route(sim, req.method ?? 'GET', url.pathname, body, url.searchParams);
    }
    catch (e) {
        return textReply(400, e.message);
    }
}
