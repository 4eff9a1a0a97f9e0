/**
 * The receiver's answer codes (docs/receiving.md §1, §2; FRESP §2; RespuestaEnvioDTE_v10.xsd
 * `EstadoRecepEnv`, `EstadoRecepDTE`) and their glosas as the SII writes them. The Spanish
 * reason that goes with each refusal is more precise than the glosa (it names the field, the
 * RUT, the failing signature) and is recorded next to the code.
 */
/** `EstadoRecepEnv`: the envelope as a whole. */
export const ESTADO_RECEP_ENV = {
    OK: 0,
    SCHEMA: 1,
    SIGNATURE: 2,
    RECEIVER_RUT: 3,
    REPEATED: 90,
    UNREADABLE: 91,
    OTHER: 99,
};
export const GLOSA_RECEP_ENV = {
    0: 'Envio Recibido Conforme',
    1: 'Envio Rechazado - Error de Schema',
    2: 'Envio Rechazado - Error de Firma',
    3: 'Envio Rechazado - RUT Receptor No Corresponde',
    90: 'Envio Rechazado - Archivo Repetido',
    91: 'Envio Rechazado - Archivo Ilegible',
    99: 'Envio Rechazado - Otros',
};
/** `EstadoRecepDTE`: one document of the envelope. */
export const ESTADO_RECEP_DTE = {
    OK: 0,
    SIGNATURE: 1,
    ISSUER_RUT: 2,
    RECEIVER_RUT: 3,
    REPEATED: 4,
    OTHER: 99,
};
export const GLOSA_RECEP_DTE = {
    0: 'DTE Recibido OK',
    1: 'DTE No Recibido - Error de Firma',
    2: 'DTE No Recibido - Error en RUT Emisor',
    3: 'DTE No Recibido - Error en RUT Receptor',
    4: 'DTE No Recibido - DTE Repetido',
    99: 'DTE No Recibido - Otros',
};
/**
 * The types a RecepcionDTE may name (`DTEType` in SiiTypes_v10.xsd): the intercambio
 * documents. Other types (boletas, 43, exports) are checked and recorded but not listed in
 * the answer, whose schema has no room for them.
 */
export const ANSWERABLE_TYPES = [33, 34, 46, 52, 56, 61];
