/**
 * Every citation in the code resolves, as test/unit/layout.test.ts does for imports: a comment
 * that cites `docs/design.md §6` names a file of the repository and a heading in it, and none
 * cites a document a reader of the repository does not have (the notes docs/ replaced, or a
 * tracker's "issue N"). The forms, and what each must match:
 *
 * - `docs/<name>.md §4.4` (or `§2, §6`): a heading numbered so ("## 4. …", "### 4.4 …"); a
 *   quoted phrase right after it (`§7 "every stored document verifies"`) appears in that section;
 * - `docs/<name>.md "Layout"` and `README "Hostile input and abuse"`: a heading starting so;
 * - `SII format rule 9`: item 9 of the README's "SII format rules" list.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve('.');
const SELF = resolve('test/unit/citations.test.ts');
const SCANNED = ['src', 'test', 'bench', 'scripts', 'prisma/schema.prisma', 'resources', 'docs', 'README.md'];
const SKIPPED = new Set(['src/generated', 'test/fixtures', 'test/generated']);
const TEXT = /\.(ts|mts|mjs|js|sh|css|md|prisma)$/;

function filesUnder(path: string): string[] {
  const rel = relative(ROOT, path);
  if (SKIPPED.has(rel)) return [];
  if (!statSync(path).isDirectory()) return TEXT.test(path) ? [path] : [];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

interface Section {
  heading: string;
  body: string;
}

/** A markdown file's headings, each with the text up to the next heading of its level or above. */
function sections(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const found: Section[] = [];
  let inFence = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) inFence = !inFence;
    const m = !inFence && /^(#{1,6})\s+(.*)$/.exec(line);
    if (!m) return;
    const level = m[1]!.length;
    let end = i + 1;
    while (end < lines.length) {
      const next = /^(#{1,6})\s/.exec(lines[end]!);
      if (next && next[1]!.length <= level) break;
      end++;
    }
    found.push({ heading: m[2]!.trim(), body: lines.slice(i, end).join('\n') });
  });
  return found;
}

const cache = new Map<string, Section[] | null>();
function sectionsOf(file: string): Section[] | null {
  if (!cache.has(file)) {
    const path = join(ROOT, file);
    cache.set(file, existsSync(path) ? sections(readFileSync(path, 'utf8')) : null);
  }
  return cache.get(file)!;
}

const numbered = (s: Section, n: string) => new RegExp(`^${n.replaceAll('.', '\\.')}(\\.|\\s|$)`).test(s.heading);
const normal = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

