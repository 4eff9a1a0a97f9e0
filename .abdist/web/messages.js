import { date as formatDate, rut as formatRut, money } from './format.js';
const BY_CODE = {
    VALIDATION_FAILED: 'Revisa los datos del formulario.',
    INVALID_JSON: 'La solicitud no es JSON válido.',
    UNSUPPORTED_MEDIA_TYPE: 'La solicitud debe enviarse como JSON (Content-Type: application/json).',
    INVALID_RUT: 'El RUT no es válido: revisa el formato y el dígito verificador.',
    UNAUTHENTICATED: 'Tu sesión terminó: vuelve a ingresar.',
    INVALID_API_KEY: 'La clave de API no es válida o fue revocada.',
    FORBIDDEN_ISSUER: 'No tienes acceso a este emisor.',
    ROUTE_NOT_FOUND: 'No encontramos esa página.',
    METHOD_NOT_ALLOWED: 'Esa acción no está disponible en esta página.',
    PAYLOAD_TOO_LARGE: 'El archivo o formulario supera 1 MB.',
    RATE_LIMITED: 'Demasiadas solicitudes seguidas. Espera un momento y vuelve a intentarlo.',
    ISSUER_EXISTS: 'Ya existe un emisor con ese RUT.',
    ACCOUNT_NOT_FOUND: 'Esa cuenta no existe.',
    CAF_ISSUER_MISMATCH: 'Ese CAF fue emitido para otro RUT.',
    DOCUMENT_SCHEMA_INVALID: 'El documento generado no cumple el esquema del SII (un error de Timbre). No se guardó nada ni se usó folio.',
    SERVICE_UNAVAILABLE: 'El servicio se está reiniciando. Vuelve a intentarlo en unos segundos.',
    BAD_REQUEST: 'La solicitud fue rechazada.',
    DOCUMENT_NOT_VERIFIABLE: 'El documento generado no pasó la verificación de firma (un error de Timbre). No se guardó nada ni se usó folio.',
    WEBHOOK_URL_BLOCKED: 'Timbre solo envía webhooks a direcciones públicas de internet.',
    SIGN_IN_FAILED: 'El correo o la contraseña no son correctos.',
    SIGN_IN_RATE_LIMITED: 'Demasiados intentos. Espera unos minutos y vuelve a intentarlo, o entra con un enlace: ¿Olvidaste tu contraseña?',
    CSRF_FAILED: 'El formulario expiró. Recarga la página y vuelve a intentarlo.',
    CURRENT_PASSWORD_WRONG: 'La contraseña actual no es correcta.',
    CERT_BAD_PASSWORD: 'La contraseña del certificado no es correcta.',
    CERT_NO_PRIVATE_KEY: 'El archivo no trae la clave privada: expórtalo junto con su clave (.p12 o .pfx).',
    CERT_UNREADABLE: 'El archivo no es un certificado .p12 o .pfx legible.',
    CERT_NO_HOLDER_RUT: 'El certificado no indica el RUT de su titular; el SII lo exige. El RUT va en la extensión SubjectAltName del certificado (OID 1.3.6.1.4.1.8321.1), que incluyen los certificados de firma electrónica de los proveedores acreditados ante el SII: obtén uno de ellos (el SII los lista en https://www.sii.cl, Servicios online › Certificado digital).',
    CAF_INVALID: 'El archivo no es un CAF (autorización de folios) válido del SII.',
    CAF_KEY_MISMATCH: 'La clave privada del CAF no corresponde a su clave pública: el archivo está dañado.',
    CAF_SIGNATURE_INVALID: 'La firma del CAF no es del SII. Descárgalo de nuevo desde el sitio del SII.',
    CAF_ALREADY_IMPORTED: 'Estos folios ya fueron cargados (el rango se superpone con uno existente).',
    KEY_LIMIT_REACHED: 'Ya hay 5 claves activas en la cuenta: revoca una para crear otra.',
    KEY_NOT_FOUND: 'Esa clave no existe.',
    USER_EXISTS: 'Ya existe un usuario con ese correo.',
    USER_NOT_FOUND: 'Ese usuario no existe.',
    NO_CERTIFICATE: 'El emisor no tiene certificado digital: súbelo en Certificado antes de emitir en producción.',
    CERTIFICATE_EXPIRED: 'El certificado digital del emisor está vencido: sube uno vigente en Certificado.',
    CERTIFICATE_NOT_YET_VALID: 'El certificado digital del emisor aún no es válido.',
    FOLIOS_EXHAUSTED: 'No quedan folios para este tipo de documento: solicita o sube un CAF en Folios.',
    ISSUER_NOT_CONFIGURED: 'Falta la resolución del SII (fecha y número) en Configuración para emitir en producción.',
    REFERENCE_NOT_FOUND: 'El documento referenciado no existe para este emisor.',
    RECEIVED_DOCUMENT_NOT_FOUND: 'Ese documento recibido no existe.',
    RECEIVED_ENVELOPE_NOT_FOUND: 'Ese envío recibido no existe.',
    DECISION_NOT_FOUND: 'Esa decisión no existe o no tiene ese archivo.',
    RECEIVED_TYPE_NOT_DECIDABLE: 'Solo las facturas (33, 34) y liquidaciones-factura (43) se aceptan o reclaman en el SII; las notas y guías no.',
    DECISION_ALREADY_REGISTERED: 'Esa decisión ya está registrada para este documento.',
    DECISION_NOT_ALLOWED: 'El SII no permite esa decisión después de la ya registrada para este documento.',
    DECISION_DEADLINE_PASSED: 'Pasaron los 8 días para aceptar o reclamar: el documento quedó aceptado por ley (Ley 19.983, art. 3).',
    TOTALS_MISMATCH: 'Una nota de crédito que anula debe repetir los totales del documento original.',
    SANDBOX_NOT_SUBMITTABLE: 'Los documentos de sandbox nunca se envían al SII.',
    SII_UNAVAILABLE: 'No fue posible comunicarse con el SII. No se guardó nada; inténtalo de nuevo en unos minutos.',
    IDEMPOTENCY_IN_PROGRESS: 'Este documento ya se está emitiendo. Espera unos segundos.',
    IDEMPOTENCY_KEY_REUSED: 'Este formulario ya se usó para otro documento. Recarga la página.',
    FORBIDDEN_ROLE: 'Tu rol no permite esta acción.',
    DOCUMENT_NOT_FOUND: 'No encontramos ese documento.',
    ISSUER_NOT_FOUND: 'No encontramos esa página.',
    WEBHOOK_LIMIT_REACHED: 'Ya hay 10 endpoints en este emisor: elimina uno para agregar otro.',
    WEBHOOK_NOT_FOUND: 'Ese endpoint no existe (quizás ya fue eliminado).',
    EVENT_NOT_FOUND: 'Ese evento no existe.',
    EMAIL_DISABLED: 'El envío de correos no está configurado en esta instalación (SMTP_URL).',
    EMAIL_NO_RECIPIENT: 'El documento no tiene correo del receptor: escribe a quién enviarlo.',
    EMAIL_DOCUMENT_REJECTED: 'El SII rechazó este documento: no se envía al receptor.',
    MAILBOX_NOT_FOUND: 'La empresa no tiene un buzón de intercambio configurado.',
    MAILBOX_PASSWORD_REQUIRED: 'Un buzón nuevo necesita su contraseña.',
    DOCUMENT_NOT_CEDIBLE: 'Este documento no se puede ceder.',
    CESSION_IN_PROGRESS: 'Ya hay una cesión de este documento en curso en el SII.',
    DOCUMENT_CEDED: 'La factura está cedida: pertenece al cesionario y el deudor le paga a él.',
    CESSION_NOT_FOUND: 'No existe esa cesión para este emisor.',
    INTERNAL: 'Ocurrió un error interno. Inténtalo de nuevo; si persiste, contáctanos.',
};
const ref = (p) => `tipo ${p.type} folio ${p.folio}`;
const BY_RULE = {
    'value.required': () => 'Es obligatorio.',
    'value.wrong_type': (p) => p.expected === 'number' ? 'Debe ser un número.' : 'El valor no tiene el formato esperado.',
    'value.not_allowed': (p) => `Debe ser uno de estos valores: ${p.allowed}.`,
    'value.invalid': () => 'El valor no es válido.',
    'object.unknown_key': (p) => `Campos desconocidos: ${p.keys}.`,
    'number.not_integer': () => 'Debe ser un número entero.',
    'number.too_small': (p) => `Debe ser al menos ${p.min}.`,
    'number.too_big': (p) => `Debe ser como máximo ${p.max}.`,
    'number.range': (p) => `Debe estar entre ${p.min} y ${p.max}.`,
    'number.not_positive': () => 'Debe ser mayor que 0.',
    'number.negative': () => 'No puede ser negativo.',
    'number.too_many_decimals': (p) => `Máximo ${p.max} decimales.`,
    'number.percent_range': () => 'Debe ser mayor que 0 y como máximo 100.',
    'string.too_short': (p) => `Debe tener al menos ${p.min} caracteres.`,
    'string.too_long': (p) => `Máximo ${p.max} caracteres.`,
    'string.format': () => 'El formato no es válido.',
    'array.too_short': (p) => `Indica al menos ${p.min}.`,
    'array.too_long': (p) => `Máximo ${p.max}.`,
    'text.empty': () => 'No puede estar vacío.',
    'text.too_long': (p) => `Máximo ${p.max} caracteres (límite del SII).`,
    'text.char_not_allowed': (p) => `Contiene un carácter no permitido (${p.char}); bórralo o reemplázalo.`,
    'text.multiline': () => 'Debe ser una sola línea.',
    'text.encoded_too_long': () => 'El texto es demasiado largo para el SII: acórtalo.',
    'rut.invalid': () => 'No es un RUT válido (formato 12.345.678-9, revisa el dígito verificador).',
    'date.invalid': () => 'Debe ser una fecha real (dd-mm-aaaa).',
    'date.out_of_range': (p) => `La fecha debe estar entre el ${formatDate(p.from)} y el ${formatDate(p.to)}.`,
    'date.range_order': () => 'La fecha inicial no puede ser posterior a la final.',
    'date.before_caf': (p) => `No puede ser anterior a ${formatDate(p.caf_date)} (fecha del CAF).`,
    'email.invalid': () => 'Debe ser un correo electrónico.',
    'amount.too_large': () => 'El monto es demasiado grande.',
    'amount.over_limit': () => 'El monto es demasiado grande (máximo 12 dígitos).',
    'amount.discount_zero': () => 'El descuento equivale a $ 0 en esta línea: quítalo.',
    'cession.monto_over_total': (p) => `No puede superar el total del documento (${money(Number(p.total))}).`,
    'cession.due_before_issue': (p) => `No puede ser anterior a la fecha de emisión (${formatDate(String(p.date))}).`,
    'cession.cesionario_is_issuer': () => 'El cesionario no puede ser el mismo emisor (cedente).',
    'cession.email_required': () => 'Indica el correo del cedente: el emisor no tiene uno registrado.',
    'type.unknown': (p) => `Debe ser uno de estos tipos: ${p.types}.`,
    'receiver.required': () => 'Indica el receptor: este tipo de documento lo exige.',
    'receiver.name_required': () => 'Es obligatorio en este tipo de documento.',
    'receiver.field_required': (p) => `El SII lo exige en el tipo ${p.type}.`,
    'items.none': () => 'Agrega al menos una línea.',
    'items.too_many': (p) => `Máximo ${p.max} líneas.`,
    'items.price_required': () => 'Es obligatorio.',
    'items.price_required_on_sale': () => 'Es obligatorio en una guía de venta (traslado 1).',
    'items.all_exempt': (p) => `Todas las líneas son exentas: emite el tipo ${p.type}.`,
    'refs.too_many': (p) => `Máximo ${p.max} referencias.`,
    'refs.type_code': () => 'Debe ser un código de tipo de documento de 1 a 3 letras o dígitos.',
    'refs.note_requires_ref': () => 'Indica el documento que modifica la nota.',
    'refs.date_required': () => 'Es obligatorio.',
    'refs.code_on_non_tax': (p) => `Una referencia a un documento no tributario (${p.ref_type}) no lleva código.`,
    'refs.code_not_on_note': () => 'El código solo se usa en notas de débito (56) y crédito (61).',
    'refs.text_correction_only_61': () => 'El código 2 (corrige texto) existe solo en notas de crédito (61).',
    'refs.debit_voids_credit_only': () => 'Una nota de débito solo anula (código 1) una nota de crédito (61).',
    'refs.credit_voided_by_debit': () => 'Una nota de crédito se anula con una nota de débito (56), no con otra nota de crédito.',
    'refs.target_type_not_allowed': (p) => `Una nota no modifica documentos tipo ${p.ref_type} (documentos en papel o guías).`,
    'refs.no_tax_document': () => 'La nota debe referenciar el documento tributario que modifica.',
    'refs.one_tax_document': () => 'Una nota que anula o corrige referencia un solo documento tributario.',
    'refs.text_correction_amounts': () => 'Una corrección de texto (código 2) no lleva montos: deja el precio vacío.',
    'refs.not_found': (p) => `No existe el documento ${ref(p)} de este emisor.`,
    'refs.receiver_mismatch': (p) => `Debe ser el receptor del documento referenciado ${ref(p)} (${formatRut(p.rut)}).`,
    'refs.date_mismatch': (p) => `Debe ser la fecha del documento ${ref(p)}: ${formatDate(p.date)}.`,
    'refs.already_voided': (p) => `El documento ${ref(p)} ya está anulado.`,
    'refs.voiding_note_exists': (p) => `El documento ${ref(p)} ya está anulado (o en proceso) por la nota tipo ${p.note_type} folio ${p.note_folio}.`,
    'refs.totals_mismatch': (p) => `Una anulación repite los totales del documento ${ref(p)}: total ${money(p.total)} (neto ${money(p.net)}, exento ${money(p.exempt)}, IVA ${money(p.vat)}).`,
    'refs.credit_exceeds_remaining': (p) => `La nota acredita más de lo que queda de ${ref(p)} (${money(p.remaining)}).`,
    'dispatch.required': () => 'Indica el tipo de traslado de la guía.',
    'dispatch.only_type_52': () => 'Solo se usa en guías de despacho (52).',
    'dispatch.export_unsupported': () => 'Los traslados para exportación (8 y 9) aún no se pueden emitir.',
    'dispatch.destination_required': () => 'Es obligatorio cuando el emisor despacha (tipo de despacho 2 o 3).',
    'dispatch.internal_transfer_receiver': () => 'En un traslado interno (5) el receptor es el propio emisor: deja el RUT vacío o usa el del emisor.',
    'retention.unsupported': () => 'Solo se admite el código 15 (retención total del IVA).',
    'retention.only_type_46': () => 'Solo se usa en facturas de compra (46).',
    'boleta.no_fma_pago': () => 'Las boletas no llevan forma de pago; indica el medio de pago.',
    'boleta.only': () => 'Solo se usa en boletas (39 y 41).',
    'boleta.period_required': () => 'Es obligatorio en servicios periódicos (indicador 1 o 2).',
    'boleta.due_date_required': () => 'Es obligatorio en servicios periódicos domiciliarios (indicador 2).',
    'boleta.address_required': () => 'Es obligatorio en servicios periódicos (indicador 1 o 2).',
    'boleta.identified_buyer_rut': (p) => `Una boleta sobre ${p.uf} UF identifica al comprador: indica su RUT (no 66.666.666-6).`,
    'boleta.identified_buyer_name': (p) => `Una boleta sobre ${p.uf} UF lleva el nombre del comprador.`,
    'boleta.identified_payment_method': (p) => `Una boleta sobre ${p.uf} UF indica el medio de pago.`,
    'boleta.period_order': () => 'No puede ser anterior al inicio del período.',
    'password.too_short': (p) => `Debe tener al menos ${p.min} caracteres.`,
    'issuer.activity_code': () => 'Debe ser un código de actividad económica del SII de 6 dígitos.',
    'issuer.ambiente': () => 'Debe ser 0 (certificación) o 1 (producción).',
    'folio_alert.type': (p) => `${p.type} no es un tipo de documento (${p.types}).`,
    'folio_alert.threshold': () => 'El aviso debe ser un número entero entre 0 y 1.000.000.',
    'folios.quantity': (p) => `Debe ser un número entre 1 y ${p.max}.`,
    'idempotency.key_format': () => 'La clave de idempotencia debe tener de 1 a 255 caracteres ASCII imprimibles.',
    'url.not_absolute': () => 'Escribe una URL completa, por ejemplo https://example.cl/timbre.',
    'url.scheme': () => 'La URL debe empezar con https:// (o http://).',
    'url.https_required': () => 'En producción la URL debe usar https://.',
    'url.credentials': () => 'La URL no puede llevar usuario ni contraseña.',
    'url.not_public': (p) => `${p.host} es una dirección privada o local: Timbre solo envía webhooks a direcciones públicas de internet.`,
    'url.unresolved': (p) => `No encontramos el dominio ${p.host}: revisa la URL.`,
    'live.no_resolution': () => 'Falta la resolución del SII (fecha y número) en Configuración: en producción la emisión sería rechazada.',
    'live.no_folios': (p) => `No quedan folios de producción para el tipo ${p.type}: solicita o sube un CAF en Folios.`,
};
/** The Spanish of one rule with its params (a detail's, or a preview warning's). */
export function ruleText(rule, params = {}) {
    const say = BY_RULE[rule];
    return say ? say(params) : 'El valor no es válido.';
}
/** A field detail in Spanish, keyed by its rule id. */
export function fieldMessage(detail) {
    return ruleText(detail.rule, detail.params);
}
/** An error in Spanish: its first field detail when it names one, else its code. */
export function errorMessage(err) {
    const first = err.details?.[0];
    return first ? fieldMessage(first) : BY_CODE[err.code];
}
/**
 * Why a webhook delivery failed, in Spanish. The delivery log keeps Node's words (ECONNREFUSED,
 * a TLS verification error …) for operators; people read what they mean and what to check.
 */
