/** Paths into the team's `shared/` reference set, which sits beside the checkout (in CI too). */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const SHARED_DIR = resolve(process.env.TIMBRE_SHARED_DIR ?? '../shared');

export function sharedPath(...parts: string[]): string {
  const path = resolve(SHARED_DIR, ...parts);
  if (!existsSync(path)) throw new Error(`${path} not found: the shared/ reference set must sit beside the checkout`);
  return path;
}
