/**
 * Plain-Spanish words for what the use cases answer (their messages are English, for the API
 * and the CLI). The code says what happened; these say what to do. Field messages from the
 * issue schema are translated phrase by phrase; anything unknown keeps its English text after
 * a Spanish lead, so nothing is hidden.
 */
import type { AppError, ErrorCode } from '../errors.ts';
import { rut as formatRut, money } from './format.ts';

const BY_CODE: Partial<Record<ErrorCode, string>> = {
  SIGN_IN_FAILED: 'El correo o la contraseña no son correctos.',
  SIGN_IN_RATE_LIMITED: 'Demasiados intentos fallidos. Espera 15 minutos y vuelve a intentarlo.',
  CSRF_FAILED: 'El formulario expiró. Recarga la página y vuelve a intentarlo.',
  CERT_BAD_PASSWORD: 'La contraseña del certificado no es correcta.',
  CERT_NO_PRIVATE_KEY: 'El archivo no trae la clave privada: expórtalo junto con su clave (.p12 o .pfx).',
  CERT_UNREADABLE: 'El archivo no es un certificado .p12 o .pfx legible.',
  CERT_NO_HOLDER_RUT: 'El certificado no indica el RUT de su titular; el SII lo exige.',
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
  INTERNAL: 'Ocurrió un error interno. Inténtalo de nuevo; si persiste, contáctanos.',
};

