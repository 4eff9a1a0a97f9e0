/**
 * docs/scaling-out.md against the schema: the Citus plan must stay true as tables are added.
 * Every table is classified once; every distributed table carries the issuer (the distribution
 * column); every unique key of a distributed table includes it or is named in §4.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync('docs/scaling-out.md', 'utf8');
const schema = readFileSync('prisma/schema.prisma', 'utf8');

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

interface Table {
  name: string;
  hasIssuer: boolean;
  /** Unique keys (primary key included) as column lists. */
  keys: string[][];
}

function tables(): Table[] {
  return [...schema.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)].map(([, model, body]) => {
    const name = /@@map\("(\w+)"\)/.exec(body!)?.[1] ?? model!;
    const keys: string[][] = [];
    for (const line of body!.split('\n')) {
      const field = /^\s+(\w+)\s+[^\s/]+.*?@(?:id|unique)\b/.exec(line);
      if (field && !/^\s*(@@|\/\/)/.test(line)) keys.push([snake(field[1]!)]);
      const compound = /^\s+@@(?:id|unique)\(\[([^\]]*)\]/.exec(line);
      if (compound) keys.push(compound[1]!.split(',').map((c) => snake(c.trim().split('(')[0]!)));
    }
    return { name, hasIssuer: /^\s+issuerId\s/m.test(body!), keys };
  });
}

/** The backticked table names listed under the section numbered `n`. */
function listed(n: number): string[] {
  const section = new RegExp(`^## ${n}\\. [^\\n]*\\n([\\s\\S]*?)(?=^## |$(?![\\s\\S]))`, 'm').exec(doc)?.[1] ?? '';
  return [...section.matchAll(/^- `(\w+)`/gm)].map((m) => m[1]!);
}

/** §4's keys: "`table` (`col`, `col`)" → "table(col,col)". */
function widened(): Set<string> {
  const section = /^## 4\. [^\n]*\n([\s\S]*?)(?=^## )/m.exec(doc)?.[1] ?? '';
  return new Set(
    [...section.matchAll(/`(\w+)` \(((?:`\w+`(?:, )?)+)\)/g)].map(
      (m) => `${m[1]}(${[...m[2]!.matchAll(/`(\w+)`/g)].map((c) => c[1]).join(',')})`,
    ),
  );
}

describe('docs/scaling-out.md (Citus by issuer) against prisma/schema.prisma', () => {
  const all = tables();
  const distributed = listed(2);
  const reference = listed(3);

  it('classifies every table once, and only tables that exist', () => {
    expect([...distributed, ...reference].sort()).toEqual(all.map((t) => t.name).sort());
  });

  it('every distributed table carries issuer_id, the distribution column', () => {
    const without = all.filter((t) => distributed.includes(t.name) && !t.hasIssuer).map((t) => t.name);
    expect(without).toEqual([]);
  });

  it("every unique key of a distributed table includes issuer_id or is listed to widen (Citus's rule)", () => {
    const keys = widened();
    const unlisted = all
      .filter((t) => distributed.includes(t.name))
      .flatMap((t) => t.keys.filter((k) => !k.includes('issuer_id')).map((k) => `${t.name}(${k.join(',')})`))
      .filter((k) => !keys.has(k));
    expect(unlisted).toEqual([]);
  });

  it('the hot statements of issuing filter on the issuer (they route to one shard)', () => {
    const reserve = readFileSync('src/issuing/folios.ts', 'utf8');
    expect(reserve).toMatch(/issuer_id = \$\d/);
    const insert = readFileSync('src/issuing/document-insert.ts', 'utf8');
    expect(insert).toMatch(/issuer_id/);
  });
});
