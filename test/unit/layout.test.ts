/**
 * The layout a newcomer reads (docs/style.md "The shape"): no import cycles between files of src/, and
 * none between its parts (admin, issuing, dte, sii, …): a helper two parts share lives below
 * both. Type-only imports count too: they couple the files just the same.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

const files = sourceFiles(SRC);
const known = new Set(files);
const imports = new Map<string, string[]>(
  files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'/g)]
      .map((m) => resolve(dirname(file), m[1]!))
      .filter((t) => known.has(t));
    return [file, targets];
  }),
);

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
});
