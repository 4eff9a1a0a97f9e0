/**
 * The local SII simulator (docs/design.md §6): `createSiiSimulator()` and its types. See README.md.
 */
export { createSiiSimulator } from './simulator.js';
