/** zod schemas shared by several routes: path parameters, the error envelope, documents. */
import { z } from 'zod';
import { isRealDate } from '../admin/validation.ts';
import { DTE_TYPES } from '../dte/model.ts';
import { ERROR_CATALOG } from '../errors.ts';

/** `{rut}` in paths: any string here; the auth hook compares it with the key's issuer. */
export const rutParams = z.object({ rut: z.string().max(20) });

export const errorResponse = z.object({
  ok: z.literal(false),
  error: z.string(),
  code: z.enum(Object.keys(ERROR_CATALOG) as [keyof typeof ERROR_CATALOG, ...(keyof typeof ERROR_CATALOG)[]]),
  request_id: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/** Error responses every authenticated route may answer. */
export const commonErrors = {
  400: errorResponse,
  401: errorResponse,
  403: errorResponse,
  404: errorResponse,
  429: errorResponse,
  500: errorResponse,
};

/** A query-string integer written in plain digits ("007" and "1e3" are refused). */
export const queryInt = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`);

export const queryDate = (name: string) =>
  z.string().refine(isRealDate, `${name} must be a real date written YYYY-MM-DD`);

export const dteTypeQuery = z
  .string()
  .refine((s) => (DTE_TYPES as readonly number[]).includes(Number(s)) && /^\d+$/.test(s), {
    message: `tipo_dte must be one of ${DTE_TYPES.join(', ')}`,
  })
  .transform((s) => Number(s) as (typeof DTE_TYPES)[number]);

export const totalsSchema = z.object({
  net: z.number().int(),
  exempt: z.number().int(),
  vat: z.number().int(),
  vat_rate: z.number(),
  total: z.number().int(),
});

export const documentSchema = z.object({
  type: z.number().int(),
  folio: z.number().int(),
  date: z.string(),
  receiver: z.object({ rut: z.string(), name: z.string() }),
  totals: totalsSchema,
  env: z.enum(['sandbox', 'live']),
  estado_sii: z.string(),
  track_id: z.string().nullable(),
  pdf_url: z.string(),
  xml_url: z.string(),
  created_at: z.string(),
  /** DESIGN §9: where the e-mail to the receiver stands. */
  email: z.object({
    status: z.enum(['none', 'pending', 'sent', 'failed', 'disabled']),
    to: z.array(z.string()),
    at: z.string().nullable(),
  }),
});
