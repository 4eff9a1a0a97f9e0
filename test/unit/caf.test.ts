/**
 * CAF files (src/dte/caf.ts, docs/sii-reference.md §2): the SII's own certification CAF (a genuine FRMA by
 * the IDK 100 key, with a published private key) and CAFs generated for sandbox and the
 * simulator.
 */
import { createPrivateKey, generateKeyPairSync, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type Caf,
  cafExpiresAt,
  cafKeyPairMatches,
  cafPublicKey,
  generateCaf,
  loadSiiCafKeys,
  parseCaf,
  parseTrustedKeyPem,
  verifyCafSignature,
} from '../../src/dte/caf.ts';
import { calendarDate, compareDates } from '../../src/dte/calendar-date.ts';
import { AppError } from '../../src/errors.ts';
import { buildTed, extractDd } from '../../src/dte/ted.ts';
import { issueRequestSchema } from '../../src/dte/issue-request.ts';
import { computeDocument } from '../../src/dte/totals.ts';
import { buildDteXml } from '../../src/dte/dte-xml.ts';
import { encodeLatin1 } from '../../src/dte/xml-text.ts';
import { ISSUER, textOf } from '../helpers/dte-pipeline.ts';
import { fixturePath, referenceChecksums, sha256 } from '../helpers/fixtures.ts';

const SII_CAF_FILE = fixturePath('sii', 'caf', 'CAF_T33_97975000-5_F1-200_ejemplo_SII.xml');
const siiCafText = readFileSync(SII_CAF_FILE, 'latin1');
const siiCaf = parseCaf(readFileSync(SII_CAF_FILE));

const signer = generateKeyPairSync('rsa', { modulusLength: 1024 });
const stranger = generateKeyPairSync('rsa', { modulusLength: 1024 });

function generated(over: Partial<Parameters<typeof generateCaf>[0]> = {}): string {
  return generateCaf({
    rut: ISSUER.rut,
    name: ISSUER.name,
    type: 33,
    from: 101,
    to: 150,
    authorisedAt: '2026-01-02',
    signerKey: signer.privateKey,
    idk: 100,
    ...over,
  });
}

const caughtCode = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : `not an AppError: ${(e as Error).message}`;
  }
  return undefined;
};

