/**
 * Decisions on received documents (README "Accepting and claiming received documents";
 * docs/receiving.md §3, §4): accept (ACD, plus ERM when the goods or services were received)
 * or claim (RCD content, RFP partial, RFT total non-delivery) a supplier's factura at the SII's
 * claims registry, then answer the supplier with a signed ResultadoDTE (and an EnvioRecibos
 * with ERM) by e-mail.
 *
 * - Only 33, 34 and 43 go to the registry (its `tipoDoc`); other types are refused with a 422
 *   that says why (notes and guías are neither accepted nor claimed, boletas are not intercambio).
 * - The SII's matrix (docs/receiving.md §4) is enforced here, before any call, against what is
 *   already recorded for the document (registered actions, and those of decisions still
 *   pending) and its deadline, with the code the SII would answer (6, 7, 8, 11, 12, 13) and a
 *   Spanish explanation. The check runs under a row lock on the document, so two decisions at
 *   once cannot both pass it.
 * - Durable like issuing's submissions (src/issuing/submissions.ts): the decision is stored
 *   first (`received_decisions`, state `pending`), the request then tries the registry once;
 *   the jobs (src/jobs.ts) retry what an outage left pending, under a lease, with backoff, for
 *   as long as it takes. Each action the SII records is written down at once, so a retry sends
 *   only the ones still missing, and a repeat the SII answers 7 ("evento registrado
 *   previamente") counts as done: a decision is never lost, and never registered twice.
 * - A refusal by the SII (a code other than 0, 7 and the retryable -1) ends the decision
 *   `refused` with its codResp and descResp, and `received.decision_refused`.
 * - When every action holds, the ResultadoDTE (and EnvioRecibos) are signed and stored, the
 *   event `received.accepted` or `received.claimed` is recorded and the e-mail to the supplier
 *   is queued in the outbox, all in one transaction.
 * - Sandbox issuers decide locally: the matrix applies, nothing is sent to the SII, and the
 *   decision is `local` at once, with its answers and events.
 */
import type { AppContext } from '../context.ts';
import { fromDbDate } from '../dte/calendar-date.ts';
import { santiagoTimestamp } from '../dte/chile-time.ts';
import type { SigningCertificate } from '../dte/certificate.ts';
import { AppError } from '../errors.ts';
import { recordEvent } from '../events/record.ts';
import type { Issuer, Prisma, ReceivedDecision, ReceivedDocument } from '../generated/prisma/client.ts';
import { emailEnabled } from '../issuing/email-queue.ts';
import { signingCertificate } from '../issuing/key-material.ts';
import { backoff } from '../issuing/submissions.ts';
import { type ReceivedDocumentView, receivedDocumentView } from './views.ts';
import { ESTADO_DTE, type EstadoDte } from './respuesta.ts';
import { receiveChecker } from './check-pool.ts';

/** The registry's accionDoc (docs/receiving.md §4). */
export type Accion = 'ACD' | 'RCD' | 'ERM' | 'RFP' | 'RFT';

type Motivo = 'contenido' | 'falta_parcial' | 'falta_total';

/** A claim's motivo as the registry's action. */
const MOTIVO_ACCION: Record<Motivo, Accion> = { contenido: 'RCD', falta_parcial: 'RFP', falta_total: 'RFT' };

const CLAIMS: readonly Accion[] = ['RCD', 'RFP', 'RFT'];

/** The registry's `tipoDoc` ([WSRR]): factura, factura exenta, liquidación-factura. */
export const DECIDABLE_TYPES: readonly number[] = [33, 34, 43];

/**
 * The types a ResultadoDTE and a Recibo may name (`DTEType`, `DocType` in SiiTypes_v10.xsd): a
 * 43 is registered at the SII, but its answer cannot be written in these schemas.
 */
const ANSWERABLE: readonly number[] = [33, 34];

