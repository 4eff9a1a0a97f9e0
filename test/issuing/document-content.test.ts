/**
 * A document's content packed against its issuer's dictionary (src/issuing/document-content.ts):
 * the XML download is the exact bytes that were signed, for every type Timbre issues, and
 * xmlsec1 verifies it; what is stored is small; a damaged row or dictionary is an error, never
 * other bytes; a row written before the packed format (plain XML, the model, request and TED in
 * their columns) still reads, its PDF and its notes' rules included.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventPayloads } from '../../src/events/record.ts';
import { documentContent, isPacked, signedXmlOf } from '../../src/issuing/document-content.ts';
import { documentEventData } from '../../src/issuing/document-state.ts';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';
import { decodePdf417, xmlsecVerify } from '../helpers/verify.ts';

let t: TestApp;
/** What the signing stage returned, by the document's ID attribute (the bytes signed at issue). */
const signed = new Map<string, Buffer>();

beforeAll(async () => {
  t = await buildTestApp({ env: { FILE_CACHE_MB: '0' } });
  const sign = t.ctx.signer.sign.bind(t.ctx.signer);
  t.ctx.signer.sign = async (input, keys) => {
    const r = await sign(input, keys);
    if (r.ok) signed.set(/ ID="([^"]+)"/.exec(r.bytes.toString('latin1'))![1]!, Buffer.from(r.bytes));
    return r;
  };
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Issued {
  type: number;
  folio: number;
  date: string;
  xml: string;
  pdf: string;
}

async function issue(api: KeyClient, rut: string, body: Record<string, unknown>): Promise<Issued> {
  const res = await api.post(`/api/${rut}/emitir`, body);
  expect(res.statusCode, res.body).toBe(200);
  const j = res.json();
  return {
    type: j.type,
    folio: j.folio,
    date: j.date,
    xml: j.xml_url.replace('http://timbre.test', ''),
    pdf: j.pdf_url.replace('http://timbre.test', ''),
  };
}

async function row(rut: string, d: Issued) {
  return t.db.prisma.document.findFirstOrThrow({ where: { issuer: { rut }, type: d.type, folio: d.folio } });
}

async function download(url: string): Promise<{ status: number; body: Buffer }> {
  const res = await t.app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.rawPayload };
}

function note(type: 56 | 61, target: Issued, code: 1 | 3) {
  return {
    type,
    // A 56 carries the receiver's giro, address and comuna; a 61 takes them from its reference.
    receiver: type === 56 ? RECEIVER : { rut: RECEIVER.rut, name: RECEIVER.name },
    items: [{ name: 'Ajuste de precio', qty: 1, price: 1000 }],
    refs: [{ type: target.type, folio: String(target.folio), date: target.date, code, reason: 'Corrige montos' }],
  };
}

describe('the XML download after packing', () => {
  it('is the exact bytes signed at issue, for every type, and xmlsec1 verifies it', async () => {
    const { rut, api } = await createTestTenant(t);
    const docs: Issued[] = [];
    for (const type of [33, 34, 39, 41, 46, 52]) docs.push(await issue(api, rut, requestFor(type)));
    docs.push(await issue(api, rut, note(61, docs[0]!, 3)));
    docs.push(await issue(api, rut, note(56, docs[0]!, 3)));
    for (const d of docs) {
      const stored = await row(rut, d);
      expect(isPacked(stored.signedXml), `${d.type}`).toBe(true);
      expect(stored.model).toBeNull();
      const got = await download(d.xml);
      expect(got.status, `${d.type}`).toBe(200);
      const id = / ID="([^"]+)"/.exec(got.body.toString('latin1'))![1]!;
      expect(sha(got.body), `${d.type}`).toBe(sha(signed.get(id)!));
      // The SHA-256 kept in the row is the signed bytes'.
      expect(Buffer.from(stored.signedXml).subarray(35, 67).toString('hex')).toBe(sha(signed.get(id)!));
      const v = xmlsecVerify(got.body);
      expect(v.ok, v.output).toBe(true);
    }
  });

  it('stores a 10-line factura in well under its XML size', async () => {
    const { rut, api } = await createTestTenant(t);
    const body = factura({
      items: Array.from({ length: 10 }, (_, i) => ({ name: `Artículo Nº ${i + 1}`, qty: i + 1, price: 1350 + i })),
    });
    await issue(api, rut, body);
    const d = await issue(api, rut, body);
    const stored = await row(rut, d);
    const xml = await signedXmlOf(t.ctx, stored);
    // The second document of the issuer and CAF: everything that repeats is a back-reference.
    expect(xml.length).toBeGreaterThan(5000);
    expect(stored.signedXml.length).toBeLessThan(1200);
    expect(stored.ted).toBeNull();
    expect(stored.request).toBeNull();
  });
});

