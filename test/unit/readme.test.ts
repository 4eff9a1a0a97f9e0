/**
 * The README tells the truth about the repository: every path it names exists, and its list of
 * folders under "Architecture" / "Folders" is the folders of src/, no more and no fewer.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const README = readFileSync('README.md', 'utf8');

/** The repository paths a text names (`src/…`, `test/…`, …), without placeholders or globs. */
function namedPaths(text: string): string[] {
  const found = text.matchAll(/(?<![\w@./-])(?:src|test|scripts|docs|bench|prisma|resources)\/[\w./<>*{}-]*/g);
  return [...new Set([...found].map((m) => m[0].replace(/[.,:]+$/, '')))].filter((p) => !/[<>*{}]/.test(p));
}

/** The text of the README section under `heading` (up to the next heading of its level or above). */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^#+ ${heading}$`).test(l));
  if (start < 0) return '';
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The folders described in a text: `src/…/` mentions, with the trailing slash. */
function describedFolders(text: string): string[] {
  return [...new Set([...text.matchAll(/`(src\/[\w/-]+)\/`/g)].map((m) => m[1]!))].sort();
}

function foldersUnder(dir: string): string[] {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isDirectory() && path !== join('src', 'generated'))
    .flatMap((path) => [path, ...foldersUnder(path)]);
}

describe('README', () => {
  it('names only paths that exist', () => {
    const missing = namedPaths(README).filter((p) => !existsSync(p));
    expect(missing).toEqual([]);
  });

  it('describes every folder of src/ under "Folders", and no folder that is not there', () => {
    const described = describedFolders(section(README, 'Folders'));
    expect(described).toEqual(foldersUnder('src').sort());
  });

  it('the checks see what they look for', () => {
    expect(namedPaths('see `src/dte/pdf.ts`, test/unit/x.test.ts. and @prisma/client, src/<part>/')).toEqual([
      'src/dte/pdf.ts',
      'test/unit/x.test.ts',
    ]);
    expect(describedFolders('- `src/http/` — the API; `src/http/routes/` one file each; `src/app.ts`')).toEqual([
      'src/http',
      'src/http/routes',
    ]);
    expect(section('## A\n\n### Folders\n\nx\n\n### B\n\ny\n', 'Folders')).toBe('### Folders\n\nx\n');
  });
});
