/**
 * Magic receiver RUTs: a document whose RUTRecep is one of these gets a forced verdict after
 * passing every real check, so tests can produce each outcome with genuine, valid documents.
 * The real SII has no such rule; the codes (HED-n-90x) are the simulator's own.
 *
 *   RUTRecep 11111111-1 → rejected (RCH), HED-3-901
 *   RUTRecep 22222222-2 → accepted with light objections (RLV), HED-1-902
 *   RUTRecep 33333333-3 → accepted with objections (RPR), HED-2-903
 *
 * All three are valid RUTs (módulo 11), so Timbre's request validation lets them through.
 */
import type { SiiError } from './state.ts';

const MAGIC_RECEIVERS: Readonly<Record<string, SiiError>> = {
  '11111111-1': {
    section: 'HED',
    level: 3,
    code: 901,
    description: 'Rechazo forzado por el simulador (RUTRecep 11111111-1)',
  },
  '22222222-2': {
    section: 'HED',
    level: 1,
    code: 902,
    description: 'Reparo leve forzado por el simulador (RUTRecep 22222222-2)',
  },
  '33333333-3': {
    section: 'HED',
    level: 2,
    code: 903,
    description: 'Reparo forzado por el simulador (RUTRecep 33333333-3)',
  },
};

export function magicReceiverError(receiverRut: string): SiiError | null {
  return MAGIC_RECEIVERS[receiverRut.toUpperCase()] ?? null;
}
