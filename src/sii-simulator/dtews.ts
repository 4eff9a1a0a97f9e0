/**
 * The DTEWS SOAP services (docs/sii-reference.md §7.2, §7.4, §7.5): CrSeed.getSeed,
 * GetTokenFromSeed.getToken, QueryEstUp.getEstUp and QueryEstDte.getEstDte, at the SII's paths,
 * plus `GET <path>?wsdl` with the vendored WSDL pointing at this simulator.
 *
 * Token errors of the queries are 001 (no token), 002 (expired), 003 (unknown, which includes
 * a boleta REST token); getEstUp answers -11 (ERR_CODE 1: not this company's envío or bad
 * company RUT, 2: unknown track id); getEstDte answers -1 for malformed parameters and -3 when
 * RutConsultante is not the token's certificate holder (the simulator's choice of codes: the
 * SII documents only "query errors -1…-4").
 */
import type { IncomingMessage } from 'node:http';
import { decodeXmlBytes } from '../dte/xml-text.ts';
import type { SimContext } from './context.ts';
import { htmlReply, parseRut, type Reply, reply, xmlReply } from './http-util.ts';
import {
  documentStatus,
  estDteErrorRespuesta,
  estDteRespuesta,
  estUpErrorRespuesta,
  estUpRespuesta,
} from './queries.ts';
import { seedRespuesta, tokenErrorRespuesta, tokenRespuesta } from './respuesta.ts';
import {
  DTEWS_SERVICES,
  type DtewsPath,
  parseSoapCall,
  type SoapCall,
  SoapFaultError,
  soapFault,
  soapResponse,
  wsdlFor,
} from './soap.ts';

type Params = Map<string, string>;

const param = (p: Params, name: string) => (p.get(name) ?? '').trim();

function getEstUp(ctx: SimContext, p: Params): string {
  const token = ctx.auth.check('dte', param(p, 'Token'));
  if (!token.ok) return tokenErrorRespuesta(token.estado, token.glosa, 'bare');
  const company = parseRut(param(p, 'RutCompania'), param(p, 'DvCompania'));
  if (!company) return estUpErrorRespuesta(1);
  const upload = ctx.processor.find('dteupload', param(p, 'TrackId'));
  if (!upload) return estUpErrorRespuesta(2);
  if (upload.companyRut !== company) return estUpErrorRespuesta(1);
  return estUpRespuesta(upload);
}

/** FechaEmisionDte DDMMAAAA → YYYY-MM-DD (docs/sii-reference.md §7.5). */
function ddmmaaaa(text: string): string | null {
  const m = /^(\d{2})(\d{2})(\d{4})$/.exec(text);
  return m ? `${m[3]}-${m[2]}-${m[1]}` : null;
}

function getEstDte(ctx: SimContext, p: Params): string {
  const attention = ctx.nextAttentionNumber();
  const token = ctx.auth.check('dte', param(p, 'Token'));
  if (!token.ok) return tokenErrorRespuesta(token.estado, token.glosa, 'utf8');
  const consultant = parseRut(param(p, 'RutConsultante'), param(p, 'DvConsultante'));
  if (consultant !== token.token.holderRut) {
    return estDteErrorRespuesta('-3', 'RUT Consultante no corresponde al usuario autenticado', attention);
  }
  const issuerRut = parseRut(param(p, 'RutCompania'), param(p, 'DvCompania'));
  const receiverRut = parseRut(param(p, 'RutReceptor'), param(p, 'DvReceptor'));
  const type = param(p, 'TipoDte');
  const folio = param(p, 'FolioDte');
  const date = ddmmaaaa(param(p, 'FechaEmisionDte'));
  const amount = param(p, 'MontoDte');
  const bad = [
    !issuerRut && 'RutCompania/DvCompania',
    !receiverRut && 'RutReceptor/DvReceptor',
    !/^\d{1,3}$/.test(type) && 'TipoDte',
    !/^\d{1,10}$/.test(folio) && 'FolioDte',
    !date && 'FechaEmisionDte (DDMMAAAA)',
    !/^\d{1,18}$/.test(amount) && 'MontoDte',
  ].filter((b): b is string => typeof b === 'string');
  if (bad.length > 0 || !issuerRut || !receiverRut || !date) {
    return estDteErrorRespuesta('-1', `Parametros invalidos: ${bad.join(', ')}`, attention);
  }
  const answer = documentStatus(ctx.processor.registry, {
    issuerRut,
    type: Number(type),
    folio: Number(folio),
    receiverRut,
    date,
    amount: Number(amount),
  });
  return estDteRespuesta(answer, attention);
}

function dispatch(ctx: SimContext, path: DtewsPath, call: SoapCall): string {
  const allowed: readonly string[] = DTEWS_SERVICES[path].operations;
  if (!allowed.includes(call.operation)) {
    throw new SoapFaultError('Client', `No such operation '${call.operation}'`);
  }
  switch (call.operation) {
    case 'getSeed':
      return seedRespuesta(ctx.auth.issueSeed('dte'));
    case 'getToken':
      return tokenRespuesta(ctx.auth.exchange('dte', call.params.get('pszXml') ?? ''));
    case 'getEstUp':
      return getEstUp(ctx, call.params);
    default:
      return getEstDte(ctx, call.params);
  }
}

export function handleDtews(ctx: SimContext, req: IncomingMessage, url: URL, path: DtewsPath, body: Buffer): Reply {
  if (req.method === 'GET') {
    if (url.searchParams.has('wsdl') || url.searchParams.has('WSDL')) {
      return reply(200, wsdlFor(path, `http://${req.headers.host ?? url.host}`), 'text/xml; charset=utf-8');
    }
    // What Axis answers a browser.
    return htmlReply(200, path.slice(path.lastIndexOf('/') + 1), 'Hi there, this is an AXIS service!');
  }
  if (req.method !== 'POST') return htmlReply(405, 'Method Not Allowed', `${req.method} is not supported`);
  try {
    const call = parseSoapCall(decodeXmlBytes(body));
    return xmlReply(200, soapResponse(call, dispatch(ctx, path, call)));
  } catch (e) {
    if (e instanceof SoapFaultError) return xmlReply(500, soapFault(e));
    throw e;
  }
}
