/**
 * The published description says what the service does: each error a request provokes here
 * arrives with a status and code that its operation documents, with the headers documented
 * for that answer; and the description is complete where generated clients need it.
 */
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deactivateIssuer } from '../../src/admin/issuers.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura } from '../helpers/requests.ts';

type Json = Record<string, any>;

let t: TestApp;
let doc: Json;
let rut: string;
let owner: string;
let viewer: string;
let editor: string;
let otherRut: string;
let inactiveRut: string;
let inactiveKey: string;
let folio: number;
let tk: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  owner = await createTestKey(t.ctx, rut, 'owner');
  viewer = await createTestKey(t.ctx, rut, 'viewer');
  editor = await createTestKey(t.ctx, rut, 'editor');
  otherRut = (await createTestIssuer(t.ctx)).rut;
  inactiveRut = (await createTestIssuer(t.ctx)).rut;
  inactiveKey = await createTestKey(t.ctx, inactiveRut, 'owner');
  await deactivateIssuer(t.ctx, inactiveRut);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const issued = await t.app.inject({
    method: 'POST',
    url: `/api/${rut}/emitir`,
    headers: { authorization: `Bearer ${owner}` },
    payload: factura(),
  });
  folio = issued.json().folio;
  tk = new URL(issued.json().pdf_url).searchParams.get('tk')!;
});

afterAll(async () => {
  await t?.close();
});

function operations(): Array<{ path: string; method: string; op: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
  );
}

