/**
 * Independent verifiers (Debian tools, not our code): xmllint for XSD validity, xmlsec1 for
 * XMLDSig, pdftoppm + ZXingReader for the PDF417 stamp.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const work = mkdtempSync(join(tmpdir(), 'timbre-verify-'));
let n = 0;

function tempFile(name: string, bytes: Buffer): string {
  n += 1;
  const path = join(work, `${n}-${name}`);
  writeFileSync(path, bytes);
  return path;
}

const SCHEMA_DIR = resolve('resources/sii/schemas');

/** `xmllint --noout --schema <xsd>`; returns stderr on failure. */
export function xmllint(bytes: Buffer, schemaFile: string): { ok: boolean; output: string } {
  const file = tempFile('doc.xml', bytes);
  const r = spawnSync('xmllint', ['--noout', '--schema', join(SCHEMA_DIR, schemaFile), file], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

/** `xmlsec1 --verify` of the signature whose reference is a `Documento`/`SetDTE` ID. */
export function xmlsecVerify(
  bytes: Buffer,
  opts: { nodeXpath?: string; idAttrs?: string[] } = {},
): { ok: boolean; output: string } {
  const file = tempFile('signed.xml', bytes);
  const ids = opts.idAttrs ?? [
    'Documento',
    'http://www.sii.cl/SiiDte:Documento',
    'http://www.sii.cl/SiiDte:SetDTE',
    'SetDTE',
  ];
  const args = [
    '--verify',
    ...ids.flatMap((id) => ['--id-attr:ID', id]),
    '--enabled-key-data',
    'key-value',
    '--enabled-key-data',
    'rsa',
  ];
  if (opts.nodeXpath) args.push('--node-xpath', opts.nodeXpath);
  args.push(file);
  const r = spawnSync('xmlsec1', args, { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

/** Renders page `page` (1-based, default last) of a PDF at 300 dpi and decodes its PDF417 bytes. */
export function decodePdf417(pdf: Buffer, page?: number): Buffer {
  const file = tempFile('doc.pdf', pdf);
  const pages = page ?? pdfPageCount(pdf);
  const prefix = join(work, `page-${n}`);
  execFileSync('pdftoppm', ['-r', '300', '-png', '-f', String(pages), '-l', String(pages), file, prefix]);
  const png = readdirSync(work)
    .filter((f) => f.startsWith(`page-${n}`) && f.endsWith('.png'))
    .map((f) => join(work, f))[0];
  if (!png) throw new Error('pdftoppm produced no page');
  return execFileSync('ZXingReader', ['-format', 'PDF417', '-bytes', png]);
}

export function pdfPageCount(pdf: Buffer): number {
  const file = tempFile('count.pdf', pdf);
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  return Number(/Pages:\s+(\d+)/.exec(info)?.[1] ?? '0');
}

export function pdfText(pdf: Buffer): string {
  const file = tempFile('text.pdf', pdf);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}
