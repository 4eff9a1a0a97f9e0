/**
 * The dashboard's Webhooks page and the document page's "Eventos y correos", in chromium
 * (playwright-core, /usr/bin/chromium) against a real PostgreSQL, a local webhook receiver that
 * verifies every delivery with the `standardwebhooks` package (not Timbre's code) and an
 * in-process SMTP server. Webhook targets on 127.0.0.1 need TIMBRE_WEBHOOKS_ALLOW_PRIVATE; the
 * SSRF refusal is checked on a second app without it. axe-core on every page; screenshots at
 * 1280 and 390 px into test-artifacts/screenshots/webhooks-*.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/users.ts';
import { createEndpoint, deleteEndpoint, testEndpoint } from '../../src/events/webhooks.ts';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { type MailCatcher, startMailCatcher, startWebhookReceiver, type WebhookReceiver } from '../helpers/events.ts';
import { eventually } from '../helpers/live.ts';
import { factura, RECEIVER } from '../helpers/requests.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PASSWORD = 'correct horse battery staple';

let t: TestApp;
const receivers: WebhookReceiver[] = [];
let mail: MailCatcher;
let base: string;
let browser: Browser;
let page: Page;
let issuer: Issuer;
const browserErrors: string[] = [];

beforeAll(async () => {
  mail = await startMailCatcher();
  t = await buildTestApp({
    env: {
      JOBS_ENABLED: 'true',
      TIMBRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: '50',
      SMTP_URL: mail.url,
      MAIL_FROM: 'Facturas <facturas@timbre.test>',
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  issuer = await createTestIssuer(t.ctx, { name: 'Ferretería Ñandú SpA', ambiente: 0 });
  for (const [email, role] of [
    ['duena@ferreteria.cl', 'owner'],
    ['editor@ferreteria.cl', 'editor'],
    ['lector@ferreteria.cl', 'viewer'],
  ] as const) {
    await createUser(t.ctx, { accountId: issuer.accountId, email, role, password: PASSWORD });
  }
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = await newPage();
  await signIn(page, 'duena@ferreteria.cl');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  for (const r of receivers) await r.close();
  await mail?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ locale: 'es-CL', timezoneId: 'America/Santiago' });
  const p = await context.newPage();
  p.setDefaultTimeout(20_000);
  p.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) browserErrors.push(m.text());
  });
  p.on('pageerror', (e) => browserErrors.push(e.message));
  return p;
}

async function signIn(p: Page, email: string): Promise<void> {
  await p.goto(`${base}/dashboard/entrar`);
  await p.fill('#email', email);
  await p.fill('#password', PASSWORD);
  await Promise.all([p.waitForURL(/\/dashboard\/[^/]+\/documentos/), p.click('button:has-text("Entrar")')]);
}

/** axe-core (no serious or critical violations), then screenshots at 1280 and 390 px. */
async function look(p: Page, name: string): Promise<void> {
  await p.evaluate(AXE);
  const violations = (await p.evaluate(
    `axe.run({ resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`,
  )) as { id: string; impact: string }[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${p.url()}: ${JSON.stringify(serious)}`).toEqual([]);
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: 900 });
    await p.screenshot({ path: join(SHOTS, `webhooks-${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 900 });
}

const dash = (path: string) => `${base}/dashboard/${issuer.rut}/${path}`;

/** A receiver of its own per test (each endpoint has its own secret), closed after the file. */
async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
}

