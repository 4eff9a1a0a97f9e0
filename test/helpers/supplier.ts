/**
 * A stand-in supplier for receiving tests (README "Received documents"): the SII simulator's
 * (src/sii-simulator/supplier.ts), with a CAF signed by a fresh stand-in SII key whose public
 * half the app under test trusts through TIMBRE_EXTRA_CAF_KEYS.
 */
export { SUPPLIER, type Supplier, standInSupplier } from '../../src/sii-simulator/supplier.ts';
