/**
 * `GET /api/{rut}/emisiones`: the issuer's documents, newest first, filtered and paginated.
 * `q` matches the receiver's RUT or name ignoring case and accents, or an exact folio.
 */
import type { AppContext } from '../context.ts';
import type { DteType } from '../dte/model.ts';
import type { Issuer, Prisma } from '../generated/prisma/client.ts';
import { type DocumentView, documentView, searchable } from './document-view.ts';

export const ESTADOS_SII = [
  'local',
  'pendiente',
  'enviado',
  'aceptado',
  'aceptado_con_reparos',
  'rechazado',
  'anulado',
] as const;
export type EstadoSii = (typeof ESTADOS_SII)[number];

export interface ListFilters {
  type?: DteType;
  estadoSii?: EstadoSii;
  from?: string;
  to?: string;
  q?: string;
  page: number;
  limit: number;
}

export interface ListResult {
  data: DocumentView[];
  total: number;
  page: number;
  limit: number;
}

export async function listDocuments(ctx: AppContext, issuer: Issuer, f: ListFilters): Promise<ListResult> {
  const where: Prisma.DocumentWhereInput = { issuerId: issuer.id };
  if (f.type !== undefined) where.type = f.type;
  if (f.estadoSii !== undefined) where.estadoSii = f.estadoSii;
  if (f.from || f.to) {
    where.date = {
      ...(f.from ? { gte: new Date(`${f.from}T00:00:00Z`) } : {}),
      ...(f.to ? { lte: new Date(`${f.to}T00:00:00Z`) } : {}),
    };
  }
  const q = f.q?.trim();
  if (q) {
    const needle = searchable(q);
    const or: Prisma.DocumentWhereInput[] = [{ searchText: { contains: needle } }];
    if (/^\d{1,10}$/.test(q) && Number(q) <= 2_147_483_647) or.push({ folio: Number(q) });
    where.OR = or;
  }
  const [rows, total] = await Promise.all([
    ctx.db.prisma.document.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { folio: 'desc' }],
      skip: (f.page - 1) * f.limit,
      take: f.limit,
    }),
    ctx.db.prisma.document.count({ where }),
  ]);
  return { data: rows.map((d) => documentView(ctx.config, issuer.rut, d)), total, page: f.page, limit: f.limit };
}