describe('Webhooks page', () => {
  it('creates an endpoint (secret shown once), pings it, logs and redelivers the ping, deletes it', async () => {
    const rx = await receiver();
    await page.goto(dash('webhooks'));
    await page.fill('#wh-url', rx.url);
    await page.fill('#wh-description', 'ERP contabilidad');
    await page.click('button:has-text("Agregar endpoint")');
    const secret = (await page.textContent('#new-secret'))?.trim() ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await page.textContent('.new-key')).toContain('no se volverá a mostrar');
    expect(await page.locator('.new-key button[data-copy="new-secret"]').count()).toBe(1);
    expect(await page.textContent('table.list')).toContain(rx.url);
    await look(page, 'secreto');
    rx.setSecret(secret);
    await page.goto(dash('webhooks'));
    expect(await page.content()).not.toContain(secret);
    const endpointRow = page.locator(`table.list tr:has-text("${rx.url}")`).first();
    expect(await endpointRow.textContent()).toContain('ERP contabilidad');

    // Enviar prueba: the receiver verifies the ping with the secret it was shown.
    await endpointRow.locator('button:has-text("Enviar prueba")').click();
    expect(await page.textContent('.notice-ok')).toMatch(/Prueba entregada: el endpoint respondió HTTP 200 en \d+ ms/);
    const ping = rx.received.find((r) => r.verified?.type === 'ping');
    expect(ping?.error).toBeNull();
    expect(ping?.verified?.data).toMatchObject({ url: rx.url });
    const logRow = page.locator(`table.deliveries tbody tr:has-text("${rx.url}")`);
    expect(await logRow.count()).toBe(1);
    const cells = await logRow.locator('td').allTextContents();
    expect(cells[1]).toContain('Prueba (ping)');
    expect(cells.slice(3, 7)).toEqual(['1', '200', expect.stringMatching(/^\d+ ms$/), '—']);
    await look(page, 'entregas');

    // Reenviar: the same event again (same webhook-id), through the jobs.
    await logRow.locator('button:has-text("Reenviar")').click();
    expect(await page.textContent('.notice-ok')).toContain('Evento en cola para reenviarse a 1 endpoint');
    await eventually(async () => rx.received.filter((r) => r.verified?.type === 'ping').length === 2);
    const [first, again] = rx.received.filter((r) => r.verified?.type === 'ping');
    expect(again?.error).toBeNull();
    expect(again?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    await eventually(async () => {
      await page.goto(dash('webhooks'));
      return (await logRow.count()) === 2;
    });

    // Eliminar, after a confirmation naming the URL.
    await page.locator(`table.list tr:has-text("${rx.url}") button:has-text("Eliminar")`).first().click();
    expect(await page.textContent('.confirm h2')).toContain(rx.url);
    expect(await page.textContent('.confirm')).toContain('Dejará de recibir eventos');
    await look(page, 'eliminar');
    await page.click('button:has-text("Sí, eliminar")');
    expect(await page.textContent('.notice-ok')).toContain('Endpoint eliminado');
    expect(await page.locator(`table.list tr:has-text("${rx.url}")`).count()).toBe(0);
    expect(await t.db.prisma.webhookEndpoint.count({ where: { url: rx.url } })).toBe(0);
    expect(browserErrors).toEqual([]);
  });

  it('tells a bad URL next to the field and saves nothing', async () => {
    await page.goto(dash('webhooks'));
    await page.fill('#wh-url', 'ftp://erp.ferreteria.cl/eventos');
    await page.click('summary:has-text("Eventos")');
    await page.check('input[name="events"][value="document.rejected"]');
    await page.click('button:has-text("Agregar endpoint")');
    expect(await page.textContent('#wh-url-error')).toContain('La URL debe empezar con https://');
    expect(await page.getAttribute('#wh-url', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#wh-url')).toBe('ftp://erp.ferreteria.cl/eventos');
    // What was chosen stays chosen (the event list re-opens with its box ticked).
    expect(await page.isChecked('input[name="events"][value="document.rejected"]')).toBe(true);
    await look(page, 'error');
    expect(await t.db.prisma.webhookEndpoint.count({ where: { url: { startsWith: 'ftp:' } } })).toBe(0);
  });

  it('lists document.issued on the document page, with its e-mail, and e-mails it again', async () => {
    const rx = await receiver();
    rx.setSecret((await createEndpoint(t.ctx, issuer, { url: rx.url, events: ['document.issued'] })).secret);
    const key = await createTestKey(t.ctx, issuer.rut, 'owner');
    const res = await fetch(`${base}/api/${issuer.rut}/emitir`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(factura()),
    });
    expect(res.status).toBe(200);
    const { folio } = (await res.json()) as { folio: number };
    const issued = await eventually(async () => rx.received.find((r) => r.verified?.data.folio === folio));
    expect(issued.verified).toMatchObject({ type: 'document.issued', data: { type: 33, folio } });
    const subject = `N° ${folio} `;
    await eventually(async () => mail.messages.some((m) => m.subject?.includes(subject)));
    await eventually(async () => {
      await page.goto(dash(`documentos/33/${folio}`));
      return (await page.textContent('section[aria-labelledby="h-eventos"]'))?.includes('Correo enviado');
    });
    const block = page.locator('section[aria-labelledby="h-eventos"]');
    const events = (await block.textContent()) ?? '';
    expect(events).toContain('Documento emitido');
    expect(events).toContain('document.issued');
    expect(events).toMatch(/\d{2}-\d{2}-\d{4} \d{2}:\d{2}/);
    expect(events).not.toContain('se mostrará aquí');
    expect(await block.locator('table.emails tr:has-text("Enviado")').textContent()).toContain(RECEIVER.email);

    await page.fill('#mail-to', 'contabilidad@nandu.cl, no-es-correo');
    await page.click('button:has-text("Reenviar por correo")');
    expect(await page.textContent('#mail-to-error')).toContain('«no-es-correo» no es un correo electrónico.');
    expect(await page.inputValue('#mail-to')).toBe('contabilidad@nandu.cl, no-es-correo');
    await page.fill('#mail-to', 'contabilidad@nandu.cl');
    await page.click('button:has-text("Reenviar por correo")');
    expect(await page.textContent('.notice-ok')).toContain('Correo en cola');
    const again = await eventually(async () =>
      mail.messages.find((m) => m.subject?.includes(subject) && JSON.stringify(m.to).includes('contabilidad@nandu.cl')),
    );
    expect(again.attachments.map((a) => a.contentType)).toContain('application/pdf');
    await eventually(async () => {
      await page.reload();
      return (
        (await block.locator('table.emails tr:has-text("contabilidad@nandu.cl"):has-text("Enviado")').count()) === 1
      );
    });
    await look(page, 'documento-eventos');
  });

  it('gives editors and viewers the endpoints and the log, but none of the actions', async () => {
    const rx = await receiver();
    const endpoint = await createEndpoint(t.ctx, issuer, { url: rx.url, description: 'Solo lectura' });
    rx.setSecret(endpoint.secret);
    await testEndpoint(t.ctx, issuer, endpoint.id);
    const doc = await t.db.prisma.document.findFirst({ where: { issuerId: issuer.id } });
    for (const email of ['editor@ferreteria.cl', 'lector@ferreteria.cl']) {
      const p = await newPage();
      await signIn(p, email);
      await p.goto(dash('webhooks'));
      expect(await p.textContent('table.list')).toContain(rx.url);
      expect(await p.textContent(`table.deliveries tr:has-text("${rx.url}")`)).toContain('Prueba (ping)');
      expect(await p.textContent('main')).toContain('Solo el dueño de la cuenta puede');
      for (const action of ['Agregar endpoint', 'Enviar prueba', 'Eliminar', 'Reenviar']) {
        expect(await p.locator(`main button:has-text("${action}")`).count(), `${email}: ${action}`).toBe(0);
      }
      if (email.startsWith('lector')) await look(p, 'lector');
      const csrf = (await p.getAttribute('input[name="_csrf"]', 'value')) ?? '';
      for (const path of ['webhooks', `webhooks/${endpoint.id}/prueba`, `webhooks/${endpoint.id}/eliminar`]) {
        const post = await p.request.post(dash(path), {
          form: { _csrf: csrf, url: 'https://example.cl/x', confirm: '1' },
          maxRedirects: 0,
        });
        expect(post.status(), `${email} POST ${path}`).toBe(403);
      }
      if (doc) {
        // E-mailing a document again is for owners and editors, as on the API.
        await p.goto(dash(`documentos/${doc.type}/${doc.folio}`));
        expect(await p.locator('button:has-text("Reenviar por correo")').count()).toBe(
          email.startsWith('editor') ? 1 : 0,
        );
      }
      await p.context().close();
    }
    expect(await t.db.prisma.webhookEndpoint.count({ where: { id: endpoint.id } })).toBe(1);
    expect(await t.db.prisma.webhookEndpoint.count({ where: { url: 'https://example.cl/x' } })).toBe(0);
    await deleteEndpoint(t.ctx, issuer, endpoint.id);
  });

  it('refuses an 11th endpoint with the limit explained', async () => {
    const have = await t.db.prisma.webhookEndpoint.count({ where: { issuerId: issuer.id } });
    const made: string[] = [];
    for (let i = have; i < 10; i++) {
      made.push((await createEndpoint(t.ctx, issuer, { url: `https://erp.ferreteria.cl/hooks/${i}` })).id);
    }
    await page.goto(dash('webhooks'));
    expect(await page.textContent('main')).toContain(
      'Ya hay 10 endpoints en este emisor: elimina uno para agregar otro.',
    );
    expect(await page.locator('button:has-text("Agregar endpoint")').isDisabled()).toBe(true);
    // A form sent anyway (a stale tab) is refused the same way, next to the form.
    const csrf = (await page.getAttribute('input[name="_csrf"]', 'value')) ?? '';
    const res = await page.request.post(dash('webhooks'), {
      form: { _csrf: csrf, url: 'https://erp.ferreteria.cl/once' },
    });
    expect(res.status()).toBe(409);
    expect(await res.text()).toContain('Ya hay 10 endpoints en este emisor');
    for (const id of made) await deleteEndpoint(t.ctx, issuer, id);
  });
});

describe('Webhooks page without TIMBRE_WEBHOOKS_ALLOW_PRIVATE', () => {
  it('refuses a loopback URL in plain Spanish next to the field', async () => {
    const strict = await buildTestApp();
    try {
      const who = await createTestIssuer(strict.ctx, { ambiente: 0 });
      await createUser(strict.ctx, { accountId: who.accountId, email: 'd@x.cl', role: 'owner', password: PASSWORD });
      const form = await strict.app.inject({ method: 'GET', url: '/dashboard/entrar' });
      const pre = /timbre_csrf=([^;]+)/.exec(String(form.headers['set-cookie']))?.[1] ?? '';
      const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
      const signed = await strict.app.inject({
        method: 'POST',
        url: '/dashboard/entrar',
        headers: { cookie: `timbre_csrf=${pre}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: token, email: 'd@x.cl', password: PASSWORD }).toString(),
      });
      const cookie = /timbre_session=[^;]+/.exec(String(signed.headers['set-cookie']))?.[0] ?? '';
      const pageRes = await strict.app.inject({
        method: 'GET',
        url: `/dashboard/${who.rut}/webhooks`,
        headers: { cookie },
      });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(pageRes.body)?.[1] ?? '';
      const res = await strict.app.inject({
        method: 'POST',
        url: `/dashboard/${who.rut}/webhooks`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, url: 'http://127.0.0.1:8080/hooks' }).toString(),
      });
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain(
        'id="wh-url-error">127.0.0.1 es una dirección privada o local: Timbre solo envía webhooks a direcciones públicas de internet.',
      );
      expect(await strict.db.prisma.webhookEndpoint.count()).toBe(0);
    } finally {
      await strict.close();
    }
  });
});
