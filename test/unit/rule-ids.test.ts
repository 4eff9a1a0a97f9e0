/**
 * Every rule id of src/rules.ts and every error code of src/errors.ts has its Spanish text in
 * the dashboard (src/web/messages.ts), worded from the detail's params, with no English left.
 */
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CATALOG, type ErrorCode } from '../../src/errors.ts';
import { RULE_IDS, RULES, type RuleParams, ruleDetail, zodDetails } from '../../src/rules.ts';
import { errorMessage, fieldMessage, ruleText } from '../../src/web/messages.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';

/** English words that give a leak away (ids and params are not words of a sentence). */
const ENGLISH =
  /\b(must|is not|are no|there|required|invalid|expected|allowed|the|of type|characters|only|document|received)\b/i;

/** A sample value for each param name the rules use. */
const SAMPLE: RuleParams = {
  expected: 'number',
  allowed: '1, 2, 3',
  keys: 'foo',
  min: 1,
  max: 40,
  format: 'regex',
  char: 'U+202E',
  from: '2000-01-01',
  to: '2050-12-31',
  caf_date: '2026-01-01',
  date: '2026-01-01',
  limit: '1 000 000 000 000',
  types: '33, 34',
  type: '33',
  tag: 'GiroRecep',
  ref_type: '50',
  env: 'live',
  folio: '12',
  rut: '76354771-K',
  note_type: 61,
  note_folio: 3,
  estado: 'pendiente',
  total: 11900,
  net: 10000,
  exempt: 0,
  vat: 1900,
  remaining: 5900,
  uf: 135,
  pesos: 5000000,
  uf_clp: 37000,
  indicator: 2,
  host: 'intranet.local',
  address: '10.0.0.1',
};

/** The param names a rule's English text reads. */
function paramsOf(id: (typeof RULE_IDS)[number]): RuleParams {
  const read = new Set<string>();
  const probe = new Proxy({} as RuleParams, {
    get: (_, k) => {
      read.add(String(k));
      return SAMPLE[String(k)];
    },
  });
  (RULES[id] as (p: RuleParams) => string)(probe);
  return Object.fromEntries([...read].map((k) => [k, SAMPLE[k] as string | number]));
}

describe('rule ids', () => {
  it.each(RULE_IDS)('%s has a Spanish text worded from its params', (id) => {
    const params = paramsOf(id);
    for (const k of Object.keys(params)) expect(SAMPLE, `a sample for param ${k}`).toHaveProperty(k);
    const spanish = ruleText(id, params);
    if (id !== 'value.invalid') expect(spanish).not.toBe(ruleText('value.invalid'));
    expect(spanish).not.toMatch(ENGLISH);
    expect(spanish).not.toMatch(/undefined|NaN|\[object/);
  });

  it('are stable names: lower-case words joined by a dot', () => {
    for (const id of RULE_IDS) expect(id).toMatch(/^[a-z_]+\.[a-z_0-9]+$/);
  });

  it('interpolates the values from params (it never sees the English)', () => {
    const d = ruleDetail('date', 'date.out_of_range', { from: '2000-01-01', to: '2050-12-31' });
    expect(fieldMessage(d)).toBe('La fecha debe estar entre el 01-01-2000 y el 31-12-2050.');
    expect(fieldMessage(ruleDetail('x', 'text.char_not_allowed', { char: 'U+202E' }))).toContain('U+202E');
  });

  it('come with the issue schema’s refinements and with zod’s own checks', () => {
    const r = issueRequestSchema.safeParse({
      type: 33,
      date: '2051-01-01',
      payment: 7,
      receiver: { rut: '76354771-K', name: 'Los Aromos\u202e', bogus: 1 },
      items: [{ name: 'Clavos', qty: 'diez', price: 1000 }],
    });
    expect(r.success).toBe(false);
    const details = zodDetails(r.error?.issues ?? []);
    const byPath = Object.fromEntries(details.map((d) => [d.path, d]));
    expect(byPath.date).toMatchObject({ rule: 'date.out_of_range', params: { from: '2000-01-01', to: '2050-12-31' } });
    expect(byPath['receiver.name']).toMatchObject({ rule: 'text.char_not_allowed', params: { char: 'U+202E' } });
    expect(byPath.receiver).toMatchObject({ rule: 'object.unknown_key', params: { keys: 'bogus' } });
    expect(byPath['items[0].qty']).toMatchObject({ rule: 'value.wrong_type', params: { expected: 'number' } });
    expect(byPath.payment).toMatchObject({ rule: 'value.not_allowed', params: { allowed: '1, 2, 3' } });
    for (const d of details) expect(fieldMessage(d)).not.toMatch(ENGLISH);
  });
});

describe('error codes', () => {
  it.each(Object.keys(ERROR_CATALOG) as ErrorCode[])('%s has a Spanish text', (code) => {
    const spanish = errorMessage(new AppError(code));
    expect(spanish).not.toBe(ERROR_CATALOG[code].message);
    expect(spanish).not.toMatch(ENGLISH);
  });
});
