/**
 * The SII's RESPUESTA documents (namespace http://www.sii.cl/XMLSchema), in the exact shapes of
 * test/fixtures/sii/responses: a RESP_HDR with ESTADO (and GLOSA / TRACKID / ERR_CODE …) and an
 * optional RESP_BODY. The SII writes them on one line; for EPR it puts RESP_BODY *before*
 * RESP_HDR (captured live, docs/sii-reference.md §7.4), and so does the simulator, so a client that
 * depends on the order fails here first.
 */
import { create } from 'xmlbuilder2';
const RESPUESTA_NS = 'http://www.sii.cl/XMLSchema';
/** Unsigned answers are built with xmlbuilder2 (escaping and namespaces are its job). */
function section(root, name, list) {
    const el = root.ele(RESPUESTA_NS, `SII:${name}`);
    for (const [field, value] of list)
        el.ele(field).txt(String(value));
}
export function respuesta(parts) {
    const root = create().ele(RESPUESTA_NS, 'SII:RESPUESTA');
    if (parts.body && parts.bodyFirst)
        section(root, 'RESP_BODY', parts.body);
    section(root, 'RESP_HDR', parts.hdr);
    if (parts.body && !parts.bodyFirst)
        section(root, 'RESP_BODY', parts.body);
    // The declaration is written by hand: the SII's two spellings differ from xmlbuilder2's.
    const declaration = parts.declaration === 'bare' ? '<?xml version="1.0"?>' : '<?xml version="1.0" encoding="UTF-8"?>\n';
    return declaration + root.end({ headless: true });
}
/** CrSeed.getSeed / boleta.electronica.semilla. */
export function seedRespuesta(seed) {
    return respuesta({ hdr: [['ESTADO', '00']], body: [['SEMILLA', seed]] });
}
/** GetTokenFromSeed.getToken / boleta.electronica.token. */
export function tokenRespuesta(result) {
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
export function tokenErrorRespuesta(estado, glosa, declaration) {
    return respuesta({
        hdr: [
            ['ESTADO', estado],
            ['GLOSA', glosa],
        ],
        declaration,
    });
}
