/**
 * What the PDF renderer prints. An issued document's model (`DteDocument`) is one; a document
 * read from a supplier's DTE (src/receiving/printed-dte.ts) is another, which can be of a type
 * Timbre does not issue (43, 110–112), may not know the issuer's SII resolution (a lone DTE has
 * no Carátula), and brings its totals as the supplier wrote them (other taxes, global discounts
 * and recharges, foreign currency) instead of having them computed.
 */
import type { DteDocument, IssuerInfo } from '../model.ts';

export interface PrintedTotalRow {
  label: string;
  value: string;
  strong?: boolean;
}

export interface PrintedDocument extends Omit<DteDocument, 'type' | 'issuer'> {
  type: number;
  issuer: Omit<IssuerInfo, 'resolutionDate' | 'resolutionNumber'> & {
    resolutionDate?: string;
    resolutionNumber?: number;
  };
  /** The totals block as written in the document; when absent it is computed from `totals`. */
  totalRows?: PrintedTotalRow[];
}
