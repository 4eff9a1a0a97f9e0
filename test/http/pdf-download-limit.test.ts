/**
 * README, "Downloads": PDF downloads that read the database or render — at most
 * `PDF_DOWNLOAD_CONCURRENCY` at once per instance — wait their turn. The renderer is wrapped so
 * each render waits for the test to let it go: no timing, only who is inside at once.
 */
import { expect, it } from 'vitest';
import { buildTestApp, createTestTenant } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';
import { waitFor } from '../helpers/time.ts';

it('at most PDF_DOWNLOAD_CONCURRENCY first downloads render at once; the others wait their turn and are served', async () => {
  const t = await buildTestApp({
    env: { PDF_DOWNLOAD_CONCURRENCY: '2', PDF_RENDER_CONCURRENCY: '4', FILE_CACHE_MB: '0' },
  });
  const { rut, api } = await createTestTenant(t);
  const folios: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await api.post(`/api/${rut}/emitir`, factura());
    expect(res.statusCode, res.body).toBe(200);
    folios.push(res.json().folio);
  }

  const render = t.ctx.pdf.render.bind(t.ctx.pdf);
  const held: Array<() => void> = [];
  let inside = 0;
  let most = 0;
  t.ctx.pdf.render = async (input, key) => {
    inside += 1;
    most = Math.max(most, inside);
    await new Promise<void>((go) => held.push(go));
    try {
      return await render(input, key);
    } finally {
      inside -= 1;
    }
  };

  const downloads = folios.map((folio) => api.get(`/api/${rut}/pdf/33/${folio}`));
  // Let one render go at a time: each time, the next download takes the slot it leaves.
  for (let left = folios.length; left > 0; left--) {
    await waitFor(() => held.length === Math.min(2, left), { what: `${Math.min(2, left)} renders waiting` });
    expect(inside).toBeLessThanOrEqual(2);
    held.shift()!();
  }
  const answers = await Promise.all(downloads);
  for (const res of answers) {
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  }
  expect(most).toBe(2);
});
