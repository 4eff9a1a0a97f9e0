/**
 * Your invoices seen from your customers (docs/claims-registry.md §5): for an issued live 33 or
 * 34 the SII accepted, Timbre asks the claims registry (listarEventosHistDoc) what the customer
 * did, until the customer's 8 days have passed, and records it:
 *
 * - ERM → `document.receipt_acknowledged`; ACD → `document.accepted_by_receiver`;
 *   RCD / RFP / RFT → `document.claimed` (with the claim: the issuer's cue to issue a credit note);
 * - the 8 days passed with no claim and no ACD → `document.tacitly_accepted` (accepted by law;
 *   the SII records no event for it).
 *
 * A `registry_watches` row per document, created in the transaction that marks it accepted
 * (src/issuing/document-state.ts `transition`),
 * carries when it is next due and a lease, like the other background work (src/jobs.ts). Each
 * event has a dedupe key naming the document and the action, so a repeated poll or another
 * instance never announces it twice.
 */
import type { AppContext } from '../context.ts';
import type { EventType } from '../events/types.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { recordEvent } from '../events/record.ts';
import { consultarFechaRecepcionSii, listarEventosHistDoc } from '../sii/registro-reclamo.ts';
import { SiiAuthError, SiiProtocolError, SiiUnavailableError } from '../sii/types.ts';
import { documentEventData } from './document-state.ts';
import {
  ACTION_NAMES,
  outcomeOf,
  type ReceiverActionView,
  receiverActionView,
  type StoredEvent,
} from '../events/receiver-action-view.ts';
import { signingCertificate } from './key-material.ts';
import { backoff } from './submissions.ts';

const CLAIM_WINDOW_MS = 8 * 24 * 3_600_000;
const LEASE_MS = 3 * 60_000;
/** Past this age a document whose reception the SII never gave is no longer asked about. */
const GIVE_UP_MS = 12 * 24 * 3_600_000;
/** After the deadline, one last look this much later catches events registered at the very end. */
const LAST_LOOK_MS = 60_000;

const EVENT_OF_ACTION: Record<string, EventType> = {
  ERM: 'document.receipt_acknowledged',
  ACD: 'document.accepted_by_receiver',
  RCD: 'document.claimed',
  RFP: 'document.claimed',
  RFT: 'document.claimed',
};

/** The watch of one document, for its detail. */
export async function receiverActionOf(ctx: AppContext, documentId: string): Promise<ReceiverActionView | null> {
  return receiverActionView(await ctx.db.prisma.registryWatch.findUnique({ where: { documentId } }));
}

