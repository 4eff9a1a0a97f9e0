/**
 * Pure rules of events: the document state owner's transition rule, the SSRF address
 * classification and its connect-time guard, the retry schedule and the signature format
 * (checked against the `standardwebhooks` package).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { postWebhook, retryDelay, signPayload } from '../../src/events/deliveries.ts';
import { isBlockedAddress } from '../../src/events/ssrf.ts';
import { resolveState } from '../../src/issuing/document-state.ts';
import { testConfig } from '../helpers/app.ts';

describe('document state rule', () => {
  it('moves forward on the SII verdict and never back from an acceptance', () => {
    expect(resolveState('pendiente', 'enviado')).toBe('enviado');
    expect(resolveState('enviado', 'aceptado')).toBe('aceptado');
    expect(resolveState('enviado', 'rechazado')).toBe('rechazado');
    expect(resolveState('aceptado', 'aceptado_con_reparos')).toBe('aceptado_con_reparos');
    // DOK carries no objections: reparos stay.
    expect(resolveState('aceptado_con_reparos', 'aceptado')).toBe('aceptado_con_reparos');
    expect(resolveState('aceptado', 'enviado')).toBe('aceptado');
    expect(resolveState('aceptado', 'rechazado')).toBe('aceptado');
    expect(resolveState('aceptado', 'anulado')).toBe('anulado');
    expect(resolveState('aceptado_con_reparos', 'anulado')).toBe('anulado');
    expect(resolveState('anulado', 'aceptado')).toBe('anulado');
    // A rejected document may be resubmitted.
    expect(resolveState('rechazado', 'pendiente')).toBe('pendiente');
    // Sandbox documents only get voided.
    expect(resolveState('local', 'anulado')).toBe('anulado');
    expect(resolveState('local', 'aceptado')).toBe('local');
    // Only an accepted document can be voided.
    expect(resolveState('pendiente', 'anulado')).toBe('pendiente');
  });
});

describe('SSRF guard', () => {
  it('classifies non-public addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '224.0.0.1',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '200.10.20.30', '2800:3f0:4001:810::200e', '::ffff:8.8.8.8']) {
      expect(isBlockedAddress(ip), ip).toBe(false);
    }
  });

  it('refuses at connect time a name that resolves to loopback, and an IP literal', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const ctx = { config: testConfig(), clock: () => new Date() } as never;
    try {
      const byName = await postWebhook(
        ctx,
        { url: `http://localhost:${port}/`, secret: 'whsec_AAAA' },
        { id: 'x', body: '{}' },
      );
      expect(byName.error).toMatch(/blocked|non-public/);
      const byIp = await postWebhook(
        ctx,
        { url: `http://127.0.0.1:${port}/`, secret: 'whsec_AAAA' },
        { id: 'x', body: '{}' },
      );
      expect(byIp.error).toMatch(/blocked/);
      expect(hits).toBe(0);
      const allowed = {
        config: testConfig({ TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true' }),
        clock: () => new Date(),
      } as never;
      const ok = await postWebhook(
        allowed,
        { url: `http://localhost:${port}/`, secret: 'whsec_AAAA' },
        { id: 'x', body: '{}' },
      );
      expect(ok).toMatchObject({ status: 200, error: null });
    } finally {
      server.close();
    }
  });

  it('does not follow redirects', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/' });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const ctx = { config: testConfig({ TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true' }), clock: () => new Date() } as never;
    try {
      const r = await postWebhook(
        ctx,
        { url: `http://127.0.0.1:${port}/`, secret: 'whsec_AAAA' },
        { id: 'x', body: '{}' },
      );
      expect(r.status).toBe(302);
      expect(r.error).toMatch(/redirect .* not followed/);
    } finally {
      server.close();
    }
  });
});

describe('signatures and retries', () => {
  it('signs as Standard Webhooks verifies', () => {
    const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const ts = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ id: 'e1', type: 'ping', created_at: new Date().toISOString(), data: {} });
    const signature = signPayload(secret, 'e1', ts, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(body, {
      'webhook-id': 'e1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signature,
    });
    expect(verified).toMatchObject({ id: 'e1', type: 'ping' });
    expect(() =>
      new Webhook(secret).verify(`${body} `, {
        'webhook-id': 'e1',
        'webhook-timestamp': String(ts),
        'webhook-signature': signature,
      }),
    ).toThrow();
  });

  it('the default schedule retries for at least 3 days (the last delay repeating)', () => {
    const { WEBHOOK_RETRY_SCHEDULE_MS: schedule, WEBHOOK_DISABLE_AFTER_MS: window } = testConfig();
    expect(schedule.slice(0, 3)).toEqual([5000, 300_000, 1_800_000]);
    // Attempt times until the window closes; the last one is moved to the window's end.
    const times = [0];
    for (let n = 1; (times.at(-1) ?? 0) < window; n++)
      times.push(Math.min((times.at(-1) ?? 0) + retryDelay(schedule, n), window));
    expect(window).toBeGreaterThanOrEqual(3 * 24 * 3600 * 1000);
    expect(times.at(-1)).toBe(window);
    expect(times).toHaveLength(10);
    expect(retryDelay(schedule, 50)).toBe(86_400_000);
  });
});
