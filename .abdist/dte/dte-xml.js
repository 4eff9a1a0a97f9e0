import { isBoleta } from './model.js';
import { escapeXml } from './xml-text.js';
export const SII_NS = 'http://www.sii.cl/SiiDte';
/** `Documento/@ID`, an xs:ID referenced by the signature: "T33F60". */
export function documentIdOf(type, folio) {
    return `T${type}F${folio}`;
}
function render(nodes) {
    let out = '';
    for (const [name, value] of nodes) {
        if (value === undefined)
            continue;
        if (Array.isArray(value))
            out += `<${name}>\n${render(value)}</${name}>\n`;
        else
            out += `<${name}>${typeof value === 'number' ? String(value) : escapeXml(value)}</${name}>\n`;
    }
    return out;
}
const opt = (cond, value) => (cond ? value : undefined);
function idDoc(doc) {
    const boleta = isBoleta(doc.type);
    return [
        ['TipoDTE', doc.type],
        ['Folio', doc.folio],
        ['FchEmis', doc.date],
        // Guía de despacho: TipoDespacho, then IndTraslado (required for 52, docs/sii-reference.md §4.4).
        ['TipoDespacho', doc.dispatch?.dispatchType],
        ['IndTraslado', doc.dispatch?.transferType],
        // Boletas: IndServicio is required ([FMTB]; 3 = ventas y servicios by default).
        ['IndServicio', opt(boleta, doc.serviceIndicator ?? 3)],
        // Notes on a boleta: line amounts are gross ([FMT] field 10 MntBruto).
        ['MntBruto', opt(!boleta && doc.grossPrices === true, 1)],
        // [FMT] field 13 FmaPago; absent, the SII reads 2 (crédito), so it is always written.
        ['FmaPago', opt(!boleta, doc.payment)],
        // Boletas: [FMTB] fields 7–10.
        ['PeriodoDesde', opt(boleta, doc.servicePeriod?.from)],
        ['PeriodoHasta', opt(boleta, doc.servicePeriod?.to)],
        ['FchVenc', opt(boleta, doc.dueDate)],
        ['MedioPago', opt(boleta, doc.paymentMethod)],
    ];
}
/** Guía de despacho: [FMT] Transporte (Patente, RUTTrans, Chofer, DirDest, CmnaDest, CiudadDest). */
function transporte(doc) {
    const t = doc.dispatch?.transport;
    if (!t)
        return undefined;
    return [
        ['Patente', t.plate],
        ['RUTTrans', t.carrierRut],
        [
            'Chofer',
            t.driver && [
                ['RUTChofer', t.driver.rut],
                ['NombreChofer', t.driver.name],
            ],
        ],
        ['DirDest', t.address],
        ['CmnaDest', t.comuna],
        ['CiudadDest', t.city],
    ];
}
function emisor(doc) {
    const i = doc.issuer;
    if (isBoleta(doc.type)) {
        // EnvioBOLETA names: RznSocEmisor / GiroEmisor, no Acteco (docs/sii-reference.md §4.5).
        return [
            ['RUTEmisor', i.rut],
            ['RznSocEmisor', i.name],
            ['GiroEmisor', i.giro],
            ['DirOrigen', i.address],
            ['CmnaOrigen', i.comuna],
            ['CiudadOrigen', i.city ?? undefined],
        ];
    }
    return [
        ['RUTEmisor', i.rut],
        ['RznSoc', i.name],
        ['GiroEmis', i.giro],
        ...i.acteco.slice(0, 4).map((code) => ['Acteco', code]),
        ['DirOrigen', i.address],
        ['CmnaOrigen', i.comuna],
        ['CiudadOrigen', i.city ?? undefined],
    ];
}
function receptor(doc) {
    const r = doc.receiver;
    const boleta = isBoleta(doc.type);
    return [
        ['RUTRecep', r.rut],
        ['RznSocRecep', r.name],
        ['GiroRecep', opt(!boleta, r.activity)],
        ['CorreoRecep', r.email],
        ['DirRecep', r.address],
        ['CmnaRecep', r.comuna],
        ['CiudadRecep', r.city],
    ];
}
function totales(doc) {
    const t = doc.totals;
    // 34/41 are exempt as a whole: their lines carry no IndExe but are all exempt ([FMT] note 10).
    const hasTaxable = doc.type !== 34 && doc.type !== 41 && doc.lines.some((l) => !l.exempt);
    const allZero = t.total === 0 && t.net === 0 && t.exempt === 0;
    const textCorrection = doc.refs.some((r) => r.code === 2) && (doc.type === 56 || doc.type === 61);
    if (doc.type === 52 && allZero)
        return [['MntTotal', 0]]; // transfer without prices
    if (textCorrection) {
        // NC/ND "corrige texto": MntNeto 0, TasaIVA, IVA 0, MntTotal 0 ([FMT §E], docs/sii-reference.md §4.4).
        return [
            ['MntNeto', 0],
            ['TasaIVA', t.vatRate],
            ['IVA', 0],
            ['MntTotal', 0],
        ];
    }
    if (isBoleta(doc.type)) {
        return [
            ['MntNeto', opt(hasTaxable, t.net)],
            ['MntExe', opt(t.exempt > 0 || !hasTaxable, t.exempt)],
            ['IVA', opt(hasTaxable, t.vat)],
            ['MntTotal', t.total],
        ];
    }
    const retention = t.retention && t.retention.amount > 0
        ? [
            'ImptoReten',
            [
                ['TipoImp', t.retention.code],
                ['TasaImp', t.retention.rate],
                ['MontoImp', t.retention.amount],
            ],
        ]
        : undefined;
    return [
        ['MntNeto', opt(hasTaxable, t.net)],
        ['MntExe', opt(t.exempt > 0 || !hasTaxable, t.exempt)],
        ['TasaIVA', opt(hasTaxable, t.vatRate)],
        ['IVA', opt(hasTaxable, t.vat)],
        ...(retention ? [retention] : []),
        ['MntTotal', t.total],
    ];
}
function detalle(doc, line) {
    const retained = doc.totals.retention && !line.exempt && line.amount > 0;
    return [
        ['NroLinDet', line.number],
        [
            'CdgItem',
            line.code === undefined
                ? undefined
                : [
                    ['TpoCodigo', 'INT1'],
                    ['VlrCodigo', line.code],
                ],
        ],
        ['IndExe', opt(line.exempt, 1)],
        ['NmbItem', line.name],
        ['DscItem', line.description],
        ['QtyItem', line.qty],
        ['UnmdItem', line.unit],
        ['PrcItem', line.price],
        ['DescuentoPct', line.discountPct],
        ['DescuentoMonto', line.discountAmount],
        // Factura de compra: the retained tax is named on each taxable line (docs/sii-reference.md §4.4).
        ['CodImpAdic', opt(Boolean(retained), doc.totals.retention?.code)],
        ['MontoItem', line.amount],
    ];
}
function referencia(doc, ref) {
    const boleta = isBoleta(doc.type);
    return [
        ['NroLinRef', ref.number],
        ['TpoDocRef', ref.type],
        ['FolioRef', ref.folio],
        // Boletas have no FchRef (docs/sii-reference.md §4.5).
        ['FchRef', opt(!boleta, ref.date)],
        ['CodRef', ref.code],
        ['RazonRef', ref.reason],
    ];
}
/** The unsigned DTE (no XML declaration) and the `Documento/@ID` the signature references. */
export function buildDteXml(doc, opts) {
    const documentId = documentIdOf(doc.type, doc.folio);
    const encabezado = render([
        [
            'Encabezado',
            [
                ['IdDoc', idDoc(doc)],
                ['Emisor', emisor(doc)],
                ['Receptor', receptor(doc)],
                // Boletas: RUTProvSW, the software provider ([FMTB] field 30), when configured.
                ['RUTProvSW', opt(isBoleta(doc.type), doc.softwareProviderRut)],
                ['Transporte', transporte(doc)],
                ['Totales', totales(doc)],
            ],
        ],
    ]);
    const body = render(doc.lines.map((l) => ['Detalle', detalle(doc, l)])) +
        render(doc.refs.map((r) => ['Referencia', referencia(doc, r)]));
    const xml = `<DTE version="1.0" xmlns="${SII_NS}">\n<Documento ID="${documentId}">\n${encabezado}${body}` +
        `${opts.ted}\n<TmstFirma>${opts.timestamp}</TmstFirma>\n</Documento>\n</DTE>`;
    return { xml, documentId };
}
