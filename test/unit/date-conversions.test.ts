/**
 * A lint: a calendar date becomes a `Date` (or a `Date` a calendar date) only in
 * src/dte/calendar-date.ts. `toISOString().slice(0, 10)` is an instant's day in UTC, not in
 * Santiago, and `new Date(`${d}T00:00:00Z`)` makes a date an instant: written anywhere else,
 * they are the bugs that module exists to end (a certificate expiring "tomorrow" every evening).
 * An instant's day for people is `dateOfInstantInSantiago` (src/dte/chile-time.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const DATE_MODULE = 'src/dte/calendar-date.ts';
const ROOTS = ['src', 'bench'];

const FORBIDDEN: Array<[string, RegExp]> = [
  ['toISOString().slice(0, 10)', /toISOString\(\)\s*\.\s*(?:slice|substring|substr)\(\s*0\s*,\s*10\s*\)/],
  ["toISOString().split('T')", /toISOString\(\)\s*\.\s*split\(\s*['"`]T['"`]\s*\)/],
  ['T00:00:00Z', /T00:00:00(?:\.000)?Z/],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'generated' || name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** `path:line: text` for every forbidden conversion outside the date module. */
function conversionsOutsideDateModule(root = resolve('.')): string[] {
  return ROOTS.flatMap((r) => sourceFiles(join(root, r)))
    .map((file) => relative(root, file))
    .filter((file) => file !== DATE_MODULE)
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          FORBIDDEN.filter(([, re]) => re.test(line)).map(([name]) => `${file}:${i + 1}: ${name}: ${line.trim()}`),
        ),
    );
}

describe('date conversions', () => {
  it(`happen only in ${DATE_MODULE}`, () => {
    expect(conversionsOutsideDateModule()).toEqual([]);
  });

  it('are found however they are spelt', () => {
    const lines = [
      'const a = d.toISOString().slice(0, 10);',
      'const b = d.toISOString().substring(0, 10);',
      "const c = d.toISOString().split('T')[0];",
      'const e = new Date(day + "T00:00:00Z");',
      "const f = new Date(day + 'T00:00:00.000Z');",
    ];
    for (const line of lines)
      expect(
        FORBIDDEN.some(([, re]) => re.test(line)),
        line,
      ).toBe(true);
    expect(FORBIDDEN.some(([, re]) => re.test('created_at: c.createdAt.toISOString(),'))).toBe(false);
  });
});