const PHRASES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^must not be empty$/, () => 'No puede estar vacío.'],
  // The SII format rules of the issue schema and the reference checks (README "SII format rules").
  [/^is required for type \d+: the document this note modifies$/, () => 'Indica el documento que modifica la nota.'],
  [/^is required for type (\d+) \((GiroRecep|DirRecep|CmnaRecep)\)$/, (m) => `El SII lo exige en el tipo ${m[1]}.`],
  [/^is required on a guía that is a sale/, () => 'Es obligatorio en una guía de venta (traslado 1).'],
  [/^is required when the issuer delivers/, () => 'Es obligatorio cuando el emisor despacha (tipo de despacho 2 o 3).'],
  [/^is required for periodic services/, () => 'Es obligatorio en servicios periódicos (indicador 1 o 2).'],
  [
    /^is required for periodic domiciliary services/,
    () => 'Es obligatorio en servicios periódicos domiciliarios (indicador 2).',
  ],
  [/^is required.*$/, () => 'Es obligatorio.'],
  [/expected string, received undefined/, () => 'Es obligatorio.'],
  [
    /an internal transfer \(transfer_type 5\) is addressed to the issuer itself \((\S+)\)/,
    () => 'En un traslado interno (5) el receptor es el propio emisor: deja el RUT vacío o usa el del emisor.',
  ],
  [
    /^must be the receiver of the referenced document (\S+) \((\S+)\)$/,
    (m) => `Debe ser el receptor del documento referenciado ${m[1]} (${formatRut(m[2] ?? '')}).`,
  ],
  [
    /^must be the date of (\S+) \((\d{4})-(\d{2})-(\d{2})\)$/,
    (m) => `Debe ser la fecha de ${m[1]}: ${m[4]}-${m[3]}-${m[2]}.`,
  ],
  [/^must be 1, 2 or 3$/, () => 'Debe ser 1, 2 o 3.'],
  [/^boletas have no FmaPago/, () => 'Las boletas no llevan forma de pago; indica el medio de pago.'],
  [/^applies only to boletas/, () => 'Solo se usa en boletas (39 y 41).'],
  [/^applies only to type 52$/, () => 'Solo se usa en guías de despacho (52).'],
  [
    /a reference to a non-tax document \((\S+)\) carries no CodRef/,
    (m) => `Una referencia a un documento no tributario (${m[1]}) no lleva código.`,
  ],
  [/^CodRef applies only to notes/, () => 'El código solo se usa en notas de débito (56) y crédito (61).'],
  [
    /^CodRef 2 \(text correction\) exists only/,
    () => 'El código 2 (corrige texto) existe solo en notas de crédito (61).',
  ],
  [
    /^a debit note voids \(CodRef 1\) only a credit note/,
    () => 'Una nota de débito solo anula (código 1) una nota de crédito (61).',
  ],
  [
    /^a credit note is voided by a debit note/,
    () => 'Una nota de crédito se anula con una nota de débito (56), no con otra nota de crédito.',
  ],
  [
    /^a note does not modify a document of type (\S+)/,
    (m) => `Una nota no modifica documentos tipo ${m[1]} (documentos en papel o guías).`,
  ],
  [
    /^a note references at least one tax document/,
    () => 'La nota debe referenciar el documento tributario que modifica.',
  ],
  [
    /^a note that voids or corrects references exactly one tax document/,
    () => 'Una nota que anula o corrige referencia un solo documento tributario.',
  ],
  [/^export transfers \(8, 9\)/, () => 'Los traslados para exportación (8 y 9) aún no se pueden emitir.'],
  [
    /^the note credits more than the (\d+) that remain of (\S+)$/,
    (m) => `La nota acredita más de lo que queda de ${m[2]} (${money(Number(m[1]))}).`,
  ],
  [/^must not be before service_period.from$/, () => 'No puede ser anterior al inicio del período.'],
  [/^must have at most (\d+) lines$/, (m) => `Máximo ${m[1]} líneas.`],
  [
    /^a boleta above (\d+) UF .* identifies its buyer/,
    (m) => `Una boleta sobre ${m[1]} UF identifica al comprador: indica su RUT (no 66.666.666-6).`,
  ],
  [
    /^a boleta above (\d+) UF .* carries the buyer's name/,
    (m) => `Una boleta sobre ${m[1]} UF lleva el nombre del comprador.`,
  ],
  [/^a boleta above (\d+) UF .* states its MedioPago/, (m) => `Una boleta sobre ${m[1]} UF indica el medio de pago.`],
  [/^must be greater than 0$/, () => 'Debe ser mayor que 0.'],
  [/^must not be negative$/, () => 'No puede ser negativo.'],
  [/^must be at most (\d+) characters.*$/, (m) => `Máximo ${m[1]} caracteres.`],
  [/^must be a number$|^.* must be a number$|expected number/, () => 'Debe ser un número.'],
  [/^may carry at most (\d+) decimals$/, (m) => `Máximo ${m[1]} decimales.`],
  [/is not a valid RUT|RUT/, () => 'No es un RUT válido (formato 12.345.678-9, revisa el dígito verificador).'],
  [/^must be a real date.*$/, () => 'Debe ser una fecha real (dd-mm-aaaa).'],
  [/^must have at least one line$/, () => 'Agrega al menos una línea.'],
  [/every line is exempt: issue type (\d+) instead/, (m) => `Todas las líneas son exentas: emite el tipo ${m[1]}.`],
  [/^must be a single line$/, () => 'Debe ser una sola línea.'],
  [/^must not contain control characters$/, () => 'Contiene caracteres no permitidos.'],
  [
    /a credit note carries only receiver.rut and receiver.name/,
    () => 'Una nota de crédito lleva solo RUT y razón social del receptor.',
  ],
  [
    /no (sandbox|live) document of type (\d+) with folio (\d+)/,
    (m) => `No existe el documento tipo ${m[2]} folio ${m[3]} de este emisor.`,
  ],
  [/already voided/, () => 'Ese documento ya está anulado.'],
  [/^totals must equal those of (.*)$/, (m) => `Los totales deben ser iguales a los de ${m[1]} (anulación).`],
  // Webhook URLs (src/events/webhooks.ts and ssrf.ts).
  [/^must be an absolute http\(s\) URL$/, () => 'Escribe una URL completa, por ejemplo https://example.cl/timbre.'],
  [/^the URL must be http or https$/, () => 'La URL debe empezar con https:// (o http://).'],
  [/^live issuers must use an https URL$/, () => 'En producción la URL debe usar https://.'],
  [/^the URL must not carry credentials$/, () => 'La URL no puede llevar usuario ni contraseña.'],
  [
    /^(\S+) (is not a public address|resolves to a non-public address.*)$/,
    (m) => `${m[1]} es una dirección privada o local: Timbre solo envía webhooks a direcciones públicas de internet.`,
  ],
  [/^(\S+) does not resolve$/, (m) => `No encontramos el dominio ${m[1]}: revisa la URL.`],
  [/must be an e-mail address/, () => 'Debe ser un correo electrónico.'],
  [/must be at least (\d+) characters/, (m) => `Debe tener al menos ${m[1]} caracteres.`],
  [
    /must be a 6-digit SII economic activity code/,
    () => 'Debe ser un código de actividad económica del SII de 6 dígitos.',
  ],
  [/must be greater than 0 and at most 100/, () => 'Debe ser mayor que 0 y como máximo 100.'],
  [
    /text correction \(code 2\) carries no amounts/,
    () => 'Una corrección de texto (código 2) no lleva montos: deja el precio vacío.',
  ],
  [/must not be before (\S+)/, (m) => `No puede ser anterior a ${m[1]} (fecha del CAF).`],
];

export function fieldMessage(english: string): string {
  for (const [re, say] of PHRASES) {
    const m = re.exec(english);
    if (m) return say(m);
  }
  return `Valor no válido (${english}).`;
}

export function errorMessage(err: AppError): string {
  return BY_CODE[err.code] ?? (err.details?.[0] ? fieldMessage(err.details[0].message) : err.message);
}
