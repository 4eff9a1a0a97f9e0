/**
 * The rules a request can break, by stable id. Every field detail of a 400/422
 * (`details: [{ path, rule, message, params? }]`) names one of these ids next to its English
 * message; `params` carries the values the message interpolates (a limit, a character, a date),
 * so a client — the dashboard among them — can say the same thing in another language without
 * reading the English. Ids are part of the API: add new ones, never rename or reuse one.
 *
 * The English text of each rule lives here once; zod refinements and the use cases build their
 * issues with `ruleIssue` / `ruleDetail`, and `zodDetails` is the one conversion of zod issues
 * (from any schema: the issue request, the operator inputs, Fastify's route schemas) to details.
 */
function rule(english) {
    return english;
}
export const RULES = {
    // Generic rules of the route schemas (zod's own checks).
    'value.required': rule(() => 'is required'),
    'value.wrong_type': rule((p) => `must be of type ${p.expected}`),
    'value.not_allowed': rule((p) => `must be one of ${p.allowed}`),
    'value.invalid': rule(() => 'is invalid'),
    'object.unknown_key': rule((p) => `unknown field(s): ${p.keys}`),
    'number.not_integer': rule(() => 'must be a whole number'),
    'number.too_small': rule((p) => `must be at least ${p.min}`),
    'number.too_big': rule((p) => `must be at most ${p.max}`),
    'number.range': rule((p) => `must be between ${p.min} and ${p.max}`),
    'number.not_positive': rule(() => 'must be greater than 0'),
    'number.negative': rule(() => 'must not be negative'),
    'number.too_many_decimals': rule((p) => `may carry at most ${p.max} decimals`),
    'number.percent_range': rule(() => 'must be greater than 0 and at most 100'),
    'string.too_short': rule((p) => `must be at least ${p.min} characters`),
    'string.too_long': rule((p) => `must be at most ${p.max} characters`),
    'string.format': rule((p) => `must be a valid ${p.format}`),
    'array.too_short': rule((p) => `must have at least ${p.min} entries`),
    'array.too_long': rule((p) => `must have at most ${p.max} entries`),
    // Text written into the signed XML (src/dte/issue-request.ts siiText, src/dte/xml-text.ts).
    'text.empty': rule(() => 'must not be empty'),
    'text.too_long': rule((p) => `must be at most ${p.max} characters (SII limit)`),
    'text.char_not_allowed': rule((p) => `character ${p.char} is not allowed`),
    'text.multiline': rule(() => 'must be a single line'),
    'text.encoded_too_long': rule(() => 'is too long once written as ISO-8859-1 XML (the SII refuses lines over ~4 000 characters)'),
    // Values of the tax domain.
    'rut.invalid': rule(() => 'must be a RUT with hyphen and check digit, e.g. 76354771-K'),
    'date.invalid': rule(() => 'must be a real date written YYYY-MM-DD'),
    'date.out_of_range': rule((p) => `must be from ${p.from} to ${p.to} (SII FechaType)`),
    'date.range_order': rule((p) => `${p.from} must not be after ${p.to}`),
    'date.before_caf': rule((p) => `must not be before ${p.caf_date}`),
    'email.invalid': rule(() => 'must be an e-mail address'),
    'amount.too_large': rule(() => 'the amount is too large'),
    'amount.over_limit': rule((p) => `must be less than ${p.limit}`),
    'amount.discount_zero': rule(() => 'the discount amounts to $0 on this line (DescuentoMonto must be at least 1): remove it'),
    'type.unknown': rule((p) => `must be one of ${p.types}`),
    // A cesión (src/cession/cede.ts; the RPETC's rules, ITEC p.5).
    'cession.monto_over_total': rule((p) => `must not exceed the document's total (${p.total})`),
    'cession.due_before_issue': rule((p) => `must not be before the document's date (${p.date})`),
    'cession.cesionario_is_issuer': rule(() => 'must not be the issuer itself (the cedente)'),
    'cession.email_required': rule(() => "is required: the issuer has no e-mail on record for the AEC's Cedente (eMail)"),
    // The issue request: receiver, lines, references, guías, boletas (src/dte/issue-request.ts).
    'receiver.required': rule(() => 'is required for this document type'),
    'receiver.name_required': rule(() => 'is required for this document type (RznSocRecep)'),
    'receiver.field_required': rule((p) => `is required for type ${p.type} (${p.tag})`),
    'items.none': rule(() => 'must have at least one line'),
    'items.too_many': rule((p) => `must have at most ${p.max} lines`),
    'items.price_required': rule(() => 'is required'),
    'items.price_required_on_sale': rule(() => 'is required on a guía that is a sale (IndTraslado 1)'),
    'items.all_exempt': rule((p) => `every line is exempt: issue type ${p.type} instead`),
    'refs.too_many': rule((p) => `must have at most ${p.max} references`),
    'refs.type_code': rule(() => 'must be a document type code of 1 to 3 letters or digits'),
    'refs.note_requires_ref': rule((p) => `is required for type ${p.type}: the document this note modifies`),
    'refs.date_required': rule(() => 'is required (FchRef)'),
    'refs.code_on_non_tax': rule((p) => `a reference to a non-tax document (${p.ref_type}) carries no CodRef`),
    'refs.code_not_on_note': rule(() => 'CodRef applies only to notes (56, 61)'),
    'refs.text_correction_only_61': rule(() => 'CodRef 2 (text correction) exists only on a credit note (61)'),
    'refs.debit_voids_credit_only': rule(() => 'a debit note voids (CodRef 1) only a credit note (61)'),
    'refs.credit_voided_by_debit': rule(() => 'a credit note is voided by a debit note (56), not by another credit note'),
    'refs.target_type_not_allowed': rule((p) => `a note does not modify a document of type ${p.ref_type} (paper document or guía)`),
    'refs.no_tax_document': rule(() => 'a note references at least one tax document (the one it modifies)'),
    'refs.one_tax_document': rule(() => 'a note that voids or corrects references exactly one tax document (CodRef 1, 2 or 3)'),
    'refs.text_correction_amounts': rule(() => 'a text correction (code 2) carries no amounts: omit price'),
    // References checked against the issuer's documents (src/issuing/references.ts).
    'refs.not_found': rule((p) => `no ${p.env} document of type ${p.type} with folio ${p.folio}`),
    'refs.receiver_mismatch': rule((p) => `must be the receiver of the referenced document ${p.type}/${p.folio} (${p.rut})`),
    'refs.date_mismatch': rule((p) => `must be the date of ${p.type}/${p.folio} (${p.date})`),
    'refs.already_voided': rule((p) => `the referenced document ${p.type}/${p.folio} is already voided`),
    'refs.voiding_note_exists': rule((p) => `the referenced document ${p.type}/${p.folio} is already voided by note ${p.note_type}/${p.note_folio} (${p.estado})`),
    'refs.totals_mismatch': rule((p) => `totals must equal those of ${p.type}/${p.folio} (total ${p.total}: net ${p.net}, exempt ${p.exempt}, VAT ${p.vat})`),
    'refs.credit_exceeds_remaining': rule((p) => `the note credits more than the ${p.remaining} that remain of ${p.type}/${p.folio}`),
    'dispatch.required': rule(() => 'is required for a guía de despacho: { transfer_type: 1..9 }'),
    'dispatch.only_type_52': rule(() => 'applies only to type 52'),
    'dispatch.export_unsupported': rule(() => 'export transfers (8, 9) need customs and foreign-currency fields that Timbre does not support yet'),
    'dispatch.destination_required': rule((p) => `is required when the issuer delivers (${p.tag})`),
    'retention.unsupported': rule(() => 'only 15 (total VAT retention) is supported'),
    'retention.only_type_46': rule(() => 'applies only to type 46'),
    'boleta.no_fma_pago': rule(() => 'boletas have no FmaPago; give payment_method (MedioPago) instead'),
    'boleta.only': rule(() => 'applies only to boletas (39, 41)'),
    'boleta.period_required': rule((p) => `is required for periodic services (service_indicator ${p.indicator}): { from, to }`),
    'boleta.due_date_required': rule(() => 'is required for periodic domiciliary services (FchVenc)'),
    'boleta.address_required': rule((p) => `is required for periodic services (service_indicator ${p.indicator}, DirRecep)`),
    'boleta.identified_buyer_rut': rule((p) => `a boleta above ${p.uf} UF (${p.pesos} pesos at UF ${p.uf_clp}) identifies its buyer: a real RUT, not 66666666-6`),
    'boleta.identified_buyer_name': rule((p) => `a boleta above ${p.uf} UF (${p.pesos} pesos at UF ${p.uf_clp}) carries the buyer's name`),
    'boleta.identified_payment_method': rule((p) => `a boleta above ${p.uf} UF (${p.pesos} pesos at UF ${p.uf_clp}) states its MedioPago`),
    'dispatch.internal_transfer_receiver': rule((p) => `an internal transfer (transfer_type 5) is addressed to the issuer itself (${p.rut})`),
    'boleta.period_order': rule(() => 'must not be before service_period.from'),
    // Operator and dashboard inputs (src/admin/, src/events/webhooks.ts, src/http/idempotency.ts).
    'password.too_short': rule((p) => `must be at least ${p.min} characters`),
    'issuer.activity_code': rule(() => 'must be a 6-digit SII economic activity code'),
    'issuer.ambiente': rule(() => 'must be 0 (sandbox) or 1 (live)'),
    'folio_alert.type': rule((p) => `${p.type} is not a document type (${p.types})`),
    'folio_alert.threshold': rule((p) => `the threshold of type ${p.type} must be a whole number from 0 to 1000000`),
    'folios.quantity': rule((p) => `must be between 1 and ${p.max}`),
    'idempotency.key_format': rule(() => 'must be 1 to 255 printable ASCII characters'),
    'url.not_absolute': rule(() => 'must be an absolute http(s) URL'),
    'url.scheme': rule(() => 'the URL must be http or https'),
    'url.https_required': rule(() => 'live issuers must use an https URL'),
    'url.credentials': rule(() => 'the URL must not carry credentials'),
    'url.not_public': rule((p) => p.host === p.address
        ? `${p.host} is not a public address`
        : `${p.host} resolves to a non-public address (${p.address})`),
    'url.unresolved': rule((p) => `${p.host} does not resolve`),
    // Warnings of a preview: the request is valid, but issuing it would be refused or changed.
    'live.no_resolution': rule(() => 'The issuer has no SII resolution configured: issuing in live would be refused.'),
    'live.no_folios': rule((p) => `There are no live folios for type ${p.type}: request or import a CAF before issuing.`),
};
export const RULE_IDS = Object.keys(RULES);
function ruleMessage(id, ...args) {
    return RULES[id](args[0]);
}
export function ruleDetail(path, id, ...args) {
    const params = args[0];
    return { path, rule: id, message: ruleMessage(id, ...args), ...(params ? { params } : {}) };
}
/** A zod issue for `.refine(check, ruleIssue(…))` and `ctx.addIssue({ code: 'custom', …ruleIssue(…) })`. */
export function ruleIssue(id, ...args) {
    return { message: ruleMessage(id, ...args), params: { rule: id, ...args[0] } };
}
/** `/items/0/qty` segments → `items[0].qty` */
function formatPath(segments) {
    let out = '';
    for (const s of segments) {
        if (typeof s === 'number' || (typeof s === 'string' && /^\d+$/.test(s)))
            out += `[${String(s)}]`;
        else
            out += out ? `.${String(s)}` : String(s);
    }
    return out;
}
const isRuleId = (v) => typeof v === 'string' && Object.hasOwn(RULES, v);
const allowedText = (values) => values.map((v) => String(v)).join(', ');
/** The rule of one zod issue, with its params: ours for refinements, one per zod check otherwise. */
function ruleOf(zodIssue) {
    const issue = zodIssue;
    if (issue.code === 'custom') {
        const { rule, ...params } = issue.params ?? {};
        if (isRuleId(rule)) {
            return { rule, ...(Object.keys(params).length ? { params: params } : {}) };
        }
        return { rule: 'value.invalid' };
    }
    const origin = String(issue.origin ?? '');
    switch (issue.code) {
        case 'invalid_type': {
            const missing = ('input' in issue && issue.input === undefined) || /received undefined$/.test(issue.message);
            if (missing)
                return { rule: 'value.required' };
            if (issue.expected === 'int')
                return { rule: 'number.not_integer' };
            return { rule: 'value.wrong_type', params: { expected: String(issue.expected) } };
        }
        case 'too_small': {
            const min = Number(issue.minimum);
            if (origin === 'string')
                return { rule: 'string.too_short', params: { min } };
            if (origin === 'array' || origin === 'set')
                return { rule: 'array.too_short', params: { min } };
            return { rule: 'number.too_small', params: { min } };
        }
        case 'too_big': {
            const max = Number(issue.maximum);
            if (origin === 'string')
                return { rule: 'string.too_long', params: { max } };
            if (origin === 'array' || origin === 'set')
                return { rule: 'array.too_long', params: { max } };
            return { rule: 'number.too_big', params: { max } };
        }
        case 'invalid_value':
            return { rule: 'value.not_allowed', params: { allowed: allowedText(issue.values ?? []) } };
        case 'invalid_union': {
            // A union of literals (`1 | 2 | 3`) is one rule: the value must be one of them.
            const branches = issue.errors ?? [];
            const values = branches.flatMap((b) => b.length === 1 && b[0]?.code === 'invalid_value'
                ? (b[0].values ?? [])
                : [null]);
            if (values.length && !values.includes(null))
                return { rule: 'value.not_allowed', params: { allowed: allowedText(values) } };
            return { rule: 'value.invalid' };
        }
        case 'unrecognized_keys':
            return { rule: 'object.unknown_key', params: { keys: (issue.keys ?? []).join(', ') } };
        case 'invalid_format':
            return { rule: 'string.format', params: { format: String(issue.format) } };
        default:
            return { rule: 'value.invalid' };
    }
}
/**
 * The one conversion of zod issues to field details. `root` names the field of an issue on the
 * whole input (an unknown key of the body, a refinement over several fields).
 */
export function zodDetails(issues, root = '(root)') {
    return issues.map((issue) => {
        const { rule, params } = ruleOf(issue);
        return { path: formatPath(issue.path) || root, rule, message: issue.message, ...(params ? { params } : {}) };
    });
}
