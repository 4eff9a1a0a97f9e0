/**
 * Received documents (README "Received documents"): a supplier's EnvioDTE uploaded through `POST /api/{rut}/recibidos`
 * is checked as the receiver must check it (docs/receiving.md §1), recorded byte-exact with the SII's
 * codes, stored when it passes, answered with a signed RespuestaDTE that xmllint (XSD) and
 * xmlsec1 accept, listed and shown; tampered and hostile files are refused with their reason,
 * recorded, and never a 500.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { signXml, stripXmlDeclaration, withXmlDeclaration } from '../../src/dte/xmldsig.ts';
import { encodeLatin1 } from '../../src/dte/xml-text.ts';
import { buildTestApp, createTestTenant, type KeyClient, type TestApp } from '../helpers/app.ts';
import { replaceOnce } from '../helpers/dte-pipeline.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { SUPPLIER, type Supplier, standInSupplier } from '../helpers/supplier.ts';
import { xmllint, xmlsecVerify } from '../helpers/verify.ts';

let t: TestApp;
let supplier: Supplier;

beforeAll(async () => {
  supplier = standInSupplier();
  t = await buildTestApp({ env: { TIMBRE_EXTRA_CAF_KEYS: supplier.siiPublicKeyPem } });
});

function upload(api: KeyClient, rut: string, body: Buffer, query = '') {
  return api.inject({
    method: 'POST',
    url: `/api/${rut}/recibidos${query}`,
    headers: { 'content-type': 'application/xml' },
    payload: body,
  });
}

async function tenant() {
  return createTestTenant(t);
}

async function storedCount(issuerId: string) {
  return t.db.prisma.receivedDocument.count({ where: { issuerId } });
}

async function eventsOf(issuerId: string, type: string) {
  return t.db.prisma.event.findMany({ where: { issuerId, type }, orderBy: { createdAt: 'asc' } });
}

describe('a supplier factura', () => {
  it('is received, stored byte-exact, listed, shown with its checks, and answered with a valid signed RespuestaDTE', async () => {
    const { issuer, rut, api } = await tenant();
    const dte = supplier.dte(rut, 7);
    const envelope = supplier.envelope(rut, [dte]);
    const res = await upload(api, rut, envelope, '?nombre=EnvioDTE_76354771-K_7.xml');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      ok: true,
      accepted: true,
      kind: 'EnvioDTE',
      estado_recep_env: 0,
      glosa: 'Envio Recibido Conforme',
      reason: null,
      file_name: 'EnvioDTE_76354771-K_7.xml',
      respuesta_error: null,
    });
    expect(body.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
    expect(body.documents).toHaveLength(1);
    expect(body.documents[0]).toMatchObject({ type: 33, folio: 7, estado_recep_dte: 0, glosa: 'DTE Recibido OK' });
    expect(body.documents[0].checks.map((c: { check: string }) => c.check)).toEqual([
      'dte_readable',
      'dte_signature',
      'issuer_rut',
      'receiver_rut',
      'repeated_dte',
      'ted',
    ]);

    // Stored: the envelope as uploaded, the DTE as it stood in it.
    const row = await t.db.prisma.receivedEnvelope.findFirstOrThrow({ where: { issuerId: issuer.id } });
    expect(Buffer.from(row.xml).equals(envelope)).toBe(true);
    const xml = await api.get(`/api/${rut}/recibidos/${SUPPLIER.rut}/33/7/xml`);
    expect(xml.statusCode).toBe(200);
    const dteInEnvelope = stripXmlDeclaration(dte.toString('latin1')).trim();
    expect(xml.rawPayload.toString('latin1')).toBe(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${dteInEnvelope}`);
    const whole = await api.get(`/api/${rut}/recibidos_envios/${body.number}/xml`);
    expect(whole.rawPayload.equals(envelope)).toBe(true);

    const list = await api.get(`/api/${rut}/recibidos`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ ok: true, total: 1, page: 1, limit: 30 });
    const entry = list.json().data[0];
    expect(entry).toMatchObject({
      emisor: { rut: SUPPLIER.rut, name: SUPPLIER.name },
      type: 33,
      folio: 7,
      estado: 'recibido',
    });
    expect(entry.totals.total).toBeGreaterThan(0);

    const detail = await api.get(`/api/${rut}/recibidos/${SUPPLIER.rut}/33/7`);
    expect(detail.statusCode).toBe(200);
    const doc = detail.json().document;
    expect(doc.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
    expect(doc.lines.length).toBe(3);
    expect(doc.receiver.rut).toBe(rut);
    expect(doc.ted).toMatchObject({ idk: 100, caf_from: 1, caf_to: 500 });

    // The answer: schema-valid, signed, saying what the checks said.
    const answer = await api.get(new URL(body.respuesta_url).pathname);
    expect(answer.statusCode).toBe(200);
    const bytes = answer.rawPayload;
    const lint = xmllint(bytes, 'RespuestaEnvioDTE_v10.xsd');
    expect(lint.output).toContain('validates');
    expect(lint.ok).toBe(true);
    const sig = xmlsecVerify(bytes, { idAttrs: ['Resultado', 'http://www.sii.cl/SiiDte:Resultado'] });
    expect(sig.output).toContain('OK');
    expect(sig.ok).toBe(true);
    const text = bytes.toString('latin1');
    expect(text).toContain(`<RutResponde>${rut}</RutResponde>`);
    expect(text).toContain(`<RutRecibe>${SUPPLIER.rut}</RutRecibe>`);
    expect(text).toContain('<EnvioDTEID>SetDoc</EnvioDTEID>');
    expect(text).toContain('<EstadoRecepEnv>0</EstadoRecepEnv>');
    expect(text).toContain('<EstadoRecepDTE>0</EstadoRecepDTE>');
    expect(text).toContain('<NmbEnvio>EnvioDTE_76354771-K_7.xml</NmbEnvio>');

    const events = await eventsOf(issuer.id, 'received.document');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ emisor: { rut: SUPPLIER.rut }, type: 33, folio: 7 });
  });

  it('filters the list by emisor, tipo_dte, dates and q', async () => {
    const { rut, api } = await tenant();
    expect(
      (await upload(api, rut, supplier.envelope(rut, [supplier.dte(rut, 21), supplier.dte(rut, 22)]))).json(),
    ).toMatchObject({ accepted: true });
    const totalOf = async (q: string) => (await api.get(`/api/${rut}/recibidos${q}`)).json().total;
    expect(await totalOf('')).toBe(2);
    expect(await totalOf(`?emisor=${SUPPLIER.rut}`)).toBe(2);
    expect(await totalOf('?emisor=96790240-3')).toBe(0);
    expect(await totalOf('?tipo_dte=34')).toBe(0);
    expect(await totalOf('?desde=2026-11-20&hasta=2026-11-20')).toBe(2);
    expect(await totalOf('?desde=2026-11-21')).toBe(0);
    expect(await totalOf('?q=enacon')).toBe(2);
    expect(await totalOf('?q=22')).toBe(1);
    expect(await totalOf('?limit=1&page=2')).toBe(2);
    expect((await api.get(`/api/${rut}/recibidos?limit=1&page=2`)).json().data).toHaveLength(1);
    expect((await api.get(`/api/${rut}/recibidos?emisor=1-2`)).statusCode).toBe(400);
    expect((await api.get(`/api/${rut}/recibidos?otro=1`)).statusCode).toBe(400);
  });
});

describe('a multipart upload', () => {
  function form(parts: { name: string; filename?: string; body: Buffer }[]) {
    const boundary = '----timbre-receiving-test';
    const chunks = parts.flatMap((p) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n` +
          `Content-Type: ${p.filename ? 'text/plain' : 'text/plain; charset=utf-8'}\r\n\r\n`,
      ),
      p.body,
      Buffer.from('\r\n'),
    ]);
    return {
      payload: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
      contentType: `multipart/form-data; boundary=${boundary}`,
    };
  }

  it('takes the file part byte-exact, its name as NmbEnvio', async () => {
    const { issuer, rut, api } = await tenant();
    const envelope = supplier.envelope(rut, [supplier.dte(rut, 30)]);
    const f = form([{ name: 'file', filename: 'ENVIO DTE 30.XML', body: envelope }]);
    const res = await api.inject({
      method: 'POST',
      url: `/api/${rut}/recibidos`,
      headers: { 'content-type': f.contentType },
      payload: f.payload,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ accepted: true, file_name: 'ENVIO DTE 30.XML' });
    const row = await t.db.prisma.receivedEnvelope.findFirstOrThrow({ where: { issuerId: issuer.id } });
    expect(Buffer.from(row.xml).equals(envelope)).toBe(true);
  });

  it('a form without a file is a 400; two files are refused, never a 500', async () => {
    const { rut, api } = await tenant();
    const none = form([{ name: 'nota', body: Buffer.from('hola') }]);
    const a = await api.inject({
      method: 'POST',
      url: `/api/${rut}/recibidos`,
      headers: { 'content-type': none.contentType },
      payload: none.payload,
    });
    expect(a.statusCode).toBe(400);
    const two = form([
      { name: 'a', filename: 'a.xml', body: Buffer.from('<a/>') },
      { name: 'b', filename: 'b.xml', body: Buffer.from('<b/>') },
    ]);
    const b = await api.inject({
      method: 'POST',
      url: `/api/${rut}/recibidos`,
      headers: { 'content-type': two.contentType },
      payload: two.payload,
    });
    expect(b.statusCode).toBeLessThan(500);
  });
});

describe('a tampered factura', () => {
  it('with its amount changed inside a signed envelope: refused with Error de Firma, recorded, nothing stored', async () => {
    const { issuer, rut, api } = await tenant();
    const envelope = supplier.envelope(rut, [supplier.dte(rut, 8)]);
    const total = /<MntTotal>(\d+)<\/MntTotal>/.exec(envelope.toString('latin1'))![1]!;
    const tampered = replaceOnce(
      envelope,
      `<MntTotal>${total}</MntTotal>`,
      `<MntTotal>${Number(total) - 1}</MntTotal>`,
    );
    const res = await upload(api, rut, tampered);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      accepted: false,
      estado_recep_env: 2,
      glosa: 'Envio Rechazado - Error de Firma',
      reason: expect.stringContaining(
        'la firma del SetDTE no verifica: el contenido firmado fue modificado (DigestValue no corresponde)',
      ),
      received: [],
    });
    expect(await storedCount(issuer.id)).toBe(0);
    const answer = await api.get(new URL(res.json().respuesta_url).pathname);
    expect(xmllint(answer.rawPayload, 'RespuestaEnvioDTE_v10.xsd').ok).toBe(true);
    expect(answer.rawPayload.toString('latin1')).toContain('<EstadoRecepEnv>2</EstadoRecepEnv>');
    const refused = await eventsOf(issuer.id, 'received.refused');
    expect(refused.map((e) => e.data)).toEqual([expect.objectContaining({ estado_recep_env: 2 })]);
    expect(await eventsOf(issuer.id, 'received.document')).toHaveLength(0);
  });

  it('with its amount changed and the envelope signed again: the DTE is refused (EstadoRecepDTE 1), nothing stored', async () => {
    const { issuer, rut, api } = await tenant();
    const dte = supplier.dte(rut, 9);
    const total = /<MntTotal>(\d+)<\/MntTotal>/.exec(dte.toString('latin1'))![1]!;
    const tamperedDte = replaceOnce(
      dte,
      `<MntTotal>${total}</MntTotal>`,
      `<MntTotal>${Number(total) + 1000}</MntTotal>`,
    );
    const res = await upload(api, rut, supplier.envelope(rut, [tamperedDte]));
    expect(res.json()).toMatchObject({
      accepted: false,
      estado_recep_env: 0,
      documents: [
        {
          folio: 9,
          estado_recep_dte: 1,
          glosa: 'DTE No Recibido - Error de Firma',
          reason:
            'la firma del Documento no verifica: el contenido firmado fue modificado (DigestValue no corresponde)',
        },
      ],
      received: [],
    });
    expect(await storedCount(issuer.id)).toBe(0);
    const answer = (await api.get(new URL(res.json().respuesta_url).pathname)).rawPayload;
    expect(xmllint(answer, 'RespuestaEnvioDTE_v10.xsd').ok).toBe(true);
    expect(answer.toString('latin1')).toContain('<EstadoRecepDTE>1</EstadoRecepDTE>');
    expect((await eventsOf(issuer.id, 'received.refused'))[0]!.data).toMatchObject({
      folio: 9,
      estado_recep_dte: 1,
      reason: 'la firma del Documento no verifica: el contenido firmado fue modificado (DigestValue no corresponde)',
    });
  });

  it('a DTE whose TED was stamped with a CAF nobody trusts is refused (99, TED)', async () => {
    // An app that trusts only the SII's own keys, not the stand-in SII that signed this CAF.
    const other = await buildTestApp();
    const { rut, key, issuer } = await createTestTenant(other);
    const res = await other.as(key).inject({
      method: 'POST',
      url: `/api/${rut}/recibidos`,
      headers: { 'content-type': 'application/xml' },
      payload: supplier.envelope(rut, [supplier.dte(rut, 10)]),
    });
    expect(res.json().documents[0]).toMatchObject({
      estado_recep_dte: 99,
      reason: 'timbre electrónico (TED) inválido: la firma del SII sobre el CAF (FRMA, IDK 100) no verifica',
    });
    expect(await other.db.prisma.receivedDocument.count({ where: { issuerId: issuer.id } })).toBe(0);
  });
});

describe('signature wrapping', () => {
  it('an envelope whose valid signature covers a Documento instead of the SetDTE is refused (Error de Firma)', async () => {
    const { rut, api, issuer } = await tenant();
    const good = supplier.envelope(rut, [supplier.dte(rut, 11)]).toString('latin1');
    // The same envelope, its own signature removed and a new one made over the inner Documento.
    const text = stripXmlDeclaration(good);
    const unsigned = `${text.slice(0, text.lastIndexOf('<Signature xmlns=')).trimEnd()}\n</EnvioDTE>`;
    const documentId = /<Documento ID="([^"]+)"/.exec(unsigned)![1]!;
    const wrapped = encodeLatin1(
      withXmlDeclaration(signXml(unsigned, supplier.cert, { referenceId: documentId, parentClose: '</EnvioDTE>' })),
    );
    const res = await upload(api, rut, wrapped);
    expect(res.json()).toMatchObject({
      accepted: false,
      estado_recep_env: 2,
      reason: `la firma referencia #${documentId}, no el SetDTE #SetDoc`,
    });
    expect(await storedCount(issuer.id)).toBe(0);
  });
});

describe('hostile and wrong input', () => {
  const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<EnvioDTE xmlns="http://www.sii.cl/SiiDte" version="1.0"><SetDTE ID="x">&lol3;</SetDTE></EnvioDTE>`;
  const EXTERNAL_ENTITY = `<?xml version="1.0"?>
<!DOCTYPE DTE [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<DTE version="1.0"><Documento ID="x">&xxe;</Documento></DTE>`;

  it.each([
    ['billion laughs', BILLION_LAUGHS],
    ['an external entity', EXTERNAL_ENTITY],
  ])('%s: refused unread as Archivo Ilegible (91), recorded', async (_name, xml) => {
    const { rut, api, issuer } = await tenant();
    const res = await upload(api, rut, Buffer.from(xml));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      accepted: false,
      kind: null,
      estado_recep_env: 91,
      glosa: 'Envio Rechazado - Archivo Ilegible',
      reason: 'el archivo declara un DTD o entidades (<!DOCTYPE>/<!ENTITY>); por seguridad no se procesan',
      respuesta_url: null,
    });
    expect(JSON.stringify(res.json())).not.toContain('root:');
    expect(await t.db.prisma.receivedEnvelope.count({ where: { issuerId: issuer.id, estadoRecepEnv: 91 } })).toBe(1);
    expect((await eventsOf(issuer.id, 'received.refused'))[0]!.data).toMatchObject({ estado_recep_env: 91 });
  });

  it('not XML, or XML that is no DTE: 91 with the reason', async () => {
    const { rut, api } = await tenant();
    expect((await upload(api, rut, Buffer.from('<EnvioDTE><SetDTE>'))).json()).toMatchObject({
      estado_recep_env: 91,
      reason: expect.stringContaining('XML mal formado'),
    });
    expect((await upload(api, rut, Buffer.from('<factura>1</factura>'))).json()).toMatchObject({
      estado_recep_env: 91,
      reason: 'no es un EnvioDTE ni un DTE (elemento raíz factura)',
    });
  });

  it('an envelope that breaks the schema: 1 with the XSD message', async () => {
    const { rut, api } = await tenant();
    const envelope = supplier.envelope(rut, [supplier.dte(rut, 12)]);
    const broken = replaceOnce(envelope, '<NroResol>80</NroResol>', '<NroResol>ochenta</NroResol>');
    expect((await upload(api, rut, broken)).json()).toMatchObject({
      estado_recep_env: 1,
      glosa: 'Envio Rechazado - Error de Schema',
      reason: expect.stringContaining('NroResol'),
    });
  });

  it('an envelope addressed to another RUT: RUT Receptor No Corresponde (3)', async () => {
    const { rut, api, issuer } = await tenant();
    const res = await upload(api, rut, supplier.envelope('96790240-3', [supplier.dte(rut, 13)]));
    expect(res.json()).toMatchObject({
      accepted: false,
      estado_recep_env: 3,
      reason: `la Caratula está dirigida a 96790240-3, no a ${rut}`,
    });
    expect(await storedCount(issuer.id)).toBe(0);
  });

  it('a DTE for another receiver inside an envelope for this one: EstadoRecepDTE 3', async () => {
    const { rut, api } = await tenant();
    const res = await upload(api, rut, supplier.envelope(rut, [supplier.dte('96790240-3', 14)]));
    expect(res.json().documents[0]).toMatchObject({
      estado_recep_dte: 3,
      reason: `RUTRecep 96790240-3 no es ${rut}`,
    });
  });

  it('the same file twice: Archivo Repetido (90); the same DTE in a new envelope: DTE Repetido (4)', async () => {
    const { rut, api, issuer } = await tenant();
    const dte = supplier.dte(rut, 15);
    const envelope = supplier.envelope(rut, [dte]);
    expect((await upload(api, rut, envelope)).json()).toMatchObject({ accepted: true });
    const again = await upload(api, rut, envelope);
    expect(again.json()).toMatchObject({
      accepted: false,
      estado_recep_env: 90,
      glosa: 'Envio Rechazado - Archivo Repetido',
    });
    const resent = await upload(api, rut, supplier.envelope(rut, [dte], { timestamp: '2026-11-21T09:00:00' }));
    expect(resent.json()).toMatchObject({
      accepted: false,
      estado_recep_env: 0,
      documents: [{ estado_recep_dte: 4, reason: `el DTE tipo 33 folio 15 de ${SUPPLIER.rut} ya se recibió` }],
    });
    expect(await storedCount(issuer.id)).toBe(1);
    expect(await t.db.prisma.receivedEnvelope.count({ where: { issuerId: issuer.id } })).toBe(3);
  });

  it('the same file and the same DTE uploaded at once: one is received, the others refused as repeated', async () => {
    const { rut, api, issuer } = await tenant();
    const dte = supplier.dte(rut, 17);
    const envelope = supplier.envelope(rut, [dte]);
    const other = supplier.envelope(rut, [dte], { timestamp: '2026-11-21T09:30:00' });
    const answers = await Promise.all([
      upload(api, rut, envelope),
      upload(api, rut, envelope),
      upload(api, rut, other),
      upload(api, rut, other),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    const bodies = answers.map((a) => a.json());
    expect(bodies.filter((b) => b.accepted)).toHaveLength(1);
    expect(bodies.filter((b) => b.estado_recep_env === 90)).toHaveLength(2);
    expect(bodies.filter((b) => b.documents[0]?.estado_recep_dte === 4)).toHaveLength(1);
    expect(await storedCount(issuer.id)).toBe(1);
  });

  it('a body over 10 MiB is a 413, not a 500', async () => {
    const { rut, api } = await tenant();
    const res = await upload(api, rut, Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('real suppliers’ DTEs', () => {
  it('a production factura without the SII namespace, uploaded alone, is received (TED by the SII IDK 300 key)', async () => {
    const { rut, api } = await createTestTenant(t, { issuer: { rut: '96790240-3' } });
    const bytes = readFileSync(fixturePath('received', 'DTE--76354771-K--33--170.xml'));
    const res = await upload(api, rut, bytes);
    expect(res.json()).toMatchObject({
      accepted: true,
      kind: 'DTE',
      documents: [{ type: 33, folio: 170, estado_recep_dte: 0 }],
      respuesta_url: null,
      respuesta_error: expect.stringContaining('DTE suelto'),
    });
    const xml = await api.get(`/api/${rut}/recibidos/76354771-K/33/170/xml`);
    expect(xml.rawPayload.equals(bytes)).toBe(true);
    const detail = (await api.get(`/api/${rut}/recibidos/76354771-K/33/170`)).json().document;
    expect(detail).toMatchObject({ totals: { net: 2517900, vat: 478401, total: 2996301 }, ted: { idk: 300 } });
  });

  it('a windows-1252, CRLF production factura is received', async () => {
    const { rut, api } = await createTestTenant(t, { issuer: { rut: '76555835-2' } });
    const bytes = readFileSync(fixturePath('received', 'DTE--60910000-1--33--2336600.xml'));
    expect((await upload(api, rut, bytes)).json()).toMatchObject({
      accepted: true,
      documents: [{ folio: 2336600, emisor_rut: '60910000-1', estado_recep_dte: 0 }],
    });
  });
});

describe('access', () => {
  it('a viewer key cannot upload; another issuer’s key sees nothing; unknown documents are 404', async () => {
    const a = await tenant();
    const viewer = await createTestTenant(t, { role: 'viewer' });
    const refused = await upload(viewer.api, viewer.rut, supplier.envelope(viewer.rut, [supplier.dte(viewer.rut, 16)]));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('FORBIDDEN_ROLE');
    expect((await a.api.get(`/api/${viewer.rut}/recibidos`)).statusCode).toBe(403);
    const missing = await a.api.get(`/api/${a.rut}/recibidos/${SUPPLIER.rut}/33/999`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('RECEIVED_DOCUMENT_NOT_FOUND');
    expect((await a.api.get(`/api/${a.rut}/recibidos_envios/999999/respuesta`)).json().code).toBe(
      'RECEIVED_ENVELOPE_NOT_FOUND',
    );
  });
});
