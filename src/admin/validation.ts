import { z } from 'zod';
import { isRealDate } from '../dte/calendar-date.ts';
import { AppError, formatPath } from '../errors.ts';

/** A real calendar date written YYYY-MM-DD (2023-02-30 is refused). */
export const isoDate = z.string().refine(isRealDate, 'must be a real date written YYYY-MM-DD');

export { isRealDate };

export function zodToAppError(error: z.ZodError): AppError {
  const details = error.issues.map((i) => ({ path: formatPath(i.path) || '(root)', message: i.message }));
  const first = details[0];
  return new AppError('VALIDATION_FAILED', first ? `${first.path}: ${first.message}` : undefined, { details });
}
