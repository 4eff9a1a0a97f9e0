/**
 * The simulator's control API over HTTP, for a simulator run from the command line
 * (`npm run sii-sim`): the same controls tests have on the simulator object. Not an SII
 * interface; it is unauthenticated, so the simulator binds 127.0.0.1 by default.
 *
 *   GET    /sim/uploads            → JSON list of received uploads (UploadSummary[])
 *   GET    /sim/faults             → JSON list of active faults
 *   POST   /sim/faults             {kind, count?, delayMs?, paths?, companyRut?, operations?} → 204
 *   DELETE /sim/faults             → 204
 *   POST   /sim/issuers            {rut, resolutionDate, resolutionNumber, name?} → 204
 *   POST   /sim/processing-delay   {ms} → 204
 *   POST   /sim/expire-tokens      → 204
 *   POST   /sim/cafs               {rut, type, count} → the CAF file (no authentication)
 *   GET    /sim/caf-key.pem        → the CAF-signing public key (PEM)
 *   POST   /sim/supplier-dte       {to_rut, folio?, tamper?, mailbox: {host, port, tls, user, password, folder?}}
 *                                   → a stand-in supplier's EnvioDTE e-mailed into that IMAP mailbox
 *                                     (APPEND): {uid, file_name, folio}
 *   POST   /sim/registro/documents      {issuerRut, type, folio, receiverRut, receivedAt?} → 204
 *                                       (another issuer's document, received by the SII then)
 *   POST   /sim/registro/reception      {issuerRut, type, folio, receivedAt} → 204
 *   POST   /sim/registro/authorizations {holderRut, companyRut} → 204
 *   GET    /sim/registro/events?issuerRut=&type=&folio= → JSON list of the document's events
 *   GET    /sim/rpetc/uploads      → JSON list of the AECs received, with their state
 *   GET    /sim/rpetc/cesiones?issuerRut=&type=&folio= → JSON list of the document's cesiones
 *   POST   /sim/rpetc/cesiones     {issuerRut, type, folio, cesionarioRut, cedenteRut?, monto?,
 *                                   ultimoVencimiento?, declaracionJurada?} → the cesión recorded
 *                                   (JSON; another holder, by hand)
 */
import type { IncomingMessage } from 'node:http';
import type { FaultSpec } from './faults.ts';
import { jsonReply, type Reply, reply, textReply } from './http-util.ts';
import type { ReceivedDocumentInput } from './registro-store.ts';
import type { ManualCesionInput } from './rpetc-store.ts';
import type { RegisteredIssuer } from './state.ts';
import type { SupplierDelivery } from './supplier.ts';

export interface SimControl {
  readonly cafPublicKeyPem: string;
  setFault(fault: FaultSpec): void;
  clearFaults(): void;
  faults(): FaultSpec[];
  registerIssuer(issuer: RegisteredIssuer): void;
  uploads(): unknown[];
  setProcessingDelay(ms: number): void;
  expireTokens(): void;
  issueCaf(input: { rut: string; type: number; count: number }): Buffer;
  sendSupplierDte(input: SupplierDelivery): Promise<unknown>;
  registerReceivedDocument(input: ReceivedDocumentInput): void;
  setReceptionDate(input: { issuerRut: string; type: number; folio: number; receivedAt: Date | string }): void;
  authorizeUser(input: { holderRut: string; companyRut: string }): void;
  registroEvents(input: { issuerRut: string; type: number; folio: number }): unknown[];
  aecUploads(): unknown[];
  cesiones(input: { issuerRut: string; type: number; folio: number }): unknown[];
  registerCesion(input: ManualCesionInput): unknown;
}

const noContent = (): Reply => ({ status: 204, headers: {}, body: Buffer.alloc(0) });

function parseJson(body: Buffer): Record<string, unknown> {
  const value: unknown = JSON.parse(body.toString('utf8') || '{}');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('a JSON object is expected');
  return value as Record<string, unknown>;
}

function route(sim: SimControl, method: string, path: string, body: Buffer, query: URLSearchParams): Reply {
  const key = `${method} ${path}`;
  switch (key) {
    case 'GET /sim/uploads':
      return jsonReply(200, sim.uploads());
    case 'GET /sim/faults':
      return jsonReply(200, sim.faults());
    case 'POST /sim/faults':
      sim.setFault(parseJson(body) as unknown as FaultSpec);
      return noContent();
    case 'DELETE /sim/faults':
      sim.clearFaults();
      return noContent();
    case 'POST /sim/issuers':
      sim.registerIssuer(parseJson(body) as unknown as RegisteredIssuer);
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
      sim.registerReceivedDocument(parseJson(body) as unknown as ReceivedDocumentInput);
      return noContent();
    case 'POST /sim/registro/reception':
      sim.setReceptionDate(parseJson(body) as unknown as Parameters<SimControl['setReceptionDate']>[0]);
      return noContent();
    case 'POST /sim/registro/authorizations':
      sim.authorizeUser(parseJson(body) as unknown as { holderRut: string; companyRut: string });
      return noContent();
    case 'GET /sim/registro/events':
      return jsonReply(
        200,
        sim.registroEvents({
          issuerRut: query.get('issuerRut') ?? '',
          type: Number(query.get('type')),
          folio: Number(query.get('folio')),
        }),
      );
    case 'GET /sim/rpetc/uploads':
      return jsonReply(200, sim.aecUploads());
    case 'GET /sim/rpetc/cesiones':
      return jsonReply(
        200,
        sim.cesiones({
          issuerRut: query.get('issuerRut') ?? '',
          type: Number(query.get('type')),
          folio: Number(query.get('folio')),
        }),
      );
    case 'POST /sim/rpetc/cesiones':
      return jsonReply(200, sim.registerCesion(parseJson(body) as unknown as ManualCesionInput));
    case 'GET /sim/caf-key.pem':
      return reply(200, sim.cafPublicKeyPem, 'application/x-pem-file');
    default:
      return textReply(404, `unknown control request ${key}`);
  }
}

/** `POST /sim/supplier-dte`: the simulator plays a supplier e-mailing a factura (supplier.ts). */
async function supplierDte(sim: SimControl, body: Buffer): Promise<Reply> {
  const input = parseJson(body);
  const m = (input.mailbox ?? {}) as Record<string, unknown>;
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
      tls: tls as 'implicit' | 'starttls' | 'none',
      user: String(m.user),
      password: String(m.password),
      ...(m.folder !== undefined && { folder: String(m.folder) }),
    },
  });
  return jsonReply(200, delivered);
}

export async function handleControl(sim: SimControl, req: IncomingMessage, url: URL, body: Buffer): Promise<Reply> {
  try {
    if (req.method === 'POST' && url.pathname === '/sim/supplier-dte') return await supplierDte(sim, body);
    return route(sim, req.method ?? 'GET', url.pathname, body, url.searchParams);
  } catch (e) {
    return textReply(400, (e as Error).message);
  }
}