/**
 * The window to claim: 8 × 24 h from the SII's reception (docs/receiving.md §5: Ley 19.983 art. 3
 * counts 8 calendar days; whether the SII closes at 192 hours or at the end of the 8th day is not
 * published, and its registry compares date-times): the document's `deadline`, which the
 * reception clock (reception-clock.ts) sets from consultarFechaRecepcionSii. Until the SII's
 * reception time is known, Timbre's own reception is the start: it is never earlier than the
 * SII's, so the SII has the last word (code 8) on a document received by Timbre late.
 */
const WINDOW_MS = 8 * 24 * 3_600_000;

function decisionDeadline(doc: Pick<ReceivedDocument, 'createdAt' | 'deadline'>): Date {
  return doc.deadline ?? new Date(doc.createdAt.getTime() + WINDOW_MS);
}

/** How long a worker owns a decision it is registering (longer than a few SII calls). */
const LEASE_MS = 3 * 60_000;
/** The first retry after an outage; doubling up to 30 minutes (submissions' backoff). */
const RETRY_BASE_MS = 15_000;

/** The SII's codes for what the matrix refuses, with a Spanish explanation (WSRR, GUIA). */
const REFUSALS = {
  6: 'No se puede otorgar recibo de mercaderías o servicios (ERM) a un documento reclamado.',
  7: 'Esa decisión ya está registrada para este documento (evento registrado previamente).',
  8: 'Pasaron los 8 días desde la recepción en el SII: el documento quedó aceptado (Ley 19.983, art. 3) y ya no se puede aceptar ni reclamar.',
  11: 'No se puede reclamar un documento cuyo contenido ya fue aceptado (ACD).',
  12: 'No se puede aceptar un documento reclamado.',
  13: 'No se puede reclamar un documento con recibo de mercaderías o servicios (ERM) otorgado.',
} as const;
export type RefusalCode = keyof typeof REFUSALS;

/**
 * The SII's matrix (docs/receiving.md §4, WSRR validation column) applied before any call: the
 * actions still to register, in order, or the code the SII would answer. Actions already
 * recorded are skipped (accepting with a receipt after a plain acceptance sends only ERM); all of
 * them recorded is 7.
 */
export function planActions(
  recorded: ReadonlySet<Accion>,
  wanted: readonly Accion[],
  deadlinePassed: boolean,
): { actions: Accion[] } | { refusal: RefusalCode } {
  if (deadlinePassed) return { refusal: 8 };
  const claimed = CLAIMS.some((c) => recorded.has(c));
  // A receipt asked after a claim is answered for what was asked (6), before its ACD (12).
  if (claimed && wanted.includes('ERM') && !recorded.has('ERM')) return { refusal: 6 };
  const actions: Accion[] = [];
  for (const a of wanted) {
    if (recorded.has(a)) continue;
    if (a === 'ERM' && claimed) return { refusal: 6 };
    if (a === 'ACD' && claimed) return { refusal: 12 };
    if (CLAIMS.includes(a) && recorded.has('ACD')) return { refusal: 11 };
    if (CLAIMS.includes(a) && recorded.has('ERM')) return { refusal: 13 };
    actions.push(a);
  }
  return actions.length > 0 ? { actions } : { refusal: 7 };
}

/** What is recorded for a document: the actions the SII holds, and those of decisions still pending. */
export function recordedActions(decisions: Pick<ReceivedDecision, 'state' | 'actions' | 'registered'>[]): Set<Accion> {
  const recorded = new Set<Accion>();
  for (const d of decisions) {
    for (const a of d.state === 'pending' || d.state === 'local' ? d.actions : d.registered) recorded.add(a as Accion);
  }
  return recorded;
}

export type DecisionRequest =
  | { kind: 'accept'; recibo?: { recinto: string }; email?: string[] }
  | { kind: 'claim'; motivo: Motivo; glosa: string; email?: string[] };

export interface DocumentKey {
  /** The supplier's RUT, canonical. */
  emisor: string;
  type: number;
  folio: number;
}