function operation(operationId: string): Json {
  const found = operations().find((o) => o.op.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found.op;
}

function documentedCodes(op: Json, status: number): string[] {
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  return schema?.allOf?.[1]?.properties?.code?.enum ?? [];
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** A well-formed id that names no event or webhook endpoint. */
const NO_ID = '00000000-0000-4000-8000-000000000000';
const AUTH_HOOK_CODES = [
  'UNAUTHENTICATED',
  'INVALID_API_KEY',
  'FORBIDDEN_ISSUER',
  'FORBIDDEN_ROLE',
  'ISSUER_NOT_FOUND',
];

describe('every error answer is documented on its operation', () => {
  const cases: Array<{
    name: string;
    op: string;
    code: string;
    request: () => InjectOptions;
  }> = [
    {
      name: 'no key',
      op: 'issueDocument',
      code: 'UNAUTHENTICATED',
      request: () => ({ method: 'POST', url: `/api/${rut}/emitir`, payload: factura() }),
    },
    {
      name: 'unknown key',
      op: 'listDocuments',
      code: 'INVALID_API_KEY',
      request: () => ({ method: 'GET', url: `/api/${rut}/emisiones`, headers: auth(`${owner}x`) }),
    },
    {
      name: 'another issuer',
      op: 'listFolios',
      code: 'FORBIDDEN_ISSUER',
      request: () => ({ method: 'GET', url: `/api/${otherRut}/folios`, headers: auth(owner) }),
    },
    {
      name: 'viewer issuing',
      op: 'issueDocument',
      code: 'FORBIDDEN_ROLE',
      request: () => ({ method: 'POST', url: `/api/${rut}/emitir`, headers: auth(viewer), payload: factura() }),
    },
    {
      name: 'viewer requesting folios',
      op: 'requestFolios',
      code: 'FORBIDDEN_ROLE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/folios_sii`,
        headers: auth(viewer),
        payload: { tipo_dte: 33, cantidad: 10 },
      }),
    },
    {
      name: 'viewer resubmitting',
      op: 'resubmitDocument',
      code: 'FORBIDDEN_ROLE',
      request: () => ({
        method: 'POST',
        url: '/api/emision_reenviar',
        headers: auth(viewer),
        payload: { rut, type: 33, folio },
      }),
    },
    {
      name: 'resubmit for another issuer',
      op: 'resubmitDocument',
      code: 'FORBIDDEN_ISSUER',
      request: () => ({
        method: 'POST',
        url: '/api/emision_reenviar',
        headers: auth(owner),
        payload: { rut: otherRut, type: 33, folio },
      }),
    },
    {
      name: 'inactive issuer',
      op: 'listDocuments',
      code: 'ISSUER_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${inactiveRut}/emisiones`, headers: auth(inactiveKey) }),
    },
    {
      name: 'bad body',
      op: 'issueDocument',
      code: 'VALIDATION_FAILED',
      request: () => ({ method: 'POST', url: `/api/${rut}/emitir`, headers: auth(owner), payload: { type: 33 } }),
    },
    {
      name: 'broken JSON',
      op: 'issueDocument',
      code: 'INVALID_JSON',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emitir`,
        headers: { ...auth(owner), 'content-type': 'application/json' },
        payload: '{"type":',
      }),
    },
    {
      name: 'text body',
      op: 'getDocumentStatus',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emision_estado_dte`,
        headers: { ...auth(owner), 'content-type': 'text/plain' },
        payload: 'type=33',
      }),
    },
    {
      name: 'body over 1 MiB',
      op: 'issueDocument',
      code: 'PAYLOAD_TOO_LARGE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emitir`,
        headers: { ...auth(owner), 'content-type': 'application/json' },
        payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }),
      }),
    },
    {
      name: 'bad Idempotency-Key',
      op: 'requestFolios',
      code: 'VALIDATION_FAILED',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/folios_sii`,
        headers: { ...auth(owner), 'idempotency-key': 'ñ' },
        payload: { tipo_dte: 33, cantidad: 10 },
      }),
    },
    {
      name: 'limit above 100',
      op: 'listDocuments',
      code: 'VALIDATION_FAILED',
      request: () => ({ method: 'GET', url: `/api/${rut}/emisiones?limit=101`, headers: auth(owner) }),
    },
    {
      name: 'unknown reference',
      op: 'issueDocument',
      code: 'REFERENCE_NOT_FOUND',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emitir`,
        headers: auth(owner),
        payload: {
          type: 61,
          receiver: { rut: '76354771-K', name: 'X' },
          items: [{ name: 'Devolución', qty: 1, price: 1000 }],
          refs: [{ type: 33, folio: 99999, date: '2026-01-02' }],
        },
      }),
    },
    {
      name: 'unknown document',
      op: 'getDocumentStatus',
      code: 'DOCUMENT_NOT_FOUND',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emision_estado_dte`,
        headers: auth(owner),
        payload: { type: 33, folio: 99999 },
      }),
    },
    {
      name: 'sandbox resubmit',
      op: 'resubmitDocument',
      code: 'SANDBOX_NOT_SUBMITTABLE',
      request: () => ({
        method: 'POST',
        url: '/api/emision_reenviar',
        headers: auth(owner),
        payload: { rut, type: 33, folio },
      }),
    },
    {
      name: 'PDF without key or token',
      op: 'downloadPdf',
      code: 'UNAUTHENTICATED',
      request: () => ({ method: 'GET', url: `/api/${rut}/pdf/33/${folio}` }),
    },
    {
      name: 'PDF with a wrong token',
      op: 'downloadPdf',
      code: 'DOCUMENT_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/pdf/33/${folio}?tk=${tk}x` }),
    },
    {
      name: 'XML of no document',
      op: 'downloadXml',
      code: 'DOCUMENT_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/xml/33/99999?tk=${tk}` }),
    },
    {
      name: 'XML with a bad folio',
      op: 'downloadXml',
      code: 'VALIDATION_FAILED',
      request: () => ({ method: 'GET', url: `/api/${rut}/xml/33/abc`, headers: auth(owner) }),
    },
    {
      name: 'unknown event type',
      op: 'listEvents',
      code: 'VALIDATION_FAILED',
      request: () => ({ method: 'GET', url: `/api/${rut}/events?type=document.lost`, headers: auth(owner) }),
    },
    {
      name: 'deliveries of no event',
      op: 'listEventDeliveries',
      code: 'EVENT_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/events/${NO_ID}/deliveries`, headers: auth(owner) }),
    },
    {
      name: 'redeliver no event',
      op: 'redeliverEvent',
      code: 'EVENT_NOT_FOUND',
      request: () => ({ method: 'POST', url: `/api/${rut}/events/${NO_ID}/redeliver`, headers: auth(owner) }),
    },
    {
      name: 'editor redelivering (owner only)',
      op: 'redeliverEvent',
      code: 'FORBIDDEN_ROLE',
      request: () => ({ method: 'POST', url: `/api/${rut}/events/${NO_ID}/redeliver`, headers: auth(editor) }),
    },
    {
      name: 'body over 1 MiB on a body-less POST',
      op: 'redeliverEvent',
      code: 'PAYLOAD_TOO_LARGE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/events/${NO_ID}/redeliver`,
        headers: { ...auth(owner), 'content-type': 'application/json' },
        payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }),
      }),
    },
    {
      name: 'viewer creating a webhook',
      op: 'createWebhook',
      code: 'FORBIDDEN_ROLE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/webhooks`,
        headers: auth(viewer),
        payload: { url: 'https://erp.example.cl/hooks' },
      }),
    },
    {
      name: 'editor creating a webhook (owner only)',
      op: 'createWebhook',
      code: 'FORBIDDEN_ROLE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/webhooks`,
        headers: auth(editor),
        payload: { url: 'https://erp.example.cl/hooks' },
      }),
    },
    {
      name: 'webhook URL that is not absolute',
      op: 'createWebhook',
      code: 'VALIDATION_FAILED',
      request: () => ({ method: 'POST', url: `/api/${rut}/webhooks`, headers: auth(owner), payload: { url: 'hooks' } }),
    },
    {
      name: 'webhook to a loopback address',
      op: 'createWebhook',
      code: 'WEBHOOK_URL_BLOCKED',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/webhooks`,
        headers: auth(owner),
        payload: { url: 'http://127.0.0.1:8080/hooks' },
      }),
    },
    {
      name: 'webhooks of another issuer',
      op: 'listWebhooks',
      code: 'FORBIDDEN_ISSUER',
      request: () => ({ method: 'GET', url: `/api/${otherRut}/webhooks`, headers: auth(owner) }),
    },
    {
      name: 'delete no endpoint',
      op: 'deleteWebhook',
      code: 'WEBHOOK_NOT_FOUND',
      request: () => ({ method: 'DELETE', url: `/api/${rut}/webhooks/${NO_ID}`, headers: auth(owner) }),
    },
    {
      name: 'viewer deleting a webhook',
      op: 'deleteWebhook',
      code: 'FORBIDDEN_ROLE',
      request: () => ({ method: 'DELETE', url: `/api/${rut}/webhooks/${NO_ID}`, headers: auth(viewer) }),
    },
    {
      name: 'ping no endpoint',
      op: 'testWebhook',
      code: 'WEBHOOK_NOT_FOUND',
      request: () => ({ method: 'POST', url: `/api/${rut}/webhooks/not-an-id/test`, headers: auth(owner) }),
    },
    {
      name: 'broken JSON on a body-less POST',
      op: 'testWebhook',
      code: 'INVALID_JSON',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/webhooks/${NO_ID}/test`,
        headers: { ...auth(owner), 'content-type': 'application/json' },
        payload: '{"ping":',
      }),
    },
    {
      name: 'e-mail without SMTP_URL',
      op: 'emailDocument',
      code: 'EMAIL_DISABLED',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emision_email`,
        headers: auth(owner),
        payload: { type: 33, folio, to: ['pagos@example.cl'] },
      }),
    },
    {
      name: 'viewer e-mailing',
      op: 'emailDocument',
      code: 'FORBIDDEN_ROLE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emision_email`,
        headers: auth(viewer),
        payload: { type: 33, folio },
      }),
    },
    {
      name: 'e-mail to a bad address',
      op: 'emailDocument',
      code: 'VALIDATION_FAILED',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/emision_email`,
        headers: auth(owner),
        payload: { type: 33, folio, to: ['pagos'] },
      }),
    },
    {
      name: 'viewer uploading a received file',
      op: 'receiveEnvelope',
      code: 'FORBIDDEN_ROLE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/recibidos`,
        headers: { ...auth(viewer), 'content-type': 'application/xml' },
        payload: '<EnvioDTE/>',
      }),
    },
    {
      name: 'received file sent as JSON',
      op: 'receiveEnvelope',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/recibidos`,
        headers: { ...auth(owner), 'content-type': 'text/plain' },
        payload: '<EnvioDTE/>',
      }),
    },
    {
      name: 'received list with a bad emisor',
      op: 'listReceivedDocuments',
      code: 'VALIDATION_FAILED',
      request: () => ({ method: 'GET', url: `/api/${rut}/recibidos?emisor=1-2`, headers: auth(owner) }),
    },
    {
      name: 'viewer importing the RCV',
      op: 'importRcv',
      code: 'FORBIDDEN_ROLE',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/rcv`,
        headers: { ...auth(viewer), 'content-type': 'text/csv' },
        payload: 'Nro;Tipo Doc\n',
      }),
    },
    {
      name: 'a CSV that is not the RCV',
      op: 'importRcv',
      code: 'VALIDATION_FAILED',
      request: () => ({
        method: 'POST',
        url: `/api/${rut}/rcv`,
        headers: { ...auth(owner), 'content-type': 'text/csv' },
        payload: 'Nro;Tipo Doc\n',
      }),
    },
    {
      name: 'missing documents with a bad page',
      op: 'listRcvMissing',
      code: 'VALIDATION_FAILED',
      request: () => ({ method: 'GET', url: `/api/${rut}/rcv/faltantes?page=0`, headers: auth(owner) }),
    },
    {
      name: 'no such received document',
      op: 'getReceivedDocument',
      code: 'RECEIVED_DOCUMENT_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/recibidos/76354771-K/33/1`, headers: auth(owner) }),
    },
    {
      name: 'no such received document file',
      op: 'downloadReceivedXml',
      code: 'RECEIVED_DOCUMENT_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/recibidos/76354771-K/33/1/xml`, headers: auth(owner) }),
    },
    {
      name: 'no such received document to print',
      op: 'downloadReceivedPdf',
      code: 'RECEIVED_DOCUMENT_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/recibidos/76354771-K/33/1/pdf`, headers: auth(owner) }),
    },
    {
      name: 'no such received envelope',
      op: 'downloadReceivedEnvelope',
      code: 'RECEIVED_ENVELOPE_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/recibidos_envios/1/xml`, headers: auth(owner) }),
    },
    {
      name: 'no answer to a received envelope',
      op: 'downloadReceivedAnswer',
      code: 'RECEIVED_ENVELOPE_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/recibidos_envios/1/respuesta`, headers: auth(owner) }),
    },
    {
      name: 'no mailbox set',
      op: 'getMailbox',
      code: 'MAILBOX_NOT_FOUND',
      request: () => ({ method: 'GET', url: `/api/${rut}/buzon`, headers: auth(owner) }),
    },
    {
      name: 'a new mailbox without its password',
      op: 'setMailbox',
      code: 'MAILBOX_PASSWORD_REQUIRED',
      request: () => ({
        method: 'PUT',
        url: `/api/${rut}/buzon`,
        headers: auth(owner),
        payload: { host: 'imap.example.cl', user: 'dte@example.cl' },
      }),
    },
    {
      name: 'viewer removing the mailbox (owner only)',
      op: 'deleteMailbox',
      code: 'FORBIDDEN_ROLE',
      request: () => ({ method: 'DELETE', url: `/api/${rut}/buzon`, headers: auth(viewer) }),
    },
    {
      name: 'testing no mailbox',
      op: 'testMailbox',
      code: 'MAILBOX_NOT_FOUND',
      request: () => ({ method: 'POST', url: `/api/${rut}/buzon/probar`, headers: auth(owner) }),
    },
  ];

  for (const c of cases) {
    it(`${c.op}: ${c.name} → ${c.code}`, async () => {
      const res = await t.app.inject(c.request());
      expect(res.json().code).toBe(c.code);
      const op = operation(c.op);
      expect(documentedCodes(op, res.statusCode)).toContain(c.code);
      // X-Request-Id always; RateLimit-* only where documented, and missing only on answers of
      // the authentication hook (which runs before the rate limit).
      const documented = op.responses[String(res.statusCode)].headers as Json;
      expect(res.headers['x-request-id']).toBeTruthy();
      if (res.headers['ratelimit-limit'] !== undefined) expect(documented).toHaveProperty('RateLimit-Limit');
      else expect(AUTH_HOOK_CODES).toContain(c.code);
    });
  }

  it('a replay carries Idempotent-Replayed, as documented', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/${rut}/folios_sii`,
        headers: { ...auth(owner), 'idempotency-key': 'openapi-replay' },
        payload: { tipo_dte: 39, cantidad: 10 },
      });
    await send();
    const res = await send();
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(Object.keys(operation('requestFolios').responses['200'].headers)).toContain('Idempotent-Replayed');
    const reused = await t.app.inject({
      method: 'POST',
      url: `/api/${rut}/folios_sii`,
      headers: { ...auth(owner), 'idempotency-key': 'openapi-replay' },
      payload: { tipo_dte: 39, cantidad: 11 },
    });
    expect(reused.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(documentedCodes(operation('requestFolios'), reused.statusCode)).toContain('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('the description', () => {
  it('names every operation, with a summary, a description, an example and named answers', () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(ids.sort()).toEqual([
      'acceptReceivedDocument',
      'cedeDocument',
      'claimReceivedDocument',
      'createWebhook',
      'decideReceivedDocuments',
      'deleteMailbox',
      'deleteWebhook',
      'downloadCessionAec',
      'downloadDecisionRecibos',
      'downloadDecisionResultado',
      'downloadPdf',
      'downloadReceivedAnswer',
      'downloadReceivedEnvelope',
      'downloadReceivedPdf',
      'downloadReceivedXml',
      'downloadXml',
      'emailDocument',
      'getDocumentStatus',
      'getMailbox',
      'getReceivedCession',
      'getReceivedDocument',
      'importRcv',
      'issueDocument',
      'listCessions',
      'listDocuments',
      'listEventDeliveries',
      'listEvents',
      'listFolios',
      'listRcvMissing',
      'listReceivedDocuments',
      'listWebhooks',
      'previewDocument',
      'receiveEnvelope',
      'redeliverEvent',
      'requestFolios',
      'resubmitDocument',
      'setMailbox',
      'testMailbox',
      'testWebhook',
    ]);
    const tags = new Set((doc.tags as Json[]).map((tag) => tag.name));
    for (const { op } of operations()) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary).toBeTruthy();
      expect(op.description).toBeTruthy();
      for (const tag of op.tags) expect(tags, `${op.operationId}: tag ${tag}`).toContain(tag);
      expect(op.responses['200'].content['application/json'].example).toBeTruthy();
      // A JSON body has an example; a raw file body (a received XML file, an RCV CSV) is described as bytes.
      if (op.requestBody?.content['application/json']) {
        expect(op.requestBody.content['application/json'].example).toBeTruthy();
      } else if (op.requestBody) {
        const raw = op.requestBody.content['application/xml'] ?? op.requestBody.content['text/csv'];
        expect(raw.schema).toMatchObject({ type: 'string', format: 'binary' });
      }
      for (const [status, response] of Object.entries(op.responses as Json)) {
        expect(response.description).not.toBe('Default Response');
        if (status !== '200') {
          expect(response.content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
      // Operator-only codes are the CLI's, never an answer of the API.
      expect(JSON.stringify(op.responses)).not.toMatch(/ISSUER_EXISTS|KEY_LIMIT_REACHED|CERT_BAD_PASSWORD/);
    }
    expect(doc.components.schemas.Error.required).toEqual(['ok', 'error', 'code', 'request_id']);
    expect(doc.servers).toEqual([{ url: 'http://timbre.test', description: expect.any(String) }]);
  });

  it('every POST and DELETE documents 413, and the idempotent ones the header and their 409s', () => {
    for (const { method, op } of operations()) {
      if (method !== 'post' && method !== 'delete') continue;
      expect(documentedCodes(op, 413)).toEqual(['PAYLOAD_TOO_LARGE']);
      const idempotent = ['issueDocument', 'requestFolios', 'resubmitDocument'].includes(op.operationId);
      expect(op.parameters?.some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey') ?? false).toBe(
        idempotent,
      );
      if (idempotent) expect(documentedCodes(op, 409)).toContain('IDEMPOTENCY_KEY_REUSED');
    }
    expect(documentedCodes(operation('getDocumentStatus'), 422)).toContain('NO_CERTIFICATE');
    expect(documentedCodes(operation('getDocumentStatus'), 502)).toEqual(['SII_UNAVAILABLE']);
  });

  it('files are PDF or XML bytes, or the base64 JSON, opened by a key or the tk token', () => {
    for (const [id, media] of [
      ['downloadPdf', 'application/pdf'],
      ['downloadXml', 'application/xml'],
    ] as const) {
      const op = operation(id);
      const content = op.responses['200'].content;
      expect(content[media].schema).toMatchObject({ type: 'string', format: 'binary' });
      expect(content['application/json'].schema.required).toEqual(
        expect.arrayContaining(['ok', 'filename', 'content_type', 'size', 'base64']),
      );
      expect(op.security).toEqual([{ bearer: [] }, { documentToken: [] }]);
      const params = Object.fromEntries(op.parameters.map((p: Json) => [p.name, p.schema]));
      expect(params.type).toMatchObject({ type: 'integer', enum: [33, 34, 39, 41, 46, 52, 56, 61] });
      expect(params.folio).toMatchObject({ type: 'integer' });
    }
    expect(doc.components.securitySchemes.documentToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'tk' });
  });

  it('query parameters carry their types, ranges and defaults', () => {
    const params = Object.fromEntries(operation('listDocuments').parameters.map((p: Json) => [p.name, p.schema]));
    expect(params.limit).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 30 });
    expect(params.page).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(params.tipo_dte).toMatchObject({ type: 'integer', enum: [33, 34, 39, 41, 46, 52, 56, 61] });
    expect(params.desde).toEqual({ type: 'string', format: 'date' });
    expect(params.estado_sii.enum).toContain('aceptado_con_reparos');
  });
});
