/**
 * Receiving a supplier's file (README "Received documents"): run the receiver's checks
 * (checks.ts), record the envelope byte-exact with every result, store the DTEs that passed,
 * answer with a signed RespuestaDTE (respuesta.ts) and record the events
 * (`received.document` per stored DTE, `received.refused` per refused envelope or DTE), all
 * in one transaction: a refusal is recorded with its reason, never half-stored.
 *
 * One issuer's receptions are recorded one at a time (a transaction-scoped advisory lock), and
 * the duplicate lookups are asked again under it, so two uploads of the same file or of the
 * same document cannot both pass the duplicate checks; the unique index on (issuer, emisor,
 * type, folio) is the net under it.
 */
import { calendarDate, toDbDate } from '../dte/calendar-date.ts';
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { trustedCafKeys } from '../admin/cafs.ts';
import { santiagoTimestamp } from '../dte/chile-time.ts';
import type { SignatureKey } from '../dte/xmldsig.ts';
import { AppError } from '../errors.ts';
import type { Issuer, Prisma, ReceivedDocument, ReceivedEnvelope } from '../generated/prisma/client.ts';
import { searchable } from '../events/document-view.ts';
import { recordEvent } from '../events/record.ts';
import { signingCertificate } from '../issuing/key-material.ts';
import { AnswerNotWritten } from './answers.ts';
import { type ReceiveChecker, receiveChecker } from './check-pool.ts';
import type { CheckContext, CheckResult, DocumentOutcome, EnvelopeOutcome } from './checks.ts';
import { ESTADO_RECEP_DTE, ESTADO_RECEP_ENV } from './codes.ts';
import { answerAddress, answersByEmail, queueAnswerEmail } from './answer-email.ts';
import { initialClock } from './reception-clock.ts';
import { type ReceivedDocumentView, receivedDocumentView, respuestaUrl } from './views.ts';

export interface ReceiveInput {
  bytes: Buffer;
  /** The file's name as uploaded (NmbEnvio of the answer); a default is made when absent. */
  fileName?: string;
  source: 'upload' | 'mailbox';
  /** Whom the answer is e-mailed to first (the message's Reply-To, else its From). */
  replyAddress?: string | null;
  /**
   * Work recorded in the same transaction as the envelope (the mailbox reader's record of the
   * attachment, whose unique key makes it received once).
   */
  alongside?: (tx: Prisma.TransactionClient, envelope: ReceivedEnvelope) => Promise<void>;
}

/** The answer of `POST /api/{rut}/recibidos`: the verdict on the envelope and each DTE. */
export interface ReceptionView {
  number: number;
  file_name: string;
  kind: string | null;
  sha256: string;
  accepted: boolean;
  estado_recep_env: number;
  glosa: string;
  reason: string | null;
  checks: CheckResult[];
  documents: {
    index: number;
    type: number | null;
    folio: number | null;
    emisor_rut: string | null;
    estado_recep_dte: number;
    glosa: string;
    reason: string | null;
    checks: CheckResult[];
  }[];
  received: ReceivedDocumentView[];
  respuesta_url: string | null;
  respuesta_error: string | null;
  created_at: string;
}

/** NmbEnvio: a plain file name (≤ 80, no path, no control characters). */
function cleanFileName(name: string | undefined, sha256: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[^\w.\- ]/g, '_')
    .trim()
    .slice(-80);
  return clean || `envio-${sha256.slice(0, 16)}.xml`;
}

function documentsJson(outcome: EnvelopeOutcome) {
  return outcome.documents.map((d) => ({
    index: d.index,
    type: d.dte?.type ?? null,
    folio: d.dte?.folio ?? null,
    emisor_rut: d.dte?.issuerRut ?? null,
    estado_recep_dte: d.estado,
    glosa: d.glosa,
    reason: d.reason,
    checks: d.checks,
  }));
}

