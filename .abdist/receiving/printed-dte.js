import { at, child, childElements, textOf } from '../dte/dom.js';
import { formatAmount, formatDecimal } from '../dte/pdf/index.js';
import { parseXml, stripXmlDeclaration } from '../dte/xmldsig.js';
import { decodeReceived } from './checks.js';
/** The SII's certification CAF key (docs/sii-reference.md §2): its documents have no tax value. */
const CERTIFICATION_IDK = 100;
const DOCUMENT_ELEMENTS = ['Documento', 'Liquidacion', 'Exportaciones'];
const orUndefined = (s) => (s === '' ? undefined : s);
/** Suppliers pad names and giros with runs of spaces and line breaks; one space prints them. */
const oneLine = (s) => s.replace(/\s+/g, ' ');
const decimal = (s) => (/^-?\d+(\.\d+)?$/.test(s) ? s : undefined);
const number = (s) => (decimal(s) === undefined ? 0 : Number(s));
/** Names of the taxes and retentions of `ImptoReten/TipoImp` ([FMT] table of additional taxes). */
const TAX_NAMES = {
    '14': 'IVA de margen de comercialización',
    '15': 'IVA retenido total',
    '17': 'IVA anticipado faenamiento carne',
    '18': 'IVA anticipado carne',
    '19': 'IVA anticipado harina',
    '23': 'Impuesto adicional art. 37 a), b), c)',
    '24': 'Impuesto licores, piscos, whisky',
    '25': 'Impuesto vinos',
    '26': 'Impuesto cervezas',
    '27': 'Impuesto bebidas analcohólicas',
    '271': 'Impuesto bebidas azucaradas',
    '28': 'Impuesto específico diésel',
    '30': 'IVA retenido legumbres',
    '31': 'IVA retenido silvestres',
    '32': 'IVA retenido ganado',
    '33': 'IVA retenido madera',
    '34': 'IVA retenido trigo',
    '35': 'Impuesto específico gasolina',
    '36': 'IVA retenido arroz',
    '37': 'IVA retenido hidrobiológicas',
    '38': 'IVA retenido chatarra',
    '39': 'IVA retenido PPA',
    '41': 'IVA retenido construcción',
    '46': 'IVA retenido oro',
    '47': 'IVA retenido cartones',
    '48': 'IVA retenido frambuesas y pasas',
};
function firstCode(detalle) {
    return orUndefined(textOf(child(child(detalle, 'CdgItem'), 'VlrCodigo')));
}
function readLine(d, i) {
    const indExe = textOf(child(d, 'IndExe'));
    const discountAmount = number(textOf(child(d, 'DescuentoMonto')));
    const line = {
        number: Number(textOf(child(d, 'NroLinDet'))) || i + 1,
        name: textOf(child(d, 'NmbItem')),
        qty: decimal(textOf(child(d, 'QtyItem'))) ?? '',
        // IndExe 1 exempt, 2 not billable, 6 non-billable goods… ([FMT] Detalle IndExe): all print as exempt.
        exempt: indExe !== '' && indExe !== '0',
        amount: number(textOf(child(d, 'MontoItem'))),
    };
    const description = orUndefined(textOf(child(d, 'DscItem')));
    const code = firstCode(d);
    const unit = orUndefined(textOf(child(d, 'UnmdItem')));
    const price = decimal(textOf(child(d, 'PrcItem')));
    const discountPct = decimal(textOf(child(d, 'DescuentoPct')));
    return {
        ...line,
        ...(description && { description }),
        ...(code && { code }),
        ...(unit && { unit }),
        ...(price && { price }),
        ...(discountPct && { discountPct }),
        ...(discountAmount > 0 && { discountAmount }),
    };
}
function readReference(r, i) {
    const code = Number(textOf(child(r, 'CodRef')));
    const reason = orUndefined(textOf(child(r, 'RazonRef')));
    return {
        number: Number(textOf(child(r, 'NroLinRef'))) || i + 1,
        type: textOf(child(r, 'TpoDocRef')),
        folio: textOf(child(r, 'FolioRef')),
        date: textOf(child(r, 'FchRef')),
        ...((code === 1 || code === 2 || code === 3) && { code }),
        ...(reason && { reason }),
    };
}
/**
 * The totals block as the document wrote it: each amount present in `Totales`, in the SII's
 * order, then the global discounts and recharges and the amounts in another currency. Pesos
 * print as `$ 1.234`; a document in a foreign currency (exports) prints its amounts with the
 * currency's name.
 */
