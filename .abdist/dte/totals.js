/**
 * From an accepted issue request to the computed document: line amounts and the document
 * totals, in integer arithmetic (BigInt; quantities and prices scaled by 10^6) with half-up
 * rounding to whole pesos. Every rule cites the SII source (docs/sii-reference.md §4.2–§4.4, [FMT] =
 * "Formato Documentos Tributarios Electrónicos" v2.2).
 *
 * Why integers: binary floating point and banker's rounding give $1 differences that the SII
 * rejects ("El Monto Total No Cuadra", docs/sii-reference.md §4.3): 1 350 × 19 % = 256.5 must be 257.
 */
import { validationError } from '../errors.js';
import { decimalText } from './issue-request.js';
import { isBoleta, referenceCode, } from './model.js';
import { GENERIC_BOLETA_RUT } from './rut.js';
const SCALE = 1000000n; // 6 decimals (Dec12_6Type)
/** A decimal text with ≤ 6 decimals as an integer of millionths. */
export function toMicros(text) {
    const [int = '0', frac = ''] = text.split('.');
    return BigInt(int) * SCALE + BigInt(frac.padEnd(6, '0').slice(0, 6));
}
/** Half-up division of non-negative integers: 0.5 goes up ([FMT]; docs/sii-reference.md §4.3). */
export function divRoundHalfUp(numerator, denominator) {
    return (numerator * 2n + denominator) / (denominator * 2n);
}
/** IVA = round_half_up(neto × rate / 100) — [FMT] field IVA; docs/sii-reference.md §4.3. */
export function vatOf(net, ratePercent) {
    return Number(divRoundHalfUp(BigInt(net) * BigInt(ratePercent), 100n));
}
/**
 * Gross (VAT included) to net for boletas and MntBruto documents: neto = round(afecto / 1.rate),
 * IVA = afecto − neto, by subtraction and never recomputed from the net, so neto + IVA always
 * equals the gross the customer paid (docs/sii-reference.md §4.3: 680 → 571 + 109, not 571 + 108).
 */
export function splitGross(gross, ratePercent) {
    const net = Number(divRoundHalfUp(BigInt(gross) * 100n, BigInt(100 + ratePercent)));
    return { net, vat: gross - net };
}
function tooLarge(path) {
    return validationError(path, 'amount.too_large');
}
const safe = (v, path) => {
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
        throw tooLarge(path);
    return Number(v);
};
/**
 * MontoItem = PrcItem × QtyItem − DescuentoMonto ([FMT] field 38), each product rounded half-up
 * to whole pesos; DescuentoMonto = round_half_up(PrcItem × QtyItem × DescuentoPct / 100).
 */
