/**
 * The seed behind every random choice a test makes (fuzz bodies, property runs, generated
 * passwords): `TEST_SEED` when set — CI pins it — otherwise a fresh one. It is printed once
 * per test file, so any failure can be replayed with `TEST_SEED=<n> npx vitest run <file>`.
 */
import { basename } from 'node:path';

let chosen: number | undefined;

export function testSeed(file: string): number {
  if (chosen === undefined) {
    const given = process.env.TEST_SEED;
    chosen = given && /^\d+$/.test(given) ? Number(given) : Math.floor(Math.random() * 2 ** 31);
    console.log(`[seed] ${basename(file)}: TEST_SEED=${chosen}`);
  }
  return chosen;
}

/** A small deterministic generator (mulberry32) for tests that need random bytes or strings. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
