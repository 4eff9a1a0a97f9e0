/**
 * Text-level XML helpers shared by the DTE builder, the TED, CAF parsing and signing. The SII
 * world is ISO-8859-1 (docs/sii-reference.md §3.2, §5): documents are written as
 * Latin-1 bytes, characters beyond U+00FF as character references.
 */

/**
 * Escapes text content the way Canonical XML writes it (`&`, `<`, `>`; quotes stay literal),
 * so the bytes we write are the bytes C14N produces and the bytes the TED signs.
 */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function unescapeXml(text: string): string {
  return text
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Removes every whitespace run between a `>` and the next `<` (docs/sii-reference.md §3.2 "flattened"). */
export function flatten(xml: string): string {
  return xml.replace(/>\s+</g, '><').trim();
}

/**
 * Latin-1 bytes of an XML text; characters beyond U+00FF become numeric character references
 * (valid in text content, where caller-supplied text lives).
 */
export function encodeLatin1(xml: string): Buffer {
  return Buffer.from(
    xml.replace(/[^\u0000-\u00ff]/gu, (c) => `&#${c.codePointAt(0)};`),
    'latin1',
  );
}

/** Decodes XML bytes by their declared encoding; without one, UTF-8 when valid, else Latin-1. */
export function decodeXmlBytes(bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1');
  const declared = /^\s*<\?xml[^>]*encoding=["']([^"']+)["']/i.exec(head)?.[1]?.toLowerCase();
  if (declared && /^(iso-8859-1|latin-?1|windows-1252|cp1252)$/.test(declared)) return bytes.toString('latin1');
  if (declared && /^utf-?8$/.test(declared)) return bytes.toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** Typographic characters callers paste, mapped to their Latin-1 look-alikes. */
const LATIN1_LOOKALIKES: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u20ac': 'EUR',
  '\u2122': 'TM',
  '\u00a0': ' ',
};

/**
 * Text reduced to ISO-8859-1 for the TED, which signs Latin-1 bytes and cannot carry a
 * character reference in the barcode (docs/sii-reference.md §3.2): look-alikes for typographic marks,
 * `?` for the rest.
 */
export function toLatin1(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const mapped = LATIN1_LOOKALIKES[ch];
    if (mapped !== undefined) out += mapped;
    else out += (ch.codePointAt(0) ?? 0) <= 0xff ? ch : '?';
  }
  return out;
}
