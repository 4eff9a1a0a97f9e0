/**
 * The README's first start: `npm start` on a fresh database creates the demo sandbox issuer
 * and an owner key, and prints the key with a ready `curl` line that works. A second start
 * prints no new key. Runs the real server process (src/server.ts).
 */
import { beforeAll, expect, it } from 'vitest';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { startServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/time.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

it('the first start prints the demo issuer, its owner key and a curl line that works; the next start prints no key', async () => {
  const first = await startServer(t, { TIMBRE_DEMO: 'true', PUBLIC_BASE_URL: 'http://localhost:3000' });
  let banner: string;
  try {
    banner = await waitFor(() => /Try it:[\s\S]*curl .*\n/.exec(first.output())?.[0], { what: 'the banner' });
    expect(first.output()).toContain('Issuer RUT : 76086428-5');
    // The signing worker boots with the server, not during the first document (src/server.ts).
    await waitFor(() => first.output().includes('signing workers ready'), { what: 'the signing workers' });
    const key = /Owner key\s+: (timbre_[0-9A-Za-z]{40})/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    expect(banner).toContain(`curl -H "Authorization: Bearer ${key}" http://localhost:3000/api/76086428-5/emisiones`);
    // The printed command, sent to this server: it answers the (empty) list.
    const res = await fetch(`${first.url}/api/76086428-5/emisiones`, { headers: bearer(key!) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, total: 0, data: [] });
  } finally {
    await first.stop();
  }

  const second = await startServer(t, { TIMBRE_DEMO: 'true' });
  try {
    await waitFor(() => second.output().includes('already exists'), { what: 'the second-start notice' });
    expect(second.output()).not.toMatch(/timbre_[0-9A-Za-z]{40}/);
    expect(second.output()).toContain('key create --rut 76086428-5 --role owner');
    const keys = await t.ctx.db.prisma.apiKey.count({ where: { issuer: { rut: '76086428-5' } } });
    expect(keys).toBe(1);
  } finally {
    await second.stop();
  }
});