function readTotalRows(documento) {
    const totales = at(documento, 'Encabezado', 'Totales');
    const currency = textOf(child(totales, 'TpoMoneda'));
    const foreign = currency !== '' && currency.toUpperCase() !== 'PESO CL';
    const money = (text, cur = foreign ? currency : '') => cur ? `${formatDecimal(text)} ${cur}` : `$ ${formatAmount(Math.round(number(text)))}`;
    const rows = [];
    for (const g of childElements(documento).filter((e) => e.localName === 'DscRcgGlobal')) {
        const discount = textOf(child(g, 'TpoMov')) === 'D';
        const value = textOf(child(g, 'ValorDR'));
        const gloss = textOf(child(g, 'GlosaDR'));
        const amount = textOf(child(g, 'TpoValor')) === '%' ? `${formatDecimal(value)} %` : money(value);
        rows.push({
            label: `${discount ? 'Descuento' : 'Recargo'} global${gloss ? ` (${gloss})` : ''}`,
            value: discount ? `-${amount}` : amount,
        });
    }
    const field = (name, label) => {
        const text = textOf(child(totales, name));
        if (decimal(text) !== undefined)
            rows.push({ label, value: money(text) });
    };
    const vatRate = number(textOf(child(totales, 'TasaIVA')));
    field('MntNeto', 'Monto neto');
    field('MntExe', 'Monto exento');
    field('MntBase', 'Monto base faenamiento');
    field('IVA', vatRate ? `IVA ${formatDecimal(String(vatRate))}%` : 'IVA');
    field('IVAProp', 'IVA propio');
    field('IVATerc', 'IVA terceros');
    for (const t of (totales ? childElements(totales) : []).filter((e) => e.localName === 'ImptoReten')) {
        const code = textOf(child(t, 'TipoImp'));
        const rate = textOf(child(t, 'TasaImp'));
        const name = TAX_NAMES[code] ?? `Impuesto (cód. ${code})`;
        rows.push({
            label: `${name}${rate ? ` ${formatDecimal(rate)}%` : ''}`,
            value: money(textOf(child(t, 'MontoImp'))),
        });
    }
    field('IVANoRet', 'IVA no retenido');
    field('CredEC', 'Crédito especial empresas constructoras');
    field('GrntDep', 'Garantía por depósito de envases');
    const total = textOf(child(totales, 'MntTotal'));
    rows.push({ label: foreign ? `TOTAL (${currency})` : 'TOTAL', value: money(total || '0'), strong: true });
    field('MontoNF', 'Monto no facturable');
    field('SaldoAnterior', 'Saldo anterior');
    field('VlrPagar', 'Valor a pagar');
    const other = at(documento, 'Encabezado', 'OtraMoneda');
    if (other) {
        const cur = textOf(child(other, 'TpoMoneda')) || 'otra moneda';
        const rate = textOf(child(other, 'TpoCambio'));
        const otherTotal = textOf(child(other, 'MntTotOtrMnda'));
        if (decimal(otherTotal) !== undefined) {
            rows.push({
                label: `Total en ${cur}${rate ? ` (tipo de cambio ${formatDecimal(rate)})` : ''}`,
                value: `${formatDecimal(otherTotal)} ${cur}`,
            });
        }
    }
    return { rows, vatRate };
}
/** The `<TED>…</TED>` element of the DTE's text as written; null when there is none. */
function tedElement(text) {
    return /<TED\b[^>]*>[\s\S]*?<\/TED>/.exec(text)?.[0] ?? null;
}
/**
 * Reads a stored received DTE (its bytes as received) for printing. `resolution` is the
 * supplier's SII resolution from the envelope's Carátula (FchResol, NroResol), printed under
 * the stamp; a lone DTE has none. Null when the bytes are no readable DTE (the checks refused
 * those before storing, so this is for robustness only).
 */