export interface DecisionView {
  number: number;
  document: { emisor: string; type: number; folio: number };
  kind: 'accept' | 'claim';
  /** The registry's actions, in order, and those the SII has recorded. */
  actions: Accion[];
  registered: Accion[];
  motivo: Motivo | null;
  glosa: string | null;
  recinto: string | null;
  /** pending (being registered), done, refused (by the SII), local (sandbox). */
  state: ReceivedDecision['state'];
  sii: { cod_resp: number; desc_resp: string } | null;
  last_error: string | null;
  attempts: number;
  email_to: string[];
  resultado_url: string | null;
  recibos_url: string | null;
  decided_at: string | null;
  created_at: string;
}

function decisionUrl(ctx: AppContext, issuer: Pick<Issuer, 'rut'>, number: bigint | number) {
  return `${ctx.config.publicBaseUrl}/api/${issuer.rut}/recibidos_decisiones/${number}`;
}

function decisionView(
  ctx: AppContext,
  issuer: Pick<Issuer, 'rut'>,
  d: ReceivedDecision,
  doc: Pick<ReceivedDocument, 'emisorRut' | 'type' | 'folio'>,
): DecisionView {
  const url = decisionUrl(ctx, issuer, d.number);
  return {
    number: Number(d.number),
    document: { emisor: doc.emisorRut, type: doc.type, folio: Number(doc.folio) },
    kind: d.kind as DecisionView['kind'],
    actions: d.actions as Accion[],
    registered: d.registered as Accion[],
    motivo: d.motivo as Motivo | null,
    glosa: d.glosa,
    recinto: d.recinto,
    state: d.state,
    sii: d.codResp === null ? null : { cod_resp: d.codResp, desc_resp: d.descResp ?? '' },
    last_error: d.lastError,
    attempts: d.attempts,
    email_to: d.emailTo,
    resultado_url: d.resultadoXml ? `${url}/resultado` : null,
    recibos_url: d.recibosXml ? `${url}/recibos` : null,
    decided_at: d.decidedAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
  };
}

/** The Spanish reason of a refusal code of the matrix; null for another code. */
export function refusalReason(code: number): string | null {
  return Object.hasOwn(REFUSALS, code) ? REFUSALS[code as RefusalCode] : null;
}

/** A decision the matrix refuses before the SII is called, with the code the SII would answer. */
export class DecisionRefused extends AppError {
  readonly siiCode: RefusalCode;
  /** Why, in Spanish (the dashboard shows it as is). */
  readonly reason: string;

  constructor(code: RefusalCode, doc: DocumentKey) {
    const which = `${doc.type} N° ${doc.folio} of ${doc.emisor}`;
    super(
      code === 7 ? 'DECISION_ALREADY_REGISTERED' : code === 8 ? 'DECISION_DEADLINE_PASSED' : 'DECISION_NOT_ALLOWED',
      `${which}: refused before calling the SII (its code ${code}): ${REFUSALS[code]}`,
    );
    this.siiCode = code;
    this.reason = REFUSALS[code];
  }
}

/** The supplier's address for the answers: given, else CorreoEmisor of its DTE. */
function supplierEmail(doc: ReceivedDocument, given: string[] | undefined): string[] {
  if (given?.length) return [...new Set(given)];
  const found = /<CorreoEmisor>([^<]{3,80})<\/CorreoEmisor>/.exec(Buffer.from(doc.xml).toString('latin1'))?.[1]?.trim();
  return found && /^[^\s@]+@[^\s@]+$/.test(found) ? [found] : [];
}

/**
 * Stores a decision on one received document, after the type and matrix checks; a sandbox
 * issuer's holds at once. Returns it with its document; the caller runs the first registry
 * attempt after the commit (`registerNow`).
 */
