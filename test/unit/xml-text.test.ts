/**
 * Text-level XML helpers (src/dte/xml-text.ts): escaping as Canonical XML writes text, the
 * flattening the SII applies to the TED (docs/sii-reference.md §3.2), and the ISO-8859-1 world of SII files
 * (character references beyond U+00FF, decoding by the declared encoding).
 */
import { describe, expect, it } from 'vitest';
import { decodeXmlBytes, encodeLatin1, escapeXml, flatten, toLatin1, unescapeXml } from '../../src/dte/xml-text.ts';
import { canonicalize, parseXml } from '../../src/dte/xmldsig.ts';

describe('escapeXml', () => {
  it('escapes &, < and > and leaves quotes literal, as C14N writes text', () => {
    const text = 'Clavos 2" & tuercas <M8> O\'Higgins';
    expect(escapeXml(text)).toBe('Clavos 2" &amp; tuercas &lt;M8&gt; O\'Higgins');
    const el = parseXml(`<a>${escapeXml(text)}</a>`).documentElement!;
    expect(canonicalize(el)).toBe(`<a>${escapeXml(text)}</a>`);
  });

  it('does not double-escape when applied once to text that looks escaped', () => {
    expect(escapeXml('&amp;')).toBe('&amp;amp;');
    expect(unescapeXml(escapeXml('&amp;'))).toBe('&amp;');
  });
});

describe('unescapeXml', () => {
  it('reads the five entities and numeric references', () => {
    expect(unescapeXml('&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos; &#241; &#xF1; &#128512;')).toBe(
      '<a> & "b" \'c\' ñ ñ 😀',
    );
  });

  it('unescapes &amp; last, so &amp;lt; stays the text &lt;', () => {
    expect(unescapeXml('&amp;lt;')).toBe('&lt;');
  });
});

describe('flatten', () => {
  it('removes whitespace between tags and keeps it inside text (docs/sii-reference.md §3.2)', () => {
    expect(flatten('\n<DD>\r\n  <RSR>EMPRESA  LTDA</RSR>\n\t<MNT>10</MNT>\n</DD>\n')).toBe(
      '<DD><RSR>EMPRESA  LTDA</RSR><MNT>10</MNT></DD>',
    );
  });
});

describe('encodeLatin1', () => {
  it('writes Latin-1 characters as single bytes and the rest as character references', () => {
    const bytes = encodeLatin1('<a>Ñuñoa ½ ° — ’ 😀</a>');
    expect(bytes.toString('latin1')).toBe('<a>Ñuñoa ½ ° &#8212; &#8217; &#128512;</a>');
    expect(bytes.includes(Buffer.from([0xd1]))).toBe(true);
    expect(bytes.length).toBe(Buffer.byteLength('<a>Ñuñoa ½ ° &#8212; &#8217; &#128512;</a>', 'latin1'));
  });

  it('reads back to the same text through an XML parser', () => {
    const text = 'Té “premium” — 😀';
    const doc = parseXml(decodeXmlBytes(encodeLatin1(`<?xml version="1.0" encoding="ISO-8859-1"?>\n<a>${text}</a>`)));
    expect(doc.documentElement!.textContent).toBe(text);
  });
});

describe('decodeXmlBytes', () => {
  const latin1Doc = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?>\n<a>Ñuñoa</a>', 'latin1');

  it('honours an ISO-8859-1 / windows-1252 declaration', () => {
    expect(decodeXmlBytes(latin1Doc)).toContain('<a>Ñuñoa</a>');
    const cp1252 = Buffer.from("<?xml version='1.0' encoding='windows-1252'?><a>Ñ</a>", 'latin1');
    expect(decodeXmlBytes(cp1252)).toContain('<a>Ñ</a>');
  });

  it('honours a UTF-8 declaration', () => {
    expect(decodeXmlBytes(Buffer.from('<?xml version="1.0" encoding="UTF-8"?><a>Ñuñoa</a>', 'utf8'))).toContain(
      '<a>Ñuñoa</a>',
    );
  });

  it('without declaration: UTF-8 when valid, else Latin-1 (SII CAFs are Latin-1 under a bare declaration)', () => {
    expect(decodeXmlBytes(Buffer.from('<?xml version="1.0"?><a>Ñuñoa</a>', 'utf8'))).toContain('<a>Ñuñoa</a>');
    expect(decodeXmlBytes(Buffer.from('<?xml version="1.0"?><a>Ñuñoa</a>', 'latin1'))).toContain('<a>Ñuñoa</a>');
  });
});

describe('toLatin1', () => {
  it('maps typographic marks to Latin-1 look-alikes and anything else beyond U+00FF to ?', () => {
    expect(toLatin1('‘a’ “b” „c‚ – — … € ™\u00a0x 😀 中')).toBe('\'a\' "b" "c\' - - ... EUR TM x ? ?');
  });

  it('keeps Latin-1 text, composing decomposed accents first', () => {
    expect(toLatin1('Ñuñoa ½ ° ¿¡ Mun\u0303oz')).toBe('Ñuñoa ½ ° ¿¡ Muñoz');
  });
});
