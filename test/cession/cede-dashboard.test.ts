/**
 * The cesión in a real browser (README "Cesión", dashboard): an owner opens an acknowledged
 * live factura, follows "Ceder", fills the form and sends it; the document page then shows the
 * cesión and the Cesiones page lists it. Screenshots at 1280 and 390 px go to
 * test-artifacts/screenshots/ (cesion-*.png); CSP or script errors fail the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTestCertificate, parsePkcs12 } from '../../src/dte/certificate.ts';
import { createSiiClient } from '../../src/sii/client.ts';
import { ingresarAceptacionReclamoDoc } from '../../src/sii/registro-reclamo.ts';
import { createSiiSimulator, type SiiSimulator } from '../../src/sii-simulator/index.ts';
import {
  afterBrowserTest,
  type BrowserHarness,
  screenshot,
  startBrowserHarness,
  stopBrowserHarness,
} from '../helpers/browser.ts';
import { dashboardSession } from '../helpers/dashboard.ts';
import { createLiveIssuer, estadoOf, eventually, liveEnv } from '../helpers/live.ts';
import { factura } from '../helpers/requests.ts';

let sim: SiiSimulator;
let url: string;
let h: BrowserHarness;

beforeAll(async () => {
  sim = createSiiSimulator({ stepDelayMs: 20 });
  ({ url } = await sim.listen(0));
  h = await startBrowserHarness(liveEnv(sim, url));
});

afterAll(async () => {
  await stopBrowserHarness(h);
  await sim.close();
});

describe('Ceder in the dashboard', () => {
  it('an owner cedes an acknowledged factura from its page and finds it under Cesiones', async () => {
    const live = await createLiveIssuer(h.t, sim, [33]);
    const issued = await h.t.app.inject({
      method: 'POST',
      url: `/api/${live.rut}/emitir`,
      headers: live.auth,
      payload: factura(),
    });
    const folio = issued.json().folio as number;
    await eventually(async () => (await estadoOf(h.t, live.rut, 33, folio)) === 'aceptado');
    const { p12, password } = generateTestCertificate({ holderRut: '8414240-9', name: 'Cliente de Prueba' });
    const sii = createSiiClient({
      config: { ...liveEnv(sim, url), SII_TIMEOUT_MS: 3000 } as never,
      clock: () => new Date(),
    });
    const erm = await ingresarAceptacionReclamoDoc(
      { sii, cert: parsePkcs12(p12, password) },
      { rutEmisor: live.rut, tipoDoc: 33, folio },
      'ERM',
    );
    expect(erm.codResp).toBe(0);

    const session = await dashboardSession(h.t, live.issuer);
    const context = await h.browser.newContext({ locale: 'es-CL', timezoneId: 'America/Santiago' });
    h.contexts.push(context);
    const [name, value] = session.cookie.split(';')[0]!.split('=') as [string, string];
    await context.addCookies([{ name, value, url: h.base }]);
    const page = await context.newPage();
    page.on('pageerror', (e) => h.errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) h.errors.push(m.text());
    });

    await page.goto(`${h.base}/dashboard/${live.rut}/documentos/33/${folio}`);
    await page.click('a:has-text("Ceder")');
    await page.fill('#c-rut', '96.516.320-4');
    await page.fill('#c-razon', 'Factoring del Sur S.A.');
    await page.fill('#c-dir', 'Av. Apoquindo 3000, Las Condes');
    await page.fill('#c-email', 'operaciones@factoringdelsur.cl');
    await page.fill('#c-venc', '2099-12-31');
    await page.fill('#c-deudor', 'facturas@nandu.cl');
    await page.fill('#c-cedente', 'cobranzas@emisor.cl');
    await screenshot(page, 'cesion-form');
    await Promise.all([page.waitForURL(/ok=cedida/), page.click('button:has-text("Ceder")')]);
    await eventually(async () => {
      await page.reload();
      return (await page.content()).includes('>Cedida</span>');
    });
    await screenshot(page, 'cesion-document');
    await page.goto(`${h.base}/dashboard/${live.rut}/cesiones`);
    expect(await page.content()).toContain('Factoring del Sur S.A.');
    await screenshot(page, 'cesion-list');
    await afterBrowserTest(h);
  });
});
