/** Paths into `test/fixtures/` (SII test vectors copied into the repo; provenance in its READMEs). */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixturePath(...parts: string[]): string {
  const path = FIXTURES_DIR + parts.join('/');
  if (!existsSync(path)) throw new Error(`${path} not found: test fixtures live in test/fixtures/`);
  return path;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The SHA-256 of each SII schema and CAF-signing certificate as published (from the reference
 * copies named in test/fixtures/sii/README.md), keyed `schemas/X.xsd` / `certs/X.cer`: the
 * vendored copies under resources/sii must stay byte-identical to them.
 */
export function referenceChecksums(): Map<string, string> {
  const lines = readFileSync(fixturePath('sii', 'reference.sha256'), 'utf8').trim().split('\n');
  return new Map(lines.map((l) => [l.slice(66), l.slice(0, 64)] as [string, string]));
}