describe('the SII example CAF', () => {
  it('parses into its DA fields', () => {
    expect(siiCaf).toMatchObject({
      re: '97975000-5',
      rs: 'RUT DE PRUEBA',
      td: 33,
      from: 1,
      to: 200,
      fa: '2003-09-04',
      idk: 100,
      exponent: 'Aw==',
      modulus: '0a4O6Kbx8Qj3K4iWSP4w7KneZYeJ+g/prihYtIEolKt3cykSxl1zO8vSXu397QhTmsX7SBEudTUx++2zDXBhZw==',
      frma: 'g1AQX0sy8NJugX52k2hTJEZAE9Cuul6pqYBdFxj1N17umW7zG/hAavCALKByHzdYAfZ3LhGTXCai5zNxOo4lDQ==',
    });
    expect(siiCaf.privateKeyPem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n[\s\S]+-----END RSA PRIVATE KEY-----$/);
  });

  it('keeps <CAF> and <DA> flattened, as the TED embeds them (docs/sii-reference.md §3.2)', () => {
    expect(siiCaf.cafXml).toMatch(/^<CAF version="1.0"><DA><RE>97975000-5<\/RE><RS>RUT DE PRUEBA<\/RS>/);
    expect(siiCaf.cafXml).toMatch(/<\/DA><FRMA algoritmo="SHA1withRSA">g1AQX0[^<]+<\/FRMA><\/CAF>$/);
    expect(siiCaf.cafXml).not.toMatch(/>\s+</);
    expect(siiCaf.cafXml).not.toContain('RSASK');
    expect(siiCaf.daXml).toBe(/<DA>.*<\/DA>/.exec(siiCaf.cafXml)![0]);
  });

  it('parses the same from text and from bytes', () => {
    expect(parseCaf(siiCafText)).toEqual(siiCaf);
  });

  it('its RSAPK is 512-bit RSA with e = 3', () => {
    const jwk = cafPublicKey(siiCaf).export({ format: 'jwk' });
    expect(Buffer.from(jwk.n!, 'base64url')).toHaveLength(64);
    expect(jwk.e).toBe('Aw');
  });

  it('its RSASK is the private half of RSAPK, and another key is not', () => {
    expect(cafKeyPairMatches(siiCaf)).toBe(true);
    const other = generateKeyPairSync('rsa', { modulusLength: 512, publicExponent: 3 });
    const otherPem = other.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(cafKeyPairMatches({ ...siiCaf, privateKeyPem: otherPem })).toBe(false);
    expect(cafKeyPairMatches({ ...siiCaf, privateKeyPem: 'not a key' })).toBe(false);
  });

  it('its FRMA verifies with the SII key IDK 100 (certification)', () => {
    expect(verifyCafSignature(siiCaf, loadSiiCafKeys())).toBe(true);
  });

  it('its FRMA does not verify when only the production key (IDK 300) is trusted', () => {
    const production = loadSiiCafKeys().filter((k) => k.idk === 300);
    expect(production).toHaveLength(1);
    expect(verifyCafSignature(siiCaf, production)).toBe(false);
    // Nor when the production key is trusted for any IDK: the signature is not its.
    expect(verifyCafSignature(siiCaf, [{ ...production[0]!, idk: undefined }])).toBe(false);
  });

  it('an SII key is used only for its own IDK', () => {
    const certification = loadSiiCafKeys().find((k) => k.idk === 100)!;
    expect(verifyCafSignature(siiCaf, [{ ...certification, idk: 300 }])).toBe(false);
    expect(verifyCafSignature(siiCaf, [{ ...certification, idk: undefined }])).toBe(true);
  });

  it.each([
    ['the range widened', '<H>200</H>', '<H>900</H>'],
    ['the first folio moved', '<D>1</D>', '<D>2</D>'],
    ['the issuer changed', '<RE>97975000-5</RE>', '<RE>76086428-5</RE>'],
    ['the type changed', '<TD>33</TD>', '<TD>34</TD>'],
    ['the date changed', '<FA>2003-09-04</FA>', '<FA>2003-09-05</FA>'],
  ])('its FRMA no longer verifies when %s', (_, from, to) => {
    expect(siiCafText).toContain(from);
    const tampered = parseCaf(siiCafText.replace(from, to));
    expect(verifyCafSignature(tampered, loadSiiCafKeys())).toBe(false);
  });

  it('the vendored SII keys are the reference copies (checksums in test/fixtures/sii/reference.sha256)', () => {
    const recorded = referenceChecksums();
    for (const idk of [100, 300]) {
      const name = `certs/sii_caf_idk${idk}.cer`;
      expect(sha256(readFileSync(resolve('resources/sii', name))), name).toBe(recorded.get(name));
    }
    expect(verifyCafSignature(siiCaf, loadSiiCafKeys(resolve('resources/sii/certs')))).toBe(true);
  });
});

describe('malformed CAF files are refused with CAF_INVALID', () => {
  it.each([
    ['not a CAF', '<foo/>'],
    ['no RSASK', siiCafText.replace(/<RSASK>[\s\S]*<\/RSASK>/, '')],
    ['a bad RUT', siiCafText.replace('<RE>97975000-5</RE>', '<RE>97975000-4</RE>')],
    ['a reversed range', siiCafText.replace('<D>1</D><H>200</H>', '<D>200</D><H>1</H>')],
    ['folio 0', siiCafText.replace('<D>1</D>', '<D>0</D>')],
    ['a bad date', siiCafText.replace('<FA>2003-09-04</FA>', '<FA>04-09-2003</FA>')],
    ['no DA', siiCafText.replace(/<DA>[\s\S]*<\/DA>/, '')],
  ])('%s', (_, text) => {
    expect(caughtCode(() => parseCaf(text))).toBe('CAF_INVALID');
  });
});

