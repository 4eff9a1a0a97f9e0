/**
 * For each of the 8 types, a full document issued through the API and
 * checked field by field against a hand-written expected XML (test/fixtures/expected/, see the
 * README there), not against Timbre's own builder. Only what depends on keys and time is
 * normalised: the XMLDSig Signature, TmstFirma, and the TED's CAF, TSTED and FRMT (written `*`
 * in the expected files). The stored document must also pass the XSD and verify with xmlsec1.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseXml } from '../../src/dte/xmldsig.ts';
import { validateDte } from '../../src/dte/xsd.ts';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';
import { RECEIVER } from '../helpers/requests.ts';
import { xmlsecVerify } from '../helpers/verify.ts';
import { signedXmlOf } from '../../src/issuing/document-content.ts';

const NOW = new Date('2026-11-23T15:00:00Z');
const ISSUER_RUT = '76086428-5';

/** The requests, in the order issued (56 and 61 reference the 33 and the 34). */
const REQUESTS: Array<[string, Record<string, unknown>]> = [
  [
    '33',
    {
      type: 33,
      payment: 2,
      receiver: RECEIVER,
      items: [
        { name: 'Clavos de acero 2" (caja)', qty: 10, price: 1350, unit: 'CJ', code: 'CLV-2' },
        { name: 'Martillo carpintero', qty: 2, price: 8990, description: 'Mango de fibra, 16 oz', discount_pct: 10 },
        { name: 'Flete a Ñuñoa', qty: 1, price: 5000, exempt: true },
      ],
      refs: [{ type: 801, folio: 'OC-4471', date: '2026-11-02', reason: 'Orden de compra' }],
    },
  ],
  [
    '34',
    {
      type: 34,
      receiver: RECEIVER,
      items: [
        { name: 'Asesoría contable', qty: 1, price: 150000 },
        { name: 'Curso de capacitación', qty: 3, price: 45000 },
      ],
    },
  ],
  [
    '39',
    {
      type: 39,
      items: [
        { name: 'Café orgánico ½ kg', qty: 2, price: 6990 },
        { name: 'Pan amasado', qty: 1.5, price: 2400 },
      ],
    },
  ],
  ['41', { type: 41, items: [{ name: 'Entrada museo', qty: 2, price: 3000 }] }],
  [
    '46',
    {
      type: 46,
      receiver: { ...RECEIVER, rut: '13185095-6', name: 'José Muñoz Peña' },
      items: [{ name: 'Compra de chatarra de cobre', qty: 120, price: 3500, unit: 'KG' }],
    },
  ],
  [
    '52',
    {
      type: 52,
      receiver: RECEIVER,
      dispatch: {
        transfer_type: 1,
        dispatch_type: 2,
        transport: {
          plate: 'KXLB12',
          driver: { rut: '13185095-6', name: 'Pedro Soto' },
          address: 'Camino a Melipilla 9800',
          comuna: 'Maipú',
          city: 'Santiago',
        },
      },
      items: [{ name: 'Planchas de zinc 3 m', qty: 20, price: 12990, unit: 'UN' }],
    },
  ],
  [
    '56',
    {
      type: 56,
      receiver: RECEIVER,
      refs: [{ type: 33, folio: 1, date: '2026-11-23', reason: 'Intereses por mora' }],
      items: [{ name: 'Intereses por mora', qty: 1, price: 2000 }],
    },
  ],
  [
    '61',
    {
      type: 61,
      receiver: { rut: RECEIVER.rut, name: RECEIVER.name },
      refs: [{ type: 34, folio: 1, date: '2026-11-23', reason: 'Anula factura exenta' }],
      items: [
        { name: 'Asesoría contable', qty: 1, price: 150000, exempt: true },
        { name: 'Curso de capacitación', qty: 3, price: 45000, exempt: true },
      ],
    },
  ],
];

type El = ReturnType<typeof parseXml>['documentElement'] & {};

const elements = (e: El): El[] =>
  Array.from(e.childNodes as unknown as ArrayLike<{ nodeType: number }>).filter((n) => n.nodeType === 1) as El[];

const attributes = (e: El): Record<string, string> => {
  const out: Record<string, string> = {};
  for (let i = 0; i < e.attributes.length; i++) {
    const a = e.attributes.item(i)!;
    if (a.name !== 'xmlns' && !a.name.startsWith('xmlns:')) out[a.name] = a.value;
  }
  return out;
};

/** Every difference between the expected tree and the actual one, as "path: …" lines. */
function differences(expected: El, actual: El, path = ''): string[] {
  const here = `${path}/${expected.localName}`;
  if (expected.localName !== actual.localName || expected.namespaceURI !== actual.namespaceURI) {
    return [
      `${here}: expected {${expected.namespaceURI}}${expected.localName}, got {${actual.namespaceURI}}${actual.localName}`,
    ];
  }
  const out: string[] = [];
  const [ea, aa] = [attributes(expected), attributes(actual)];
  if (JSON.stringify(ea) !== JSON.stringify(aa))
    out.push(`${here}: attributes ${JSON.stringify(ea)} ≠ ${JSON.stringify(aa)}`);
  const expectedChildren = elements(expected);
  if (expectedChildren.length === 0 && expected.textContent === '*') return out; // normalised part
  const actualChildren = elements(actual);
  if (expectedChildren.length === 0 && actualChildren.length === 0) {
    if (expected.textContent !== actual.textContent) {
      out.push(`${here}: expected ${JSON.stringify(expected.textContent)}, got ${JSON.stringify(actual.textContent)}`);
    }
    return out;
  }
  const names = (l: El[]) => l.map((c) => c.localName).join(',');
  if (names(expectedChildren) !== names(actualChildren)) {
    return [...out, `${here}: children [${names(expectedChildren)}] ≠ [${names(actualChildren)}]`];
  }
  expectedChildren.forEach((c, i) => {
    out.push(...differences(c, actualChildren[i]!, here));
  });
  return out;
}

let t: TestApp;
const stored = new Map<string, Buffer>();

beforeAll(async () => {
  t = await buildTestApp({ clock: () => NOW, env: { SII_SOFTWARE_PROVIDER_RUT: ISSUER_RUT } });
  await createTestIssuer(t.ctx, { rut: ISSUER_RUT, name: 'Ferretería Ñandú & Cía. Ltda.' });
  const auth = { authorization: `Bearer ${await createTestKey(t.ctx, ISSUER_RUT, 'owner')}` };
  for (const [name, payload] of REQUESTS) {
    const res = await t.app.inject({ method: 'POST', url: `/api/${ISSUER_RUT}/emitir`, headers: auth, payload });
    expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
    const { type, folio } = res.json();
    const row = await t.ctx.db.prisma.document.findFirstOrThrow({ where: { type, folio } });
    stored.set(name, await signedXmlOf(t.ctx, row));
  }
});

afterAll(async () => {
  await t.close();
});

describe('each type against its hand-written expected XML', () => {
  it.each(REQUESTS.map(([name]) => name))('%s', (name) => {
    const bytes = stored.get(name)!;
    const expected = parseXml(readFileSync(new URL(`../fixtures/expected/${name}.xml`, import.meta.url), 'utf8'));
    const actual = parseXml(bytes.toString('latin1'));
    expect(differences(expected.documentElement!, actual.documentElement!)).toEqual([]);
    expect(validateDte(bytes).valid).toBe(true);
    expect(xmlsecVerify(bytes).ok).toBe(true);
  });
});
