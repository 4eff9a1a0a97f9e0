/**
 * The SII's RESPUESTA documents (namespace http://www.sii.cl/XMLSchema), in the exact shapes of
 * test/fixtures/sii/responses: a RESP_HDR with ESTADO (and GLOSA / TRACKID / ERR_CODE …) and an
 * optional RESP_BODY. The SII writes them on one line; for EPR it puts RESP_BODY *before*
 * RESP_HDR (captured live, docs/sii-reference.md §7.4), and so does the simulator, so a client that
 * depends on the order fails here first.
 */
import { escapeXml } from '../dte/xml-text.ts';

const RESPUESTA_NS = 'http://www.sii.cl/XMLSchema';

export type Field = readonly [name: string, value: string | number];

function fields(list: readonly Field[]): string {
  return list.map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`).join('');
}

export interface RespuestaParts {
  hdr: readonly Field[];
  body?: readonly Field[];
  /** RESP_BODY written before RESP_HDR (QueryEstUp at EPR). */
  bodyFirst?: boolean;
  /** `utf8`: `<?xml version="1.0" encoding="UTF-8"?>` plus a newline (CrSeed, GetTokenFromSeed,
   *  QueryEstDte); `bare`: `<?xml version="1.0"?>` (QueryEstUp). */
  declaration?: 'utf8' | 'bare';
}

export function respuesta(parts: RespuestaParts): string {
  const hdr = `<SII:RESP_HDR>${fields(parts.hdr)}</SII:RESP_HDR>`;
  const body = parts.body ? `<SII:RESP_BODY>${fields(parts.body)}</SII:RESP_BODY>` : '';
  const inner = parts.bodyFirst ? body + hdr : hdr + body;
  const declaration =
    parts.declaration === 'bare' ? '<?xml version="1.0"?>' : '<?xml version="1.0" encoding="UTF-8"?>\n';
  return `${declaration}<SII:RESPUESTA xmlns:SII="${RESPUESTA_NS}">${inner}</SII:RESPUESTA>`;
}

/** CrSeed.getSeed / boleta.electronica.semilla. */
export function seedRespuesta(seed: string): string {
  return respuesta({ hdr: [['ESTADO', '00']], body: [['SEMILLA', seed]] });
}

/** GetTokenFromSeed.getToken / boleta.electronica.token. */
export function tokenRespuesta(result: { estado: '00'; token: string } | { estado: string; glosa: string }): string {
  if ('token' in result) {
    return respuesta({
      hdr: [
        ['ESTADO', '00'],
        ['GLOSA', 'Token Creado'],
      ],
      body: [['TOKEN', result.token]],
    });
  }
  return respuesta({
    hdr: [
      ['ESTADO', result.estado],
      ['GLOSA', result.glosa],
    ],
  });
}

/** A token error of the query services (001 / 002 / 003, queryestup_respuesta_token_003.xml). */
export function tokenErrorRespuesta(estado: string, glosa: string, declaration: 'utf8' | 'bare'): string {
  return respuesta({
    hdr: [
      ['ESTADO', estado],
      ['GLOSA', glosa],
    ],
    declaration,
  });
}