export function lineAmounts(qty, price, discountPct, path) {
    if (price === undefined)
        return { amount: 0, discountAmount: undefined };
    const exact = toMicros(qty) * toMicros(price); // scaled by 10^12
    const gross = divRoundHalfUp(exact, SCALE * SCALE);
    let discount = 0n;
    if (discountPct !== undefined) {
        const pct = toMicros(decimalText(discountPct) ?? '0'); // scaled by 10^6
        discount = divRoundHalfUp(exact * pct, SCALE * SCALE * SCALE * 100n);
    }
    return {
        amount: safe(gross - discount, path),
        discountAmount: discountPct !== undefined ? safe(discount, path) : undefined,
    };
}
/** Types whose lines are all exempt by definition: 34 (factura exenta) and 41 (boleta exenta). */
const ALL_EXEMPT = [34, 41];
function buildLine(item, index, type, textCorrection) {
    // SII format rule 10: on 34/41 the whole document is exempt, so lines are not marked IndExe ([FMT]
    // Detalle field IndExe, footnote 10: not used when the document is exempt as a whole).
    const qty = decimalText(item.qty) ?? '1';
    const price = textCorrection || item.price === undefined || item.price === 0 ? undefined : decimalText(item.price);
    const { amount, discountAmount } = lineAmounts(qty, price, price ? item.discount_pct : undefined, `items[${index}]`);
    // DescuentoMonto is MntImpType (≥ 1) in DTE_v10.xsd, so it cannot be written as 0: a percentage
    // that amounts to less than half a peso is refused rather than silently dropped.
    if (discountAmount === 0) {
        throw invalid(`items[${index}].discount_pct`, 'amount.discount_zero');
    }
    return {
        number: index + 1,
        name: item.name,
        ...(item.description !== undefined && { description: item.description }),
        ...(item.code !== undefined && { code: item.code }),
        ...(item.unit !== undefined && { unit: item.unit }),
        qty,
        ...(price !== undefined && { price }),
        exempt: !ALL_EXEMPT.includes(type) && item.exempt === true,
        ...(price !== undefined && item.discount_pct !== undefined && { discountPct: decimalText(item.discount_pct) }),
        // SII format rule 8: a percentage discount always carries its amount ([FMT] Detalle field 30: "Si va el
        // descuento en %, debe ir el monto correspondiente"); one that rounds to 0 is refused above.
        ...(discountAmount !== undefined && { discountAmount }),
        amount,
    };
}
/** Above this many UF a boleta identifies its buyer and its MedioPago (Ley 21.713, [FMTB] 10, 18, 20). */
const BOLETA_IDENTIFIED_UF = 135;
const invalid = validationError;
/** The whole document model (lines, references, totals) from a validated request. */
export function computeDocument(req, ctx) {
    const type = req.type;
    const rate = ctx.issuer.vatRate;
    const refs = (req.refs ?? []).map((r, i) => {
        const refType = String(r.type).toUpperCase();
        const code = referenceCode(type, r.code, refType);
        return {
            number: i + 1,
            type: refType,
            folio: String(r.folio),
            date: r.date ?? ctx.date,
            ...(code !== undefined && { code }),
            ...(r.reason !== undefined && { reason: r.reason }),
        };
    });
    const note = type === 56 || type === 61;
    const textCorrection = note && refs.some((r) => r.code === 2);
    const lines = req.items.map((item, i) => buildLine(item, i, type, textCorrection));
    // SII format rule 4: a note on a boleta takes gross prices as the boleta did (MntBruto 1, [FMT] field 10).
    const grossPrices = note && refs.some((r) => r.type === '39') && lines.some((l) => !l.exempt);
    // SII format rule 5: a note on a factura de compra carries its VAT retention (ImptoReten 15 applies to
    // notes 55/56/60/61, [FMT] table of additional taxes and retentions).
    const retains = type === 46 || (note && refs.some((r) => r.type === '46'));
    const sum = (pred) => safe(lines.filter(pred).reduce((s, l) => s + BigInt(l.amount), 0n), 'items');
    const exemptType = ALL_EXEMPT.includes(type);
    const taxable = exemptType ? 0 : sum((l) => !l.exempt);
    const exempt = exemptType ? sum(() => true) : sum((l) => l.exempt);
    let totals;
    if (type === 39 || grossPrices) {
        // Boleta: prices include VAT; MntNeto and IVA are back-computed from the gross ([FMTB]).
        const { net, vat } = splitGross(taxable, rate);
        totals = { net, exempt, vat, vatRate: rate, total: safe(BigInt(taxable) + BigInt(exempt), 'items') };
    }
    else if (ALL_EXEMPT.includes(type)) {
        // 34 / 41: MntExe = MntTotal, no MntNeto, no IVA ([FMT] note 10, docs/sii-reference.md §4.4).
        totals = { net: 0, exempt, vat: 0, vatRate: rate, total: exempt };
    }
    else {
        // 33, 46, 52, 56, 61: prices are net; IVA = round(MntNeto × TasaIVA) ([FMT] field 124).
        const vat = vatOf(taxable, rate);
        totals = {
            net: taxable,
            exempt,
            vat,
            vatRate: rate,
            total: safe(BigInt(taxable) + BigInt(exempt) + BigInt(vat), 'items'),
        };
        if (retains) {
            // Factura de compra with total VAT retention (ImptoReten code 15): the buyer retains the
            // whole IVA, so MntTotal = MntNeto + MntExe (docs/sii-reference.md §4.4).
            const code = req.retention_code ?? 15;
            totals = { ...totals, total: totals.total - vat, retention: { code, rate, amount: vat } };
        }
    }
    const receiver = receiverOf(req, ctx.issuer);
    if (isBoleta(type) && ctx.ufClp && totals.total > BOLETA_IDENTIFIED_UF * ctx.ufClp) {
        const limit = { uf: BOLETA_IDENTIFIED_UF, pesos: BOLETA_IDENTIFIED_UF * ctx.ufClp, uf_clp: ctx.ufClp };
        if (receiver.rut === GENERIC_BOLETA_RUT)
            throw invalid('receiver.rut', 'boleta.identified_buyer_rut', limit);
        if (!receiver.name)
            throw invalid('receiver.name', 'boleta.identified_buyer_name', limit);
        if (req.payment_method === undefined)
            throw invalid('payment_method', 'boleta.identified_payment_method', limit);
    }
    return {
        type,
        folio: ctx.folio,
        date: ctx.date,
        issuer: ctx.issuer,
        receiver,
        lines,
        refs,
        totals,
        ...(req.dispatch && { dispatch: dispatchOf(req.dispatch) }),
        ...(isBoleta(type) && { serviceIndicator: req.service_indicator ?? 3 }),
        // SII format rule 1: FmaPago on every type whose IdDoc has it (not boletas), default 1 contado.
        ...(!isBoleta(type) && { payment: req.payment ?? 1 }),
        ...(grossPrices && { grossPrices }),
        ...(req.payment_method !== undefined && { paymentMethod: req.payment_method }),
        ...(req.service_period && { servicePeriod: req.service_period }),
        ...(req.due_date !== undefined && { dueDate: req.due_date }),
        ...(isBoleta(type) && ctx.softwareProviderRut && { softwareProviderRut: ctx.softwareProviderRut }),
    };
}
/**
 * The receiver: as sent; on boletas without one the SII's generic customer 66666666-6 ([FMTB]);
 * on a guía 52 of IndTraslado 5 (traslado interno) the issuer itself ([MUE]).
 */
