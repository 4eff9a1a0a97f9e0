import { z } from 'zod';
import { AppError, formatPath } from '../errors.ts';

/** A real calendar date written YYYY-MM-DD (2023-02-30 is refused). */
export const isoDate = z.string().refine((s) => isRealDate(s), 'must be a real date written YYYY-MM-DD');

export function isRealDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

export function zodToAppError(error: z.ZodError): AppError {
  const details = error.issues.map((i) => ({ path: formatPath(i.path) || '(root)', message: i.message }));
  const first = details[0];
  return new AppError('VALIDATION_FAILED', first ? `${first.path}: ${first.message}` : undefined, { details });
}