describe('generated CAFs (sandbox and simulator)', () => {
  const file = generated();
  const caf = parseCaf(Buffer.from(file, 'latin1'));

  it('parse back to what was asked, with a fresh 512-bit e = 3 key pair that matches', () => {
    expect(caf).toMatchObject({ re: ISSUER.rut, td: 33, from: 101, to: 150, fa: '2026-01-02', idk: 100 });
    expect(caf.rs).toBe(ISSUER.name);
    expect(caf.exponent).toBe('Aw==');
    expect(Buffer.from(caf.modulus, 'base64')).toHaveLength(64);
    expect(cafKeyPairMatches(caf)).toBe(true);
    expect(parseCaf(Buffer.from(generated(), 'latin1')).modulus).not.toBe(caf.modulus);
  });

  it('are pretty-printed like the SII’s, while FRMA covers the compact DA', () => {
    expect(file).toMatch(/^<\?xml version="1.0"\?>\n<AUTORIZACION>\n<CAF version="1.0">\n<DA>\n<RE>[^<]+<\/RE>\n<RS>/);
    expect(caf.daXml).not.toContain('\n');
    expect(verify('sha1', Buffer.from(caf.daXml, 'latin1'), signer.publicKey, Buffer.from(caf.frma, 'base64'))).toBe(
      true,
    );
  });

  it('their FRMA verifies only with the generating key', () => {
    const pem = signer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(verifyCafSignature(caf, [parseTrustedKeyPem(pem, 'simulator')])).toBe(true);
    const strangerPem = stranger.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(verifyCafSignature(caf, [parseTrustedKeyPem(strangerPem, 'other')])).toBe(false);
    expect(verifyCafSignature(caf, loadSiiCafKeys())).toBe(false);
  });

  it('their FRMA breaks when the range is widened', () => {
    const widened = parseCaf(file.replace('<H>150</H>', '<H>999</H>'));
    expect(verifyCafSignature(widened, [{ label: 'simulator', key: signer.publicKey }])).toBe(false);
  });

  it('cut RS to 40 characters', () => {
    const long = parseCaf(generated({ name: 'Comercializadora e Importadora del Pacífico Sur SpA' }));
    expect(long.rs).toBe('Comercializadora e Importadora del Pacíf');
  });

  it('escape RS', () => {
    const amp = parseCaf(generated({ name: 'A & B <Sur>' }));
    expect(amp.rs).toBe('A & B <Sur>');
    expect(amp.cafXml).toContain('<RS>A &amp; B &lt;Sur&gt;</RS>');
  });

  // An issuer name with typographic marks ("”", "—") cannot be written in an ISO-8859-1 CAF:
  // the CAF must stay well-formed Latin-1 and its FRMA, and the FRMT of every TED that embeds
  // it, must verify over the bytes a reader of the stored document sees.
  it('with an issuer name outside Latin-1 still give a well-formed CAF and verifiable TEDs', () => {
    const issuer = { ...ISSUER, name: 'Café “El Mañana” — Ltda.' };
    const bytes = Buffer.from(generated({ name: issuer.name }), 'latin1');
    expect([...bytes].filter((b) => b < 0x20 && b !== 0x0a)).toEqual([]);
    const fancy: Caf = parseCaf(bytes);
    expect(fancy.rs).toMatch(/^Café .El Mañana. - Ltda\.$/);
    expect(
      verify('sha1', Buffer.from(fancy.daXml, 'latin1'), signer.publicKey, Buffer.from(fancy.frma, 'base64')),
    ).toBe(true);

    const doc = computeDocument(
      issueRequestSchema.parse({
        type: 33,
        receiver: { rut: '76354771-K', name: 'Cliente', activity: 'Comercio', address: 'Calle 1', comuna: 'Santiago' },
        items: [{ name: 'Pan', qty: 1, price: 100 }],
      }),
      { issuer, folio: 101, date: '2026-03-05' },
    );
    const ted = buildTed({ doc, caf: fancy, cafPrivateKey: createPrivateKey(fancy.privateKeyPem), timestamp: 'x' });
    const stored = encodeLatin1(buildDteXml(doc, { ted, timestamp: 'x' }).xml).toString('latin1');
    const dd = extractDd(stored)!;
    const frmt = Buffer.from(textOf(stored, 'FRMT')!, 'base64');
    expect(verify('sha1', Buffer.from(dd, 'latin1'), cafPublicKey(fancy), frmt)).toBe(true);
  });
});

describe('CAF expiry (docs/sii-reference.md §2)', () => {
  it.each([33, 46, 56, 61])('type %i expires 180 days after FA', (td) => {
    // 2003-09-04 + 180 days: 26 (Sep) + 31 + 30 + 31 + 31 + 29 (leap Feb 2004) = 178 → 2004-03-02.
    expect(cafExpiresAt({ td, fa: calendarDate('2003-09-04') })).toBe('2004-03-02');
  });

  it.each([34, 39, 41, 52])('type %i never expires', (td) => {
    expect(cafExpiresAt({ td, fa: calendarDate('2003-09-04') })).toBeNull();
  });

  it('the SII example CAF expired long ago', () => {
    expect(compareDates(cafExpiresAt(siiCaf)!, calendarDate('2004-04-01'))).toBeLessThan(0);
  });
});