/** Asks the registry about every due watch (up to `limit`), one at a time; failures wait on the row. */
export async function checkReceiverActions(ctx: AppContext, limit = 20): Promise<number> {
  const now = ctx.clock();
  const due = await ctx.db.prisma.registryWatch.findMany({
    where: { nextCheckAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    select: { id: true },
    orderBy: { nextCheckAt: 'asc' },
    take: limit,
  });
  let done = 0;
  for (const { id } of due) if (await checkWatch(ctx, id)) done++;
  return done;
}

async function checkWatch(ctx: AppContext, id: string): Promise<boolean> {
  const now = ctx.clock();
  const claimed = await ctx.db.prisma.registryWatch.updateMany({
    where: { id, nextCheckAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    data: { leaseUntil: new Date(now.getTime() + LEASE_MS) },
  });
  if (claimed.count === 0) return false;
  const w = await ctx.db.prisma.registryWatch.findUniqueOrThrow({
    where: { id },
    include: { document: true, issuer: true },
  });
  const later = async (error: string | null, delayMs: number) => {
    const attempts = w.attempts + 1;
    const giveUp = now.getTime() - w.createdAt.getTime() > GIVE_UP_MS;
    await ctx.db.prisma.registryWatch.update({
      where: { id },
      data: {
        attempts,
        lastError: error,
        leaseUntil: null,
        nextCheckAt: giveUp ? null : new Date(now.getTime() + delayMs),
      },
    });
    return false;
  };
  const retry = (error: string) => later(error, backoff(ctx.config.SII_RETRY_BASE_MS, w.attempts + 1));
  try {
    const { cert } = await signingCertificate(ctx, w.issuer, true);
    const caller = { sii: ctx.sii, cert };
    const key = { rutEmisor: w.issuer.rut, tipoDoc: w.document.type, folio: w.document.folio };
    let reception = w.siiReceivedAt;
    if (!reception) {
      const answer = await consultarFechaRecepcionSii(caller, key);
      if (!answer.fechaRecepcion)
        return later(`El SII no informa la recepción: ${answer.descResp}`, ctx.config.REGISTRY_POLL_MS);
      reception = answer.fechaRecepcion;
    }
    const deadline = new Date(reception.getTime() + CLAIM_WINDOW_MS);
    const listing = await listarEventosHistDoc(caller, key);
    if (listing.codResp !== 15 && listing.codResp !== 16) {
      return retry(`listarEventosHistDoc ${listing.codResp}: ${listing.descResp || listing.glosa}`);
    }
    const events: StoredEvent[] = listing.eventos.map((e) => ({
      accion: e.accion === 'OTRO' ? e.codEvento : e.accion,
      rut: e.rutResponsable,
      fecha: e.fecha,
      at: e.at?.toISOString() ?? null,
    }));
    const pastDeadline = now.getTime() >= deadline.getTime();
    const { outcome, claim } = outcomeOf(events, pastDeadline);
    const nextCheckAt = pastDeadline
      ? null
      : new Date(Math.min(now.getTime() + ctx.config.REGISTRY_POLL_MS, deadline.getTime() + LAST_LOOK_MS));
    await ctx.db.prisma.$transaction(async (tx) => {
      await tx.registryWatch.update({
        where: { id },
        data: {
          siiReceivedAt: reception,
          deadline,
          events: events as unknown as Prisma.InputJsonValue,
          outcome,
          claim,
          nextCheckAt,
          leaseUntil: null,
          attempts: 0,
          lastError: null,
          checkedAt: now,
        },
      });
      const announce = async (type: EventType, dedupe: string, extra: Record<string, unknown>) => {
        const data = await documentEventData(ctx, tx, w.issuer.rut, w.document);
        await recordEvent(
          tx,
          {
            issuerId: w.issuerId,
            type,
            documentId: w.documentId,
            dedupeKey: `${type}:${w.documentId}${dedupe}`,
            data: { ...data, ...extra },
          },
          now,
        );
      };
      const view = receiverActionView({
        events: events as unknown as Prisma.JsonValue,
        outcome,
        claim,
        siiReceivedAt: reception,
        deadline,
        checkedAt: now,
      });
      for (const e of events) {
        const type = EVENT_OF_ACTION[e.accion];
        if (!type) continue;
        await announce(type, type === 'document.claimed' ? `:${e.accion}` : '', {
          receiver_action: view,
          action: { code: e.accion, description: ACTION_NAMES[e.accion], rut: e.rut, at: e.at },
        });
      }
      if (outcome === 'aceptado_tacitamente')
        await announce('document.tacitly_accepted', '', { receiver_action: view });
    });
    ctx.jobs?.nudge();
    return true;
  } catch (e) {
    if (e instanceof SiiUnavailableError) return retry('El SII no está disponible; se reintentará.');
    if (e instanceof SiiAuthError) return retry(`El SII rechazó la autenticación: ${e.message}`);
    if (e instanceof SiiProtocolError) return retry(`Respuesta del SII ilegible: ${e.message}`);
    if (e instanceof Error && 'code' in e) return retry((e as Error).message);
    await ctx.db.prisma.registryWatch.update({ where: { id }, data: { leaseUntil: null } });
    throw e;
  }
}