describe('a damaged row or dictionary', () => {
  it('is an error, never other bytes', async () => {
    const { rut, api } = await createTestTenant(t);
    const d = await issue(api, rut, factura());
    const stored = await row(rut, d);
    const bytes = Buffer.from(stored.signedXml);
    // A changed SHA-256: the rebuilt XML no longer matches it.
    const wrongHash = Buffer.from(bytes);
    wrongHash[40] = wrongHash[40]! ^ 1;
    await expect(signedXmlOf(t.ctx, { ...stored, signedXml: wrongHash })).rejects.toThrow(/SHA-256/);
    // A changed byte of the stream: zlib's checksum (or the inflate) refuses it.
    const wrongBody = Buffer.from(bytes);
    wrongBody[bytes.length - 20] = wrongBody[bytes.length - 20]! ^ 1;
    await expect(signedXmlOf(t.ctx, { ...stored, signedXml: wrongBody })).rejects.toThrow();
    // A dictionary that is not in the database (nor in memory).
    const unknownDictionary = Buffer.from(bytes);
    unknownDictionary[10] = unknownDictionary[10]! ^ 1;
    await expect(signedXmlOf(t.ctx, { ...stored, signedXml: unknownDictionary })).rejects.toThrow(/dictionary/);
    // Through the API: a 500 whose body is not the document.
    await t.db.pool.query('UPDATE documents SET signed_xml = $1 WHERE id = $2', [wrongHash, stored.id]);
    const got = await download(d.xml);
    expect(got.status).toBe(500);
    expect(got.body.toString('latin1')).not.toContain('<DTE');
  });
});

describe('a row written before the packed format', () => {
  it('reads as it was stored: XML, PDF, and the rules of the notes against it', async () => {
    const { rut, api } = await createTestTenant(t);
    const d = await issue(api, rut, factura());
    const stored = await row(rut, d);
    const content = await documentContent(t.ctx, stored);
    // What the code before this format wrote: the signed bytes as they are, the rest in columns.
    await t.db.pool.query(
      'UPDATE documents SET signed_xml = $1, model = $2::jsonb, request = $3::jsonb, ted = $4 WHERE id = $5',
      [content.xml, JSON.stringify(content.model), JSON.stringify(content.request), content.ted, stored.id],
    );
    const old = await row(rut, d);
    expect(isPacked(old.signedXml)).toBe(false);
    const xml = await download(d.xml);
    expect(xml.status).toBe(200);
    expect(xml.body.equals(content.xml)).toBe(true);
    const pdf = await download(d.pdf);
    expect(pdf.status).toBe(200);
    expect(decodePdf417(pdf.body).toString('latin1')).toBe(content.ted);
    // A 61 to it reads its receiver (giro, address) and counts the notes already against it.
    const credit = await issue(api, rut, note(61, d, 3));
    expect((await documentContent(t.ctx, await row(rut, credit))).model.receiver.address).toBe(RECEIVER.address);
    // A second one reads the first (packed) to count how much is already credited.
    await issue(api, rut, note(61, d, 3));
  });
});

describe('a document event', () => {
  it('stores only what its document row does not hold, and reads back as written before', async () => {
    const { rut, api } = await createTestTenant(t);
    const d = await issue(api, rut, factura());
    const doc = await row(rut, d);
    const [event] = await t.db.prisma.event.findMany({ where: { documentId: doc.id, type: 'document.issued' } });
    expect(event!.fromDocument).toBe(true);
    expect(Object.keys(event!.data as object).sort()).toEqual([
      'email',
      'estado_sii',
      'receiver_action',
      'sii',
      'track_id',
      'voided_by',
    ]);
    // What the code before wrote whole (jsonb keeps no key order, so neither did its webhook bodies).
    const whole = await documentEventData(t.ctx, t.db.prisma, rut, doc);
    const [read] = await eventPayloads(t.ctx, [event!]);
    expect(read!.data).toEqual(whole);
    // An event written whole (before) reads as it is.
    const [old] = await eventPayloads(t.ctx, [{ ...event!, data: whole as never, fromDocument: false }]);
    expect(old!.data).toEqual(whole);
  });
});
