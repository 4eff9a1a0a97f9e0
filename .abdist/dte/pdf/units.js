/** Points per millimetre (PDF user space is 1/72 inch). */
export const MM = 72 / 25.4;
