/**
 * What the simulator's endpoints share: the clock, seeds and tokens, the processing of
 * uploads, the registered issuers and the CAF issuer. One per simulator instance.
 */
import type { AuthStore } from './auth.ts';
import type { CafIssuer } from './caf-issuer.ts';
import type { Processor } from './processing.ts';
import type { RegistroStore } from './registro-store.ts';
import type { RpetcRegistry } from './rpetc-store.ts';
import type { RegisteredIssuer } from './state.ts';

export interface SimContext {
  clock: () => Date;
  auth: AuthStore;
  processor: Processor;
  issuers: Map<string, RegisteredIssuer>;
  cafs: CafIssuer;
  /** The claims registry's documents, events and authorisations. */
  registro: RegistroStore;
  /** The registry of cesiones (RPETC): AEC uploads, their states, the cesiones per document. */
  rpetc: RpetcRegistry;
  /** NUM_ATENCION of the query services: a counter and the time. */
  nextAttentionNumber(): string;
}
