import { z } from 'zod';
import { isRealDate } from '../dte/calendar-date.js';
import { ruleIssue } from '../rules.js';
/** A real calendar date written YYYY-MM-DD (2023-02-30 is refused). */
export const isoDate = z.string().refine((s) => isRealDate(s), ruleIssue('date.invalid'));