export function deliveryErrorText(error) {
    if (error === null)
        return '—';
    const e = error;
    let m = /^HTTP (\d{3})/.exec(e);
    if (m)
        return `El endpoint respondió HTTP ${m[1]} (se espera 2xx).`;
    m = /^no answer within (\d{1,7}) ms/.exec(e);
    if (m)
        return `Sin respuesta en ${Number(m[1]) / 1000} s.`;
    if (/^redirect to .* not followed/.test(e))
        return 'El endpoint responde con una redirección; Timbre no las sigue: usa la URL final.';
    if (e.startsWith('blocked:'))
        return 'La dirección no es pública: Timbre solo envía webhooks a internet.';
    if (e === 'invalid URL')
        return 'La URL no es válida.';
    if (e === 'endpoint disabled')
        return 'El endpoint está desactivado.';
    if (e === 'the delivery is already in flight')
        return 'La entrega ya está en curso: espera unos segundos.';
    if (/secret/i.test(e))
        return 'No se pudo leer el secreto del endpoint (error interno).';
    if (/CERT|certificate|self[- ]signed|SSL|TLS|unable to (get|verify)/i.test(e))
        return 'El certificado TLS (https) del servidor no es válido o no es de confianza: revisa su cadena y su vencimiento.';
    if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(e))
        return 'No se encontró el dominio: revisa la URL.';
    if (/ECONNREFUSED/.test(e))
        return 'El servidor rechazó la conexión: revisa que escuche en ese puerto.';
    if (/ECONNRESET|socket hang up|EPIPE/.test(e))
        return 'El servidor cortó la conexión antes de responder.';
    if (/ETIMEDOUT|timeout/i.test(e))
        return 'La conexión tardó demasiado.';
    if (/EHOSTUNREACH|ENETUNREACH/.test(e))
        return 'No se pudo llegar al servidor (red inalcanzable).';
    return 'No se pudo conectar con el endpoint.';
}