export function printedReceivedDte(bytes, resolution) {
    const { text, singleByte } = decodeReceived(bytes);
    let root;
    try {
        root = parseXml(stripXmlDeclaration(text)).documentElement;
    }
    catch {
        return null;
    }
    if (root?.localName !== 'DTE')
        return null;
    const documento = childElements(root).find((e) => DOCUMENT_ELEMENTS.includes(e.localName ?? ''));
    if (!documento)
        return null;
    const idDoc = at(documento, 'Encabezado', 'IdDoc');
    const emisor = at(documento, 'Encabezado', 'Emisor');
    const receptor = at(documento, 'Encabezado', 'Receptor');
    const transporte = at(documento, 'Encabezado', 'Transporte');
    const totales = at(documento, 'Encabezado', 'Totales');
    const { rows, vatRate } = readTotalRows(documento);
    const payment = Number(textOf(child(idDoc, 'FmaPago')));
    const transferType = Number(textOf(child(idDoc, 'IndTraslado')));
    const dispatchType = Number(textOf(child(idDoc, 'TipoDespacho')));
    const opt = (el, name) => orUndefined(oneLine(textOf(child(el, name))));
    const chofer = child(transporte, 'Chofer');
    const doc = {
        type: Number(textOf(child(idDoc, 'TipoDTE'))),
        folio: Number(textOf(child(idDoc, 'Folio'))),
        date: textOf(child(idDoc, 'FchEmis')),
        issuer: {
            rut: textOf(child(emisor, 'RUTEmisor')),
            // RznSoc / GiroEmis on facturas, RznSocEmisor / GiroEmisor on boletas (DTE_v10.xsd Emisor).
            name: oneLine(textOf(child(emisor, 'RznSoc')) || textOf(child(emisor, 'RznSocEmisor'))),
            giro: oneLine(textOf(child(emisor, 'GiroEmis')) || textOf(child(emisor, 'GiroEmisor'))),
            acteco: (emisor ? childElements(emisor) : []).filter((e) => e.localName === 'Acteco').map((e) => textOf(e)),
            address: textOf(child(emisor, 'DirOrigen')),
            comuna: textOf(child(emisor, 'CmnaOrigen')),
            city: opt(emisor, 'CiudadOrigen') ?? null,
            vatRate: vatRate || 19,
            ...(resolution && { resolutionDate: resolution.date, resolutionNumber: resolution.number }),
        },
        receiver: {
            rut: textOf(child(receptor, 'RUTRecep')),
            ...definedOnly({
                name: opt(receptor, 'RznSocRecep'),
                activity: opt(receptor, 'GiroRecep'),
                address: opt(receptor, 'DirRecep'),
                comuna: opt(receptor, 'CmnaRecep'),
                city: opt(receptor, 'CiudadRecep'),
                email: opt(receptor, 'CorreoRecep'),
            }),
        },
        lines: childElements(documento)
            .filter((e) => e.localName === 'Detalle')
            .map(readLine),
        refs: childElements(documento)
            .filter((e) => e.localName === 'Referencia')
            .map(readReference),
        totals: {
            net: number(textOf(child(totales, 'MntNeto'))),
            exempt: number(textOf(child(totales, 'MntExe'))),
            vat: number(textOf(child(totales, 'IVA'))),
            vatRate,
            total: number(textOf(child(totales, 'MntTotal'))),
        },
        totalRows: rows,
        ...((payment === 1 || payment === 2 || payment === 3) && { payment }),
        ...(textOf(child(idDoc, 'MntBruto')) === '1' && { grossPrices: true }),
        ...(transferType > 0 && {
            dispatch: {
                transferType,
                ...(dispatchType > 0 && { dispatchType }),
                ...(transporte && {
                    transport: definedOnly({
                        plate: opt(transporte, 'Patente'),
                        carrierRut: opt(transporte, 'RUTTrans'),
                        driver: chofer
                            ? { rut: textOf(child(chofer, 'RUTChofer')), name: textOf(child(chofer, 'NombreChofer')) }
                            : undefined,
                        address: opt(transporte, 'DirDest'),
                        comuna: opt(transporte, 'CmnaDest'),
                        city: opt(transporte, 'CiudadDest'),
                    }),
                }),
            },
        }),
    };
    // The TED as it stands in the received bytes (one character per byte); a UTF-8 file's TED
    // is written back in ISO-8859-1, the encoding FRMT signs (docs/sii-reference.md §3.2).
    const written = tedElement(singleByte ? bytes.toString('latin1') : text);
    if (!written)
        return null;
    const ted = singleByte ? written : written.replace(/[^\x00-\xff]/g, '?');
    const idk = /<IDK>\s*(\d+)\s*<\/IDK>/.exec(ted)?.[1];
    return { doc, ted, certification: Number(idk) === CERTIFICATION_IDK };
}
function definedOnly(o) {
    return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
