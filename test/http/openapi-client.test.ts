/**
 * A client generated from /openapi.json, used as an integrator would: openapi-typescript's
 * types (committed as test/generated/timbre-api.d.ts, so `npm run typecheck` checks every
 * call below against them) with openapi-fetch at run time, against a real listening app.
 * Every JSON answer is also validated (ajv, JSON Schema 2020-12) against the schema the
 * description documents for its operation and status.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_TYPES_PATH, clientTypes } from '../../scripts/openapi-types.ts';
import type { paths } from '../generated/timbre-api.d.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let rut: string;
let api: ReturnType<typeof createClient<paths>>;
let anonymous: ReturnType<typeof createClient<paths>>;
const answers: Array<{ path: string; method: string; status: number; body: unknown }> = [];

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  const key = await createTestKey(t.ctx, rut, 'owner');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  anonymous = createClient<paths>({ baseUrl });
  for (const client of [api, anonymous]) {
    client.use({
      async onResponse({ request, response, schemaPath }) {
        if (!response.headers.get('content-type')?.startsWith('application/json')) return;
        const body = await response.clone().json();
        answers.push({ path: schemaPath, method: request.method.toLowerCase(), status: response.status, body });
      },
    });
  }
});

afterAll(async () => {
  await t?.close();
});

/**
 * Every JSON answer the client received since the last call matches the schema documented for
 * its operation and status (ajv, JSON Schema 2020-12, against the served description).
 */
async function expectDocumentedAnswers(atLeast: number): Promise<void> {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi');
  const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const seen = answers.splice(0);
  expect(seen.length).toBeGreaterThanOrEqual(atLeast);
  for (const a of seen) {
    const validate = ajv.compile({
      $ref: `openapi#/paths/${pointer(a.path)}/${a.method}/responses/${a.status}/content/${pointer('application/json')}/schema`,
    });
    const ok = validate(a.body);
    expect({ answer: `${a.method} ${a.path} ${a.status}`, errors: ok ? null : validate.errors }).toEqual({
      answer: `${a.method} ${a.path} ${a.status}`,
      errors: null,
    });
  }
}

describe('generated client', () => {
  it('the committed types are those of the served description (npm run openapi:client)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(await clientTypes(res.json())).toBe(readFileSync(CLIENT_TYPES_PATH, 'utf8'));
  });

  it('issues a factura and a boleta, lists with filters, downloads PDF and XML, reads folios and a status; every JSON answer matches its documented schema', async () => {
    answers.length = 0;
    const path = { rut };
    const factura = await api.POST('/api/{rut}/emitir', {
      params: { path },
      body: {
        type: 33,
        receiver: {
          rut: '76354771-K',
          name: 'Comercial Los Andes SpA',
          activity: 'Venta al por menor',
          address: 'Av. Apoquindo 4500',
          comuna: 'Las Condes',
          city: 'Santiago',
        },
        items: [{ name: 'Martillo carpintero', qty: 2, price: 5990 }],
      },
    });
    expect(factura.error).toBeUndefined();
    expect(factura.response.headers.get('x-request-id')).toBeTruthy();
    const issued = factura.data!;
    expect(issued).toMatchObject({ ok: true, env: 'sandbox', type: 33, estado_sii: 'local', sii: null });
    expect(issued.totals).toEqual({ net: 11980, exempt: 0, vat: 2276, vat_rate: 19, total: 14256 });

    const boleta = await api.POST('/api/{rut}/emitir', {
      params: { path },
      body: { type: 39, items: [{ name: 'Café', qty: 2, price: 1990 }] },
      headers: { 'Idempotency-Key': 'client-boleta-1' },
    });
    expect(boleta.data?.totals.total).toBe(3980);
    const again = await api.POST('/api/{rut}/emitir', {
      params: { path },
      body: { type: 39, items: [{ name: 'Café', qty: 2, price: 1990 }] },
      headers: { 'Idempotency-Key': 'client-boleta-1' },
    });
    expect(again.data?.folio).toBe(boleta.data?.folio);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');

    // Typed integer and enum query parameters, serialised by the client.
    const boletas = await api.GET('/api/{rut}/emisiones', {
      params: { path, query: { tipo_dte: 39, estado_sii: 'local', limit: 10, page: 1 } },
    });
    expect(boletas.data?.total).toBe(1);
    expect(boletas.data?.data.map((d) => [d.type, d.folio])).toEqual([[39, boleta.data?.folio]]);
    expect(boletas.response.headers.get('ratelimit-limit')).toBe('1000');

    const pdf = await api.GET('/api/{rut}/pdf/{type}/{folio}', {
      params: { path: { rut, type: 33, folio: issued.folio } },
      parseAs: 'blob',
    });
    expect(pdf.response.headers.get('content-type')).toBe('application/pdf');
    const pdfBlob: Blob = pdf.data!;
    expect(
      Buffer.from(await pdfBlob.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');

    // The XML with the document token alone, as the issue answer's xml_url carries it.
    const tk = new URL(issued.xml_url).searchParams.get('tk')!;
    const xml = await anonymous.GET('/api/{rut}/xml/{type}/{folio}', {
      params: { path: { rut, type: 33, folio: issued.folio }, query: { tk } },
      parseAs: 'text',
    });
    expect(xml.response.status).toBe(200);
    expect(xml.data).toContain('<Folio>');

    const base64 = await api.GET('/api/{rut}/xml/{type}/{folio}', {
      params: { path: { rut, type: 39, folio: boleta.data!.folio }, query: { base64: '1' } },
    });
    const file = base64.data as Exclude<typeof base64.data, string | undefined>;
    expect(file).toMatchObject({ ok: true, content_type: 'application/xml; charset=ISO-8859-1' });
    expect(Buffer.from(file.base64, 'base64').length).toBe(file.size);

    const folios = await api.GET('/api/{rut}/folios', { params: { path } });
    expect(folios.data?.data.find((f) => f.type === 33)?.ranges[0]?.from).toBe(1);

    const status = await api.POST('/api/{rut}/emision_estado_dte', {
      params: { path },
      body: { type: 33, folio: issued.folio },
    });
    expect(status.data).toMatchObject({ ok: true, env: 'sandbox', estado_sii: 'local', sii: null });
    await expectDocumentedAnswers(7);
  });

  it('errors arrive typed, with the codes the operation documents, in the documented error schema', async () => {
    answers.length = 0;
    const res = await api.GET('/api/{rut}/emisiones', { params: { path: { rut }, query: { limit: 101 } } });
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('VALIDATION_FAILED');
    // The codes are typed per operation: an operator-only code is not among the list's.
    type ListCode = NonNullable<typeof res.error>['code'];
    const documented: ListCode = 'RATE_LIMITED';
    // @ts-expect-error ISSUER_EXISTS is the CLI's, never an answer of listDocuments
    const cliOnly: ListCode = 'ISSUER_EXISTS';
    expect([documented, cliOnly]).toHaveLength(2);
    expect(res.error?.details?.[0]?.path).toBe('limit');

    const missing = await api.POST('/api/{rut}/emision_estado_dte', {
      params: { path: { rut } },
      body: { type: 61, folio: 999 },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe('DOCUMENT_NOT_FOUND');

    const noKey = await anonymous.GET('/api/{rut}/folios', { params: { path: { rut } } });
    expect(noKey.response.status).toBe(401);
    expect(noKey.error?.code).toBe('UNAUTHENTICATED');
    await expectDocumentedAnswers(3);
  });
});
