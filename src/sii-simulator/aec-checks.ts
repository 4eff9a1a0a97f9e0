/**
 * TEMPORARY PLACEHOLDER on branch `rpetc` only: the registry's content checks of an AEC are
 * written on branch `aec` with this exact interface, and replace this file at the merge. Until
 * then every AEC is refused at the first check, so nothing is registered by an upload.
 */
export type AecEstado = 'RSC' | 'RFS' | 'RCR' | 'RDC' | 'RCS' | 'EOK';

export interface AecVerdict {
  estado: AecEstado;
  glosa: string;
  cesion?: {
    issuerRut: string;
    type: number;
    folio: number;
    seq: number;
    cedenteRut: string;
    cesionarioRut: string;
    monto: number;
    ultimoVencimiento: string;
    declaracionJurada: boolean;
  };
}

export interface AecRegistryView {
  document(
    issuerRut: string,
    type: number,
    folio: number,
  ): { sha256: string; total: string; date: string; receiverRut: string } | undefined;
  cesiones(
    issuerRut: string,
    type: number,
    folio: number,
  ): { seq: number; cedenteRut: string; cesionarioRut: string; declaracionJurada: boolean }[];
  cedible(issuerRut: string, type: number, folio: number): number;
}

export function checkAec(_bytes: Buffer, _registry: AecRegistryView, _today: string): AecVerdict {
  return { estado: 'RSC', glosa: 'Validacion de AEC no disponible (placeholder)' };
}
