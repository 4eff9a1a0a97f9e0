/**
 * The tax-document model shared by the pure `dte/` modules: totals computation produces it,
 * the XML builder, the TED and the PDF renderer consume it. Amounts are whole pesos
 * (integers); quantities and unit prices keep the caller's decimal text (up to 6 decimals, as
 * DTE_v10.xsd `QtyItem`/`PrcItem` allow) so nothing is lost to binary floating point.
 */

export const DTE_TYPES = [33, 34, 39, 41, 46, 52, 56, 61] as const;
export type DteType = (typeof DTE_TYPES)[number];

export const isBoleta = (t: DteType): boolean => t === 39 || t === 41;

/**
 * The CodRef of a reference ([FMT] Referencias, CodRef): as given, or by default 1 (voids) on a
 * 61 and 3 (corrects amounts) on a 56, but only for references to tax documents. References to
 * non-tax documents (801 orden de compra, 802, HES, SET …) never get one.
 */
export function referenceCode(type: DteType, code: 1 | 2 | 3 | undefined, refType: string): 1 | 2 | 3 | undefined {
  if (code !== undefined) return code;
  if (!/^\d+$/.test(refType) || Number(refType) >= 800) return undefined;
  return type === 61 ? 1 : type === 56 ? 3 : undefined;
}

/** Document names as printed on the boxed header (SII "Manual de Muestras Impresas"). */
export const DTE_NAMES: Record<DteType, string> = {
  33: 'FACTURA ELECTRÓNICA',
  34: 'FACTURA NO AFECTA O EXENTA ELECTRÓNICA',
  39: 'BOLETA ELECTRÓNICA',
  41: 'BOLETA NO AFECTA O EXENTA ELECTRÓNICA',
  46: 'FACTURA DE COMPRA ELECTRÓNICA',
  52: 'GUÍA DE DESPACHO ELECTRÓNICA',
  56: 'NOTA DE DÉBITO ELECTRÓNICA',
  61: 'NOTA DE CRÉDITO ELECTRÓNICA',
};

/** The issuing company, as configured by the operator (DB row → this shape). */
export interface IssuerInfo {
  rut: string;
  /** RznSoc / RznSocEmisor, ≤ 100 chars. */
  name: string;
  /** GiroEmis / GiroEmisor, ≤ 80 chars. */
  giro: string;
  /** Acteco codes, 1..4 six-digit codes (not used by boletas). */
  acteco: string[];
  address: string;
  comuna: string;
  city?: string | null;
  /** VAT rate in percent (19 by default). */
  vatRate: number;
  /** SII resolution authorising the issuer (FchResol / NroResol), printed under the stamp. */
  resolutionDate: string;
  resolutionNumber: number;
  /** The SII unit printed "S.I.I. - <unit>" under the red box ([MUE] §1.1.7); not printed when unset. */
  siiOffice?: string | null;
}

export interface ReceiverInfo {
  rut: string;
  name?: string;
  activity?: string;
  address?: string;
  comuna?: string;
  city?: string;
  email?: string;
}

export interface DocumentLine {
  /** NroLinDet, 1-based. */
  number: number;
  name: string;
  description?: string;
  code?: string;
  unit?: string;
  /** Decimal text as sent by the caller, normalised (no trailing zeros), e.g. "2", "1.5". */
  qty: string;
  /** Unit price, decimal text; absent for items without a price (guía without prices). */
  price?: string;
  /** IndExe = 1 (exempt / not subject to VAT). */
  exempt: boolean;
  discountPct?: string;
  /** DescuentoMonto, whole pesos. */
  discountAmount?: number;
  /** MontoItem, whole pesos = round_half_up(qty × price) − discount. */
  amount: number;
}

export interface DocumentReference {
  /** NroLinRef, 1-based. */
  number: number;
  /** TpoDocRef: a DTE type or another SII code (801 …) or free alnum text. */
  type: string;
  /** FolioRef (≤ 18 alnum). */
  folio: string;
  /** FchRef YYYY-MM-DD. */
  date: string;
  /** CodRef: 1 voids, 2 corrects text, 3 corrects amounts. */
  code?: 1 | 2 | 3;
  reason?: string;
}

interface Retention {
  /** ImptoReten/TipoImp, e.g. 15 = total VAT retention. */
  code: number;
  /** TasaImp in percent. */
  rate: number;
  /** MontoImp, whole pesos. */
  amount: number;
}

export interface DocumentTotals {
  /** MntNeto (taxable amount). */
  net: number;
  /** MntExe. */
  exempt: number;
  /** IVA. */
  vat: number;
  /** TasaIVA in percent (not emitted for boletas or all-exempt documents). */
  vatRate: number;
  /** MntTotal. */
  total: number;
  retention?: Retention;
}

interface DispatchInfo {
  /** IndTraslado 1..9. */
  transferType: number;
  /** TipoDespacho 1..3. */
  dispatchType?: number;
  /** [FMT] Transporte. */
  transport?: {
    plate?: string;
    carrierRut?: string;
    driver?: { rut: string; name: string };
    address?: string;
    comuna?: string;
    city?: string;
  };
}

/** A fully computed document, ready to be rendered as XML, stamped and printed. */
export interface DteDocument {
  type: DteType;
  folio: number;
  /** FchEmis YYYY-MM-DD. */
  date: string;
  issuer: IssuerInfo;
  receiver: ReceiverInfo;
  lines: DocumentLine[];
  refs: DocumentReference[];
  totals: DocumentTotals;
  dispatch?: DispatchInfo;
  /** Boletas: IndServicio (1..4). */
  serviceIndicator?: number;
  /** FmaPago ([FMT] field 13), every non-boleta type: 1 contado, 2 crédito, 3 sin costo. */
  payment?: 1 | 2 | 3;
  /** MntBruto = 1 ([FMT] field 10): line prices include VAT (notes on a boleta). */
  grossPrices?: boolean;
  /** Boletas: MedioPago ([FMTB] field 10). */
  paymentMethod?: number;
  /** Boletas: PeriodoDesde / PeriodoHasta ([FMTB] fields 7, 8). */
  servicePeriod?: { from: string; to: string };
  /** Boletas: FchVenc ([FMTB] field 9). */
  dueDate?: string;
  /** Boletas: RUTProvSW ([FMTB] field 30), when the operator configures it. */
  softwareProviderRut?: string;
}
