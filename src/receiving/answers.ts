/**
 * The signed answers a receiver sends, as tasks the received-envelope checker's worker runs
 * (check-pool.ts `answer`): pure functions of their input and the certificate's key.
 *
 * Written on the event loop, every other request of the instance waited for them: the
 * envelope's RespuestaDTE grows with its DTEs (one RecepcionDTE each; written, parsed by
 * @xmldom/xmldom to be signed, then XSD-checked by libxml2): 3 ms for 1 DTE, 30 ms for 300,
 * 203 ms for 1600. A decision's ResultadoDTE and EnvioRecibos are one document each (~3 ms).
 */
import type { SignatureKey } from '../dte/xmldsig.ts';
import { buildEnvioRecibos, type ReciboInput } from './recibos.ts';
import { buildRespuesta, buildResultado, type RespuestaInput, type ResultadoInput } from './respuesta.ts';

interface AnswerInputs {
  respuesta: RespuestaInput;
  resultado: ResultadoInput;
  recibos: ReciboInput;
}

/** One answer to write and sign: its kind and input. */
export type AnswerTask = { [K in keyof AnswerInputs]: { kind: K; input: AnswerInputs[K] } }[keyof AnswerInputs];

/**
 * An answer its builder refused to write (a value its schema refuses, such as a Carátula's RUT
 * that was never checked because the envelope's signature failed), with the builder's message.
 * Anything else that fails on the way (the worker stopped) is not this: the caller's work fails.
 */
export class AnswerNotWritten extends Error {}

/** Writes and signs one answer; throws `AnswerNotWritten` when its builder refuses. */
export function buildAnswer(task: AnswerTask, cert: SignatureKey): Buffer {
  try {
    switch (task.kind) {
      case 'respuesta':
        return buildRespuesta(task.input, cert);
      case 'resultado':
        return buildResultado(task.input, cert);
      case 'recibos':
        return buildEnvioRecibos(task.input, cert);
    }
  } catch (err) {
    throw new AnswerNotWritten(err instanceof Error ? err.message : String(err));
  }
}