/** The glosa written in the answer: the code's, with the reason when the code is "Otros". */
const answerGlosa = (glosa: string, estado: number, reason: string | null) =>
  estado === 99 && reason ? `${glosa}: ${reason}` : glosa;

export async function receiveEnvelope(ctx: AppContext, issuer: Issuer, input: ReceiveInput): Promise<ReceptionView> {
  const now = ctx.clock();
  // The certificate is read (or, in sandbox, generated) before the transaction, which it
  // would otherwise wait on; without one the file is still received and the answer's absence
  // recorded.
  let cert: SignatureKey | null = null;
  let certError: string | null = null;
  try {
    cert = (await signingCertificate(ctx, issuer, issuer.siiAmbiente !== 0)).cert;
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    certError = e.message;
  }
  const keys = trustedCafKeys(ctx.config.TIMBRE_EXTRA_CAF_KEYS);

  // The checks (parsing, XSD, signatures: tens of milliseconds per DTE) run before the
  // transaction, so no connection or lock is held meanwhile; under the lock, the duplicate
  // lookups are asked again, and only when another reception got there first are the checks
  // run again inside it (rare: the same file or DTE uploaded twice at once).
  const lookups = (db: Prisma.TransactionClient): Pick<CheckContext, 'seenFile' | 'seenDocument'> => ({
    seenFile: async (sha256) =>
      (await db.receivedEnvelope.findFirst({ where: { issuerId: issuer.id, sha256 }, select: { id: true } })) !== null,
    seenDocument: async (emisorRut, type, folio) =>
      (await db.receivedDocument.findUnique({
        where: { issuerId_emisorRut_type_folio: { issuerId: issuer.id, emisorRut, type, folio: BigInt(folio) } },
        select: { id: true },
      })) !== null,
  });
  const checkContext = (db: Prisma.TransactionClient): CheckContext => ({
    receiverRut: issuer.rut,
    trustedCafKeys: keys,
    ...lookups(db),
  });
  const checker = receiveChecker(ctx.config);
  const first = await checker.check(input.bytes, checkContext(ctx.db.prisma));

  const { envelope, stored } = await ctx.db.prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`received:${issuer.id}`}, 0))`;
      const outcome = (await stillUnseen(first, lookups(tx)))
        ? first
        : await checker.check(input.bytes, checkContext(tx));
      const fileName = cleanFileName(input.fileName, outcome.sha256);
      let envelope = await tx.receivedEnvelope.create({
        data: {
          issuerId: issuer.id,
          kind: outcome.kind,
          source: input.source,
          fileName,
          xml: new Uint8Array(input.bytes),
          sha256: outcome.sha256,
          senderRut: outcome.caratula?.rutEnvia ?? null,
          emisorRut: outcome.caratula?.rutEmisor ?? null,
          receptorRut: outcome.caratula?.rutReceptor ?? null,
          setId: outcome.setId,
          estadoRecepEnv: outcome.estado,
          glosa: outcome.glosa,
          reason: outcome.reason,
          checks: outcome.checks as unknown as Prisma.InputJsonValue,
          documents: documentsJson(outcome) as unknown as Prisma.InputJsonValue,
          createdAt: now,
        },
      });
      const stored: ReceivedDocument[] = [];
      for (const d of outcome.documents) {
        if (d.estado !== ESTADO_RECEP_DTE.OK || !d.dte) continue;
        stored.push(await storeDocument(tx, issuer, envelope, d, now));
      }
      const respuesta = await answer(checker, outcome, envelope, issuer, cert, certError, now);
      if (respuesta.xml || respuesta.error) {
        envelope = await tx.receivedEnvelope.update({
          where: { id: envelope.id },
          data: {
            respuestaXml: respuesta.xml ? new Uint8Array(respuesta.xml) : null,
            respuestaError: respuesta.error,
          },
        });
      }
      if (envelope.respuestaXml && (await answersByEmail(tx, issuer))) {
        const to = answerAddress([input.replyAddress, ...outcome.documents.map((d) => d.dte?.issuerEmail)]);
        if (to) await queueAnswerEmail(ctx, tx, issuer, envelope, to, now);
      }
      await input.alongside?.(tx, envelope);
      await recordEvents(ctx, tx, issuer, envelope, outcome, stored, now);
      return { envelope, stored };
    },
    { timeout: 60_000 },
  );
  ctx.jobs?.nudge();
  return receptionView(ctx, issuer, envelope, stored);
}

/** True when no reception recorded since the checks ran makes this file or a DTE it passed a duplicate. */
async function stillUnseen(
  outcome: EnvelopeOutcome,
  seen: Pick<CheckContext, 'seenFile' | 'seenDocument'>,
): Promise<boolean> {
  const fileChecked = outcome.checks.some((c) => c.check === 'repeated_file' && c.ok);
  if (fileChecked && (await seen.seenFile(outcome.sha256))) return false;
  for (const d of outcome.documents) {
    if (
      d.estado === ESTADO_RECEP_DTE.OK &&
      d.dte &&
      (await seen.seenDocument(d.dte.issuerRut, d.dte.type, d.dte.folio))
    ) {
      return false;
    }
  }
  return true;
}

async function storeDocument(
  tx: Prisma.TransactionClient,
  issuer: Issuer,
  envelope: ReceivedEnvelope,
  d: DocumentOutcome,
  now: Date,
): Promise<ReceivedDocument> {
  const dte = d.dte!;
  return tx.receivedDocument.create({
    data: {
      issuerId: issuer.id,
      envelopeId: envelope.id,
      emisorRut: dte.issuerRut,
      emisorName: dte.issuerName,
      type: dte.type,
      folio: BigInt(dte.folio),
      date: toDbDate(calendarDate(dte.date)),
      net: BigInt(dte.net),
      exempt: BigInt(dte.exempt),
      vat: BigInt(dte.vat),
      total: BigInt(dte.total),
      xml: new Uint8Array(d.bytes),
      sha256: createHash('sha256').update(d.bytes).digest('hex'),
      model: {
        receiver: { rut: dte.receiverRut, name: dte.receiverName },
        lines: dte.lines,
        refs: dte.refs,
        ted: dte.ted?.caf ? { idk: dte.ted.caf.idk, caf_from: dte.ted.caf.from, caf_to: dte.ted.caf.to } : null,
      } as unknown as Prisma.InputJsonValue,
      checks: d.checks as unknown as Prisma.InputJsonValue,
      searchText: searchable(`${dte.issuerRut} ${dte.issuerName}`),
      createdAt: now,
      ...initialClock(issuer, dte.type, now),
    },
  });
}

/**
 * The signed RespuestaDTE, when the envelope says whom to answer and a certificate signs it;
 * written and signed by the checker's worker (answers.ts: up to hundreds of milliseconds for a
 * large envelope, which the event loop no longer spends).
 */
async function answer(
  checker: ReceiveChecker,
  outcome: EnvelopeOutcome,
  envelope: ReceivedEnvelope,
  issuer: Issuer,
  cert: SignatureKey | null,
  certError: string | null,
  now: Date,
): Promise<{ xml: Buffer | null; error: string | null }> {
  if (outcome.kind !== 'EnvioDTE' || !outcome.setId || !outcome.caratula) {
    return {
      xml: null,
      error:
        outcome.kind === 'DTE'
          ? 'Un DTE suelto no lleva sobre (SetDTE): no hay RecepcionEnvio que responder.'
          : 'El archivo no permite saber a quién responder (sin Carátula o SetDTE legible).',
    };
  }
  if (!cert) return { xml: null, error: `Sin certificado para firmar la respuesta: ${certError}` };
  const timestamp = santiagoTimestamp(now);
  try {
    const xml = await checker.answer(
      {
        kind: 'respuesta',
        input: {
          responderRut: issuer.rut,
          recipientRut: outcome.caratula.rutEmisor,
          number: Number(envelope.number),
          fileName: envelope.fileName,
          receivedAt: timestamp,
          signedAt: timestamp,
          setId: outcome.setId,
          digest: outcome.digest,
          caratulaIssuerRut: outcome.caratula.rutEmisor,
          caratulaReceiverRut: outcome.caratula.rutReceptor,
          estado: outcome.estado,
          glosa: answerGlosa(outcome.glosa, outcome.estado, outcome.reason),
          dteCount: outcome.documents.length,
          documents: outcome.documents
            .filter((d) => d.dte)
            .map((d) => ({
              type: d.dte!.type,
              folio: d.dte!.folio,
              date: d.dte!.date,
              issuerRut: d.dte!.issuerRut,
              receiverRut: d.dte!.receiverRut,
              total: d.dte!.total,
              estado: d.estado,
              glosa: answerGlosa(d.glosa, d.estado, d.reason),
            })),
        },
      },
      cert,
    );
    return { xml, error: null };
  } catch (e) {
    // A RUT the schema's RUTType refuses (the Carátula's, unchecked when the signature failed)
    // leaves the envelope recorded and unanswered. Anything else (the worker stopped) fails the
    // reception: nothing is recorded, and the sender may try again.
    if (!(e instanceof AnswerNotWritten)) throw e;
    return { xml: null, error: `No se pudo escribir la respuesta: ${e.message.slice(0, 300)}` };
  }
}

async function recordEvents(
  ctx: AppContext,
  tx: Prisma.TransactionClient,
  issuer: Issuer,
  envelope: ReceivedEnvelope,
  outcome: EnvelopeOutcome,
  stored: ReceivedDocument[],
  now: Date,
): Promise<void> {
  const base = { envelope: Number(envelope.number), file_name: envelope.fileName };
  if (outcome.estado !== ESTADO_RECEP_ENV.OK) {
    await recordEvent(
      tx,
      {
        issuerId: issuer.id,
        type: 'received.refused',
        data: { ...base, estado_recep_env: outcome.estado, glosa: outcome.glosa, reason: outcome.reason },
      },
      now,
    );
    return;
  }
  for (const d of outcome.documents) {
    if (d.estado === ESTADO_RECEP_DTE.OK) continue;
    await recordEvent(
      tx,
      {
        issuerId: issuer.id,
        type: 'received.refused',
        data: {
          ...base,
          estado_recep_env: outcome.estado,
          type: d.dte?.type ?? null,
          folio: d.dte?.folio ?? null,
          emisor_rut: d.dte?.issuerRut ?? null,
          estado_recep_dte: d.estado,
          glosa: d.glosa,
          reason: d.reason,
        },
      },
      now,
    );
  }
  for (const doc of stored) {
    await recordEvent(
      tx,
      { issuerId: issuer.id, type: 'received.document', data: { ...receivedDocumentView(ctx, issuer, doc, envelope) } },
      now,
    );
  }
}

export function receptionView(
  ctx: AppContext,
  issuer: Issuer,
  envelope: ReceivedEnvelope,
  stored: ReceivedDocument[],
): ReceptionView {
  return {
    number: Number(envelope.number),
    file_name: envelope.fileName,
    kind: envelope.kind,
    sha256: envelope.sha256,
    accepted: envelope.estadoRecepEnv === ESTADO_RECEP_ENV.OK && stored.length > 0,
    estado_recep_env: envelope.estadoRecepEnv,
    glosa: envelope.glosa,
    reason: envelope.reason,
    checks: envelope.checks as unknown as CheckResult[],
    documents: envelope.documents as unknown as ReceptionView['documents'],
    received: stored.map((d) => receivedDocumentView(ctx, issuer, d, envelope)),
    respuesta_url: envelope.respuestaXml ? respuestaUrl(ctx, issuer, envelope.number) : null,
    respuesta_error: envelope.respuestaError,
    created_at: envelope.createdAt.toISOString(),
  };
}