function receiverOf(req, issuer) {
    if (req.type === 52 && req.dispatch?.transfer_type === 5) {
        if (req.receiver && req.receiver.rut !== issuer.rut) {
            throw invalid('receiver.rut', 'dispatch.internal_transfer_receiver', { rut: issuer.rut });
        }
        return {
            rut: issuer.rut,
            name: issuer.name,
            activity: [...issuer.giro].slice(0, 40).join('').trim(),
            address: issuer.address,
            comuna: issuer.comuna,
            ...(issuer.city && { city: issuer.city }),
            ...req.receiver,
        };
    }
    return req.receiver ? { ...req.receiver } : { rut: GENERIC_BOLETA_RUT };
}
function dispatchOf(d) {
    const t = d.transport;
    return {
        transferType: d.transfer_type,
        ...(d.dispatch_type !== undefined && { dispatchType: d.dispatch_type }),
        ...(t && {
            transport: {
                ...(t.plate !== undefined && { plate: t.plate }),
                ...(t.carrier_rut !== undefined && { carrierRut: t.carrier_rut }),
                ...(t.driver && { driver: { rut: t.driver.rut, name: t.driver.name } }),
                ...(t.address !== undefined && { address: t.address }),
                ...(t.comuna !== undefined && { comuna: t.comuna }),
                ...(t.city !== undefined && { city: t.city }),
            },
        }),
    };
}
