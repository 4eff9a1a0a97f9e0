/** The page formats and the unit conversion every part of the renderer shares (below draw and barcode). */
export type PdfFormat = 'letter' | '80mm';

/** Points per millimetre (PDF user space is 1/72 inch). */
export const MM = 72 / 25.4;
