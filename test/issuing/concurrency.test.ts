/**
 * 200 concurrent issues for one issuer and type, spread over two independent connection pools
 * (as two app instances would be): every folio distinct, one contiguous block, none skipped.
 */
import { beforeAll, expect, it } from 'vitest';
import { createKeyCaches } from '../../src/context.ts';
import { openDatabase } from '../../src/db/database.ts';
import { issueDocument } from '../../src/issuing/issue-document.ts';
import { generateSandboxRange } from '../../src/issuing/folios.ts';
import { buildTestApp, createTestIssuer, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

it('200 concurrent issues over two pools get 200 distinct, contiguous folios', async () => {
  const issuer = await createTestIssuer(t.ctx);
  await generateSandboxRange(t.ctx, issuer, 33, 150);
  await generateSandboxRange(t.ctx, issuer, 33, 150);
  const second = await openDatabase(t.config, { url: t.db.url, migrate: false, poolMax: 10 });
  const ctx2 = { ...t.ctx, db: second, caches: createKeyCaches() };
  try {
    const req = issueRequestSchema.parse(factura());
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => issueDocument(i % 2 === 0 ? t.ctx : ctx2, issuer, req)),
    );
    const folios = results.map((r) => r.document.folio).sort((a, b) => a - b);
    expect(new Set(folios).size).toBe(200);
    expect(folios[0]).toBe(1);
    expect(folios[199]).toBe(200);
    const stored = await t.ctx.db.prisma.document.count({ where: { issuerId: issuer.id, type: 33 } });
    expect(stored).toBe(200);
    const ranges = await t.ctx.db.prisma.caf.findMany({
      where: { issuerId: issuer.id, type: 33 },
      orderBy: { rangeFrom: 'asc' },
    });
    expect(ranges.map((r) => r.nextFolio)).toEqual([151, 201]);
  } finally {
    await second.close();
  }
  // 200 signed documents: a deadline, not a speed claim (a loaded machine took over a minute).
}, 600_000);
