/**
 * The local SII simulator (docs/design.md §6): `createSiiSimulator()` and its types. See README.md.
 */
export { MAGIC_RECEIVERS } from './magic.ts';
export type { FaultKind, FaultSpec } from './faults.ts';
export type { RegisteredIssuer } from './state.ts';
export {
  createSiiSimulator,
  DEFAULT_STEP_DELAY_MS,
  type SiiSimulator,
  type SiiSimulatorOptions,
  type UploadSummary,
} from './simulator.ts';
