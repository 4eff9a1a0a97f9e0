/**
 * Every stored document verifies (docs/design.md §7), as a property over arbitrary Unicode:
 * any text in any free-text field of any document type gets either a 400 (nothing stored, no
 * folio consumed) or a 200 whose stored document xmlsec1 verifies, whose TED's FRMT verifies
 * over its DD with the CAF key the TED carries, and which holds the accepted text byte-exact.
 * Replay a failure with the printed TEST_SEED.
 */
import { createPublicKey, verify } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unescapeXml } from '../../src/dte/xml-text.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { factura, RECEIVER, requestFor } from '../helpers/requests.ts';
import { testSeed } from '../helpers/seed.ts';
import { xmlsecVerify } from '../helpers/verify.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';

const seed = testSeed(import.meta.url);
let t: TestApp;
let rut: string;
let auth: Record<string, string>;
/** The factura the notes (56, 61) correct: a note references the tax document it modifies. */
let noteTarget: { type: number; folio: number; date: string; reason: string; code: 3 };

beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  rut = (await createTestIssuer(t.ctx)).rut;
  auth = { authorization: `Bearer ${await createTestKey(t.ctx, rut, 'owner')}` };
  // Large enough that every credit note of the run (100 each) stays within what remains of it.
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${rut}/emitir`,
    headers: auth,
    payload: factura({ items: [{ name: 'Servicio', qty: 1, price: 10_000_000 }] }),
  });
  expect(res.statusCode, res.body).toBe(200);
  const folio = res.json().folio as number;
  const stored = await t.ctx.db.prisma.document.findFirstOrThrow({ where: { type: 33, folio, issuer: { rut } } });
  noteTarget = { type: 33, folio, date: stored.date.toISOString().slice(0, 10), reason: 'Corrige montos', code: 3 };
});

afterAll(async () => {
  await t.close();
});

/** A reference to an orden de compra (801): a non-tax document, so it carries no CodRef. */
const REF = { type: 801, folio: 'OC-1234', date: '2026-03-01', reason: 'Orden de compra' };

function baseRequest(type: number): Record<string, any> {
  // A note's refs: the orden de compra first (the free-text reference fields), then the factura
  // the note corrects (CodRef 3), which the SII rules require of every note.
  if (type === 56) {
    return { type, receiver: RECEIVER, items: [{ name: 'Recargo', qty: 1, price: 100 }], refs: [REF, noteTarget] };
  }
  if (type === 61) {
    return {
      type,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      items: [{ name: 'Descuento', qty: 1, price: 100 }],
      refs: [REF, noteTarget],
    };
  }
  const req = structuredClone(requestFor(type)) as Record<string, any>;
  req.items = [req.items[0]];
  return req;
}

/** A free-text field: where it goes in the request, its SII length, its element in the XML. */
interface Field {
  path: string;
  max: number;
  element: string;
  set(req: Record<string, any>, value: string): void;
}

const receiverField = (name: string, max: number, element: string): Field => ({
  path: `receiver.${name}`,
  max,
  element,
  set(req, value) {
    req.receiver = { ...(req.receiver ?? { rut: RECEIVER.rut }), [name]: value };
  },
});
const itemField = (name: string, max: number, element: string): Field => ({
  path: `items[0].${name}`,
  max,
  element,
  set(req, value) {
    req.items[0] = { ...req.items[0], [name]: value };
  },
});
const refField = (name: string, max: number, element: string): Field => ({
  path: `refs[0].${name}`,
  max,
  element,
  set(req, value) {
    req.refs = [{ ...(req.refs?.[0] ?? REF), [name]: value }, ...(req.refs?.slice(1) ?? [])];
  },
});

function fieldsOf(type: number): Field[] {
  const fields = [
    receiverField('name', 100, 'RznSocRecep'),
    itemField('name', 80, 'NmbItem'),
    itemField('unit', 4, 'UnmdItem'),
    itemField('code', 35, 'VlrCodigo'),
    itemField('description', 1000, 'DscItem'),
    refField('folio', 18, 'FolioRef'),
    refField('reason', 90, 'RazonRef'),
  ];
  if (type !== 61) {
    fields.push(receiverField('address', 70, 'DirRecep'), receiverField('comuna', 20, 'CmnaRecep'));
    fields.push(receiverField('city', 20, 'CiudadRecep'));
    if (type !== 39 && type !== 41) fields.push(receiverField('activity', 40, 'GiroRecep'));
  }
  return fields;
}

/** The hostile classes of README "Hostile input and abuse", next to ordinary letters so that many texts are valid. */
const special = fc.constantFrom(
  '\u0000',
  '\t',
  '\n',
  '\r',
  '\u0085',
  '\u0080',
  '\u009f',
  '\u2028',
  '\u2029',
  '\ufffd',
  '\ufffe',
  '\uffff',
  '\ufdd0',
  '\ud800',
  '\udc00',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u200b',
  '\u200d',
  '\ufeff',
  '\u00a0',
  '\u0301',
  '\u0308',
  'é',
  'Ñ',
  'ñ',
  'ü',
  '°',
  '&',
  '<',
  '>',
  '"',
  "'",
  ']]>',
  '&amp;',
  '&#x85;',
  '💥',
  '👩‍🔧',
  '𝔘',
  '\u{10ffff}',
  '\u{1fffe}',
  '\ue000',
  '锤',
  'м',
  'ا',
  '\u0600',
  '“',
  '”',
  '–',
  '…',
  '€',
  ' ',
  '  ',
);
const text = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(special, fc.constantFrom('a', 'B', '1', ' ', 'ñ')), { maxLength: 12 })
      .map((a) => a.join('')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
);

const TYPES = [33, 34, 39, 41, 46, 52, 56, 61];
const caseArb = fc
  .constantFrom(...TYPES)
  .chain((type) => fc.tuple(fc.constant(type), fc.constantFrom(...fieldsOf(type)), text));

/** The TED check the SII makes: FRMT over the DD's bytes with the CAF key inside that TED. */
function tedVerifies(bytes: Buffer): boolean {
  const latin1 = bytes.toString('latin1');
  const m = /<TED version="1\.0">(<DD>[\s\S]*?<\/DD>)<FRMT algoritmo="SHA1withRSA">([^<]*)<\/FRMT>/.exec(latin1);
  if (!m) return false;
  const modulus = /<RSAPK><M>([^<]*)<\/M><E>([^<]*)<\/E><\/RSAPK>/.exec(m[1]!);
  if (!modulus) return false;
  const b64url = (b: string) => Buffer.from(b, 'base64').toString('base64url');
  const key = createPublicKey({ key: { kty: 'RSA', n: b64url(modulus[1]!), e: b64url(modulus[2]!) }, format: 'jwk' });
  return verify('sha1', Buffer.from(m[1]!, 'latin1'), key, Buffer.from(m[2]!, 'base64'));
}

describe('arbitrary Unicode in every free-text field of every type', () => {
  it('is a 400, or a stored document that xmlsec1 and the TED check verify, with the text byte-exact', async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async ([type, field, raw]) => {
        const value = [...`Texto ${raw}`].slice(0, field.max).join('');
        const req = baseRequest(type);
        field.set(req, value);
        const before = await t.ctx.db.prisma.document.count();
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/${rut}/emitir`,
          headers: { ...auth, 'content-type': 'application/json' },
          payload: JSON.stringify(req),
        });
        if (res.statusCode !== 200) {
          expect(res.statusCode, res.body).toBe(400);
          expect(res.json().details?.[0]?.path ?? '').toBe(field.path);
          expect(await t.ctx.db.prisma.document.count()).toBe(before);
          refused += 1;
          return;
        }
        accepted += 1;
        const stored = await t.ctx.db.prisma.document.findFirstOrThrow({
          where: { folio: res.json().folio, type, issuer: { rut } },
        });
        const bytes = await signedXmlOf(t.ctx, stored);
        const xmlsec = xmlsecVerify(bytes);
        expect(xmlsec.ok, xmlsec.output).toBe(true);
        expect(tedVerifies(bytes)).toBe(true);
        const written = new RegExp(`<${field.element}>([^<]*)</${field.element}>`).exec(bytes.toString('latin1'));
        expect(written, `${field.element} missing`).not.toBeNull();
        expect(unescapeXml(written![1]!)).toBe(value.trim());
      }),
      { numRuns: 200, seed },
    );
    // The generator reaches both outcomes, so the property is not vacuous.
    expect(accepted).toBeGreaterThan(40);
    expect(refused).toBeGreaterThan(20);
    // 200 issues, each verified by an xmlsec1 process: a deadline, not a speed claim (on a
    // loaded 2-core machine one run took over a minute).
  }, 600_000);
});