async function storeDecision(
  ctx: AppContext,
  issuer: Issuer,
  key: DocumentKey,
  req: DecisionRequest,
  sandboxCert: SigningCertificate | null,
): Promise<{ decision: ReceivedDecision; doc: ReceivedDocument }> {
  if (!DECIDABLE_TYPES.includes(key.type)) {
    throw new AppError(
      'RECEIVED_TYPE_NOT_DECIDABLE',
      `A ${key.type} is not accepted or claimed at the SII: its registry takes only facturas (33), facturas exentas (34) and liquidaciones-factura (43) (Ley 19.983; notes and guías have no acceptance, boletas are not intercambio documents).`,
    );
  }
  const wanted: Accion[] =
    req.kind === 'accept' ? (req.recibo ? ['ACD', 'ERM'] : ['ACD']) : [MOTIVO_ACCION[req.motivo]];
  const now = ctx.clock();
  return ctx.db.prisma.$transaction(async (tx) => {
    // The document's row lock serialises decisions on it (the matrix is checked under it).
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id::text FROM received_documents
       WHERE issuer_id = ${issuer.id}::uuid AND emisor_rut = ${key.emisor} AND type = ${key.type}
         AND folio = ${BigInt(key.folio)} FOR UPDATE`;
    if (!locked[0]) {
      throw new AppError('RECEIVED_DOCUMENT_NOT_FOUND', `No received ${key.type} N° ${key.folio} from ${key.emisor}.`);
    }
    const doc = await tx.receivedDocument.findUniqueOrThrow({ where: { id: locked[0].id } });
    const earlier = await tx.receivedDecision.findMany({
      where: { receivedDocumentId: doc.id },
      select: { state: true, actions: true, registered: true },
    });
    const plan = planActions(recordedActions(earlier), wanted, now.getTime() >= decisionDeadline(doc).getTime());
    if ('refusal' in plan) throw new DecisionRefused(plan.refusal, key);
    const sandbox = issuer.siiAmbiente === 0;
    let decision = await tx.receivedDecision.create({
      data: {
        issuerId: issuer.id,
        receivedDocumentId: doc.id,
        kind: req.kind,
        actions: plan.actions,
        registered: sandbox ? plan.actions : [],
        motivo: req.kind === 'claim' ? req.motivo : null,
        glosa: req.kind === 'claim' ? req.glosa : null,
        recinto: req.kind === 'accept' ? (req.recibo?.recinto ?? null) : null,
        state: sandbox ? 'local' : 'pending',
        emailTo: supplierEmail(doc, req.email),
        nextRunAt: now,
        createdAt: now,
      },
    });
    if (sandbox && sandboxCert) decision = await holds(ctx, tx, issuer, doc, decision, sandboxCert, now);
    return { decision, doc };
  });
}

/** EstadoDTE of the answer: a partial shortage is an acceptance with discrepancies (FRESP). */
function estadoOf(d: ReceivedDecision): EstadoDte {
  if (d.kind === 'accept') return ESTADO_DTE.ACCEPTED;
  return d.motivo === 'falta_parcial' ? ESTADO_DTE.ACCEPTED_WITH_DISCREPANCIES : ESTADO_DTE.REJECTED;
}

/**
 * The signed answers of a decision that holds: the ResultadoDTE, and the EnvioRecibos with ERM;
 * written and signed by the receiving worker (answers.ts), off the event loop.
 */
async function answers(
  ctx: AppContext,
  issuer: Issuer,
  doc: ReceivedDocument,
  envelopeNumber: bigint,
  d: ReceivedDecision,
  cert: SigningCertificate,
  at: Date,
) {
  if (!ANSWERABLE.includes(doc.type)) return { resultado: null, recibos: null };
  const signedAt = santiagoTimestamp(at);
  const receiverRut = (doc.model as { receiver?: { rut?: string } }).receiver?.rut ?? issuer.rut;
  const document = {
    type: doc.type,
    folio: Number(doc.folio),
    date: fromDbDate(doc.date),
    issuerRut: doc.emisorRut,
    receiverRut,
    total: Number(doc.total),
  };
  const reason =
    d.kind === 'claim'
      ? `${d.motivo === 'contenido' ? 'Reclamo al contenido' : d.motivo === 'falta_parcial' ? 'Falta parcial de mercaderias' : 'Falta total de mercaderias'}: ${d.glosa ?? ''}`.trim()
      : null;
  const checker = receiveChecker(ctx.config);
  const resultado = checker.answer(
    {
      kind: 'resultado',
      input: {
        responderRut: issuer.rut,
        recipientRut: doc.emisorRut,
        number: Number(d.number),
        signedAt,
        document: { ...document, envelopeNumber: Number(envelopeNumber) },
        estado: estadoOf(d),
        reason,
      },
    },
    cert,
  );
  const recibos = d.actions.includes('ERM')
    ? checker.answer(
        {
          kind: 'recibos',
          input: {
            responderRut: issuer.rut,
            recipientRut: doc.emisorRut,
            number: Number(d.number),
            signedAt,
            signerRut: cert.holderRut ?? issuer.rut,
            documents: [{ ...document, recinto: d.recinto ?? '' }],
          },
        },
        cert,
      )
    : null;
  // Both awaited together: a refusal of one never leaves the other's rejection unhandled.
  const [resultadoXml, recibosXml] = await Promise.all([resultado, recibos]);
  return { resultado: resultadoXml, recibos: recibosXml };
}

/**
 * Makes a decision hold (all its actions registered, or a sandbox decision): its answers signed
 * and stored, its event recorded and its e-mail queued, inside the caller's transaction.
 */
async function holds(
  ctx: AppContext,
  tx: Prisma.TransactionClient,
  issuer: Issuer,
  doc: ReceivedDocument,
  d: ReceivedDecision,
  cert: SigningCertificate,
  now: Date,
): Promise<ReceivedDecision> {
  const envelope = await tx.receivedEnvelope.findUniqueOrThrow({
    where: { id: doc.envelopeId },
    select: { number: true },
  });
  const xml = await answers(ctx, issuer, doc, envelope.number, d, cert, now);
  const updated = await tx.receivedDecision.update({
    where: { id: d.id },
    data: {
      state: d.state === 'local' ? 'local' : 'done',
      registered: d.actions,
      resultadoXml: xml.resultado ? new Uint8Array(xml.resultado) : null,
      recibosXml: xml.recibos ? new Uint8Array(xml.recibos) : null,
      decidedAt: now,
      leaseUntil: null,
      lastError: null,
    },
  });
  await recordEvent(
    tx,
    {
      issuerId: issuer.id,
      type: d.kind === 'accept' ? 'received.accepted' : 'received.claimed',
      data: { ...decisionView(ctx, issuer, updated, doc), emisor_name: doc.emisorName },
    },
    now,
  );
  if (emailEnabled(ctx) && updated.emailTo.length > 0 && xml.resultado) {
    await tx.emailMessage.create({
      data: { issuerId: issuer.id, decisionId: d.id, to: updated.emailTo, state: 'pending', nextRunAt: now },
    });
  }
  return updated;
}

/** Takes the lease of a pending decision that is due; null when another worker holds it or it is not due. */
async function claim(ctx: AppContext, id: string): Promise<ReceivedDecision | null> {
  const now = ctx.clock();
  const rows = await ctx.db.prisma.$queryRaw<{ id: string }[]>`
    UPDATE received_decisions
       SET lease_until = ${new Date(now.getTime() + LEASE_MS)}, attempts = attempts + 1, updated_at = ${now}
     WHERE id = ${id}::uuid AND state = 'pending' AND next_run_at <= ${now}
       AND (lease_until IS NULL OR lease_until < ${now})
     RETURNING id::text`;
  if (rows.length === 0) return null;
  return ctx.db.prisma.receivedDecision.findUniqueOrThrow({ where: { id } });
}

/** Pending decisions that are due and nobody holds (another instance may take one first). */
export async function dueDecisions(ctx: AppContext, limit: number): Promise<string[]> {
  const now = ctx.clock();
  const rows = await ctx.db.prisma.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM received_decisions
     WHERE state = 'pending' AND next_run_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
     ORDER BY next_run_at LIMIT ${limit}::int`;
  return rows.map((r) => r.id);
}

/**
 * One attempt at registering a decision's missing actions, under its lease. An outage or any
 * other failure to get an answer leaves it pending with a backoff; an answer is final.
 */
export async function registerDecision(ctx: AppContext, id: string): Promise<ReceivedDecision | null> {
  const d = await claim(ctx, id);
  if (!d) return null;
  const issuer = await ctx.db.prisma.issuer.findUniqueOrThrow({ where: { id: d.issuerId } });
  const doc = await ctx.db.prisma.receivedDocument.findUniqueOrThrow({ where: { id: d.receivedDocumentId } });
  const registered = [...d.registered];
  let cert: SigningCertificate;
  try {
    cert = (await signingCertificate(ctx, issuer, true)).cert;
    for (const accion of d.actions as Accion[]) {
      if (registered.includes(accion)) continue;
      const answer = await ctx.sii.registro.ingresar(
        cert,
        { rutEmisor: doc.emisorRut, tipoDoc: doc.type, folio: doc.folio },
        accion,
      );
      if (!answer.registered) return await refused(ctx, issuer, doc, d, registered, answer);
      registered.push(accion);
      // Written at once: a retry after a later failure sends only what is still missing.
      await ctx.db.prisma.receivedDecision.update({
        where: { id: d.id },
        data: { registered, codResp: answer.codResp, descResp: answer.descResp },
      });
    }
  } catch (err) {
    const now = ctx.clock();
    const reason = (err as Error).message.slice(0, 500);
    ctx.log.warn({ decision: Number(d.number), attempt: d.attempts, reason }, 'decision not registered at the SII yet');
    return ctx.db.prisma.receivedDecision.update({
      where: { id: d.id },
      data: {
        registered,
        lastError: reason,
        leaseUntil: null,
        nextRunAt: new Date(now.getTime() + backoff(RETRY_BASE_MS, d.attempts)),
      },
    });
  }
  const now = ctx.clock();
  const current = await ctx.db.prisma.receivedDecision.findUniqueOrThrow({ where: { id: d.id } });
  const held = await ctx.db.prisma.$transaction((tx) => holds(ctx, tx, issuer, doc, current, cert, now));
  ctx.jobs?.nudge();
  return held;
}

async function refused(
  ctx: AppContext,
  issuer: Issuer,
  doc: ReceivedDocument,
  d: ReceivedDecision,
  registered: string[],
  answer: { codResp: number; descResp: string },
): Promise<ReceivedDecision> {
  const now = ctx.clock();
  return ctx.db.prisma.$transaction(async (tx) => {
    const updated = await tx.receivedDecision.update({
      where: { id: d.id },
      data: {
        state: 'refused',
        registered,
        codResp: answer.codResp,
        descResp: answer.descResp,
        leaseUntil: null,
        lastError: null,
        decidedAt: now,
      },
    });
    await recordEvent(
      tx,
      {
        issuerId: issuer.id,
        type: 'received.decision_refused',
        data: { ...decisionView(ctx, issuer, updated, doc), emisor_name: doc.emisorName },
      },
      now,
    );
    return updated;
  });
}

/** The result of one decision of a request: the decision, or why it was refused. */
export type DecisionOutcome =
  | { ok: true; decision: DecisionView }
  | { ok: false; code: string; error: string; document: DocumentKey; sii_code?: number };

/**
 * Decides on one received document: stored (sandbox: holds at once), then one attempt at the
 * registry in live. A refusal before the SII throws (the single-document endpoints' 4xx).
 */
export async function decide(
  ctx: AppContext,
  issuer: Issuer,
  key: DocumentKey,
  req: DecisionRequest,
): Promise<DecisionView> {
  const sandboxCert = issuer.siiAmbiente === 0 ? (await signingCertificate(ctx, issuer, false)).cert : null;
  const { decision, doc } = await storeDecision(ctx, issuer, key, req, sandboxCert);
  if (decision.state !== 'pending') {
    ctx.jobs?.nudge();
    return decisionView(ctx, issuer, decision, doc);
  }
  const after = (await registerDecision(ctx, decision.id)) ?? decision;
  return decisionView(ctx, issuer, after, doc);
}

/** Many decisions, each on its own: per-item results, one item's refusal never stops another. */
export async function decideMany(
  ctx: AppContext,
  issuer: Issuer,
  items: { key: DocumentKey; req: DecisionRequest }[],
): Promise<DecisionOutcome[]> {
  const out: DecisionOutcome[] = [];
  for (const item of items) {
    try {
      out.push({ ok: true, decision: await decide(ctx, issuer, item.key, item.req) });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      out.push({
        ok: false,
        code: err.code,
        error: err.message,
        document: item.key,
        ...(err instanceof DecisionRefused && { sii_code: err.siiCode }),
      });
    }
  }
  return out;
}

/** The decisions on one received document, oldest first (its detail). */
export async function decisionsOf(ctx: AppContext, issuer: Issuer, doc: ReceivedDocument): Promise<DecisionView[]> {
  const rows = await ctx.db.prisma.receivedDecision.findMany({
    where: { issuerId: issuer.id, receivedDocumentId: doc.id },
    orderBy: { createdAt: 'asc' },
  });
  return rows.map((d) => decisionView(ctx, issuer, d, doc));
}

/** A decision's signed answer, exactly as stored (ISO-8859-1). */
export async function decisionXml(
  ctx: AppContext,
  issuer: Issuer,
  number: number,
  which: 'resultado' | 'recibos',
): Promise<{ bytes: Buffer; filename: string }> {
  const d = await ctx.db.prisma.receivedDecision.findFirst({ where: { issuerId: issuer.id, number: BigInt(number) } });
  const xml = which === 'resultado' ? d?.resultadoXml : d?.recibosXml;
  if (!d || !xml) {
    throw new AppError(
      'DECISION_NOT_FOUND',
      `No decision ${number} with a ${which === 'resultado' ? 'ResultadoDTE' : 'EnvioRecibos'} for ${issuer.rut}.`,
    );
  }
  return {
    bytes: Buffer.from(xml),
    filename: `${which === 'resultado' ? 'ResultadoDTE' : 'EnvioRecibos'}_${issuer.rut}_${number}.xml`,
  };
}

/**
 * The received documents still open to a decision (33, 34, 43 within their 8 days, with nothing
 * recorded), soonest deadline first: the dashboard's page for deciding many at once.
 */
export async function undecided(ctx: AppContext, issuer: Issuer, limit = 100): Promise<ReceivedDocumentView[]> {
  const now = ctx.clock();
  const ids = await ctx.db.prisma.$queryRaw<{ id: string }[]>`
    SELECT r.id::text FROM received_documents r
     WHERE r.issuer_id = ${issuer.id}::uuid AND r.type IN (33, 34, 43)
       AND COALESCE(r.deadline, r.created_at + interval '8 days') > ${now}
       AND NOT EXISTS (SELECT 1 FROM received_decisions d WHERE d.received_document_id = r.id
                        AND (d.state <> 'refused' OR cardinality(d.registered) > 0))
     ORDER BY COALESCE(r.deadline, r.created_at + interval '8 days'), r.id
     LIMIT ${limit}::int`;
  const rows = await ctx.db.prisma.receivedDocument.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    omit: { xml: true, model: true, checks: true },
    include: { envelope: { select: { number: true } } },
  });
  const order = new Map(ids.map((r, i) => [r.id, i]));
  return rows
    .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
    .map((r) =>
      receivedDocumentView(ctx, issuer, { ...r, xml: new Uint8Array(), model: null, checks: [] }, r.envelope),
    );
}