/** Documents the repository does not have, and tracker references a reader cannot follow. */
const FOREIGN: [RegExp, string][] = [
  [/\bDESIGN\s*(§|\.md)/, 'DESIGN'],
  [/\bSTYLE\s*(§|"|\.md)/, 'STYLE'],
  [/\b[Cc]ontract\s*§/, 'the contract'],
  [/\bDASHBOARD\.md/, 'DASHBOARD.md'],
  [/\bSOURCES\.md/, 'SOURCES.md'],
  [/\bTOOLCHAIN\b/, 'TOOLCHAIN'],
  [/(?<!docs\/)\bRECEIVING\s*(§|\.md)/, "RECEIVING (the protocol brief; docs/receiving.md is the repository's)"],
  [/\bREFERENCE\.md/, 'REFERENCE.md'],
  [/\b[Ii]ssues? #?\d+\b/, 'an issue number'],
  [/\bRule \d+\b/, 'a bare rule number (write "SII format rule N")'],
];

/** What is wrong with the citations in one file's text (empty when all resolve). */
function citationProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  const at = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
  for (const [pattern, what] of FOREIGN) {
    for (const m of text.matchAll(new RegExp(pattern.source, 'g'))) {
      problems.push(`${at(m.index)}: cites ${what} ("${m[0]}"), which the repository does not have`);
    }
  }
  const doc = /\b(docs\/[\w.-]+\.md|README(?:\.md)?)\b((?:,? (?:and )?§[\d.]*\d)+)?(?: "([^"\n]+)")?/g;
  for (const m of text.matchAll(doc)) {
    // Another repository's file, named after its source tag or "its": `[RURAL] \`docs/…\``.
    const before = text.slice(text.lastIndexOf('\n', m.index) + 1, m.index);
    if (/(\[[A-Z-]+\]|\bits) `?$/.test(before)) continue;
    const name = m[1]!.startsWith('README') ? 'README.md' : m[1]!;
    const numbers = [...(m[2] ?? '').matchAll(/§([\d.]*\d)/g)].map((n) => n[1]!);
    const quoted = m[3];
    const found = sectionsOf(name);
    if (!found) {
      problems.push(`${at(m.index)}: ${name} does not exist`);
      continue;
    }
    for (const n of numbers) {
      const section = found.find((s) => numbered(s, n));
      if (!section) problems.push(`${at(m.index)}: ${name} has no section §${n}`);
      else if (quoted && numbers.length === 1 && !normal(section.body).includes(normal(quoted))) {
        problems.push(`${at(m.index)}: ${name} §${n} does not mention "${quoted}"`);
      }
    }
    if (quoted && numbers.length === 0 && !found.some((s) => s.heading.startsWith(quoted))) {
      if (name.startsWith('docs/') || m[1]!.startsWith('README')) {
        problems.push(`${at(m.index)}: ${name} has no heading "${quoted}"`);
      }
    }
  }
  const readme = sectionsOf('README.md') ?? [];
  const rules = readme.find((s) => s.heading.startsWith('SII format rules'))?.body ?? '';
  for (const m of text.matchAll(/\bSII format rules? (\d+)\b/g)) {
    if (!new RegExp(`^${m[1]}\\. `, 'm').test(rules)) {
      problems.push(`${at(m.index)}: the README's "SII format rules" has no rule ${m[1]}`);
    }
  }
  return problems;
}

describe('citations', () => {
  it('every citation in src, test, bench, scripts, resources, docs and the README resolves to the repository', () => {
    const problems = SCANNED.flatMap((p) => filesUnder(join(ROOT, p)))
      .filter((f) => f !== SELF)
      .flatMap((f) => citationProblems(relative(ROOT, f), readFileSync(f, 'utf8')));
    expect(problems).toEqual([]);
  });

  it('finds the citations that do not resolve', () => {
    const text = [
      '// (docs/design.md §6) fine; (docs/design.md §2, §6) fine; (docs/sii-reference.md §4.4) fine',
      '// (docs/design.md §7 "every stored document verifies"), docs/dashboard.md "Layout", README "Hostile input"',
      '// SII format rule 9 fine',
      '// (docs/design.md §42) (docs/nowhere.md §1) (docs/design.md §2, §99) docs/dashboard.md "Nothing"',
      '// (docs/design.md §7 "words not there") README "No such heading" SII format rule 99',
      '// DESIGN §5, STYLE §1, contract §4.2, DASHBOARD.md, SOURCES.md, issue 8, Rule 3, TOOLCHAIN §5',
      '// (issues 11 and 14), REFERENCE.md',
      '// [RURAL] `docs/THEIRS.md` and its `docs/OTHER.md` are files of other repositories',
    ].join('\n');
    const problems = citationProblems('x.ts', text).map((p) => p.replace(/^x\.ts:\d+: /, ''));
    expect(problems.sort()).toEqual(
      [
        'cites DESIGN ("DESIGN §"), which the repository does not have',
        'cites STYLE ("STYLE §"), which the repository does not have',
        'cites the contract ("contract §"), which the repository does not have',
        'cites DASHBOARD.md ("DASHBOARD.md"), which the repository does not have',
        'cites SOURCES.md ("SOURCES.md"), which the repository does not have',
        'cites TOOLCHAIN ("TOOLCHAIN"), which the repository does not have',
        'cites an issue number ("issue 8"), which the repository does not have',
        'cites an issue number ("issues 11"), which the repository does not have',
        'cites REFERENCE.md ("REFERENCE.md"), which the repository does not have',
        'cites a bare rule number (write "SII format rule N") ("Rule 3"), which the repository does not have',
        'docs/design.md has no section §42',
        'docs/nowhere.md does not exist',
        'docs/design.md has no section §99',
        'docs/dashboard.md has no heading "Nothing"',
        'docs/design.md §7 does not mention "words not there"',
        'README.md has no heading "No such heading"',
        `the README's "SII format rules" has no rule 99`,
      ].sort(),
    );
  });
});
