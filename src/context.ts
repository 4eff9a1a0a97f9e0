/**
 * What the use cases need, wired once by `buildApp` / the CLI (STYLE §1: a factory, no
 * module-level singletons). Tests build their own with a fixed clock or another database.
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { JobQueue } from './issuing/jobs.ts';
import type { SiiClient } from './sii/types.ts';

export type Clock = () => Date;

/**
 * Per-process caches of parsed key material (parsing a .p12 or a PEM per signature would
 * dominate issuing time). Keyed by database id; never shared across processes.
 */
export interface KeyCaches {
  certificates: Map<string, unknown>;
  cafs: Map<string, unknown>;
  values: Map<string, unknown>;
}

export function createKeyCaches(): KeyCaches {
  return { certificates: new Map(), cafs: new Map(), values: new Map() };
}

export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  log: Logger;
  caches: KeyCaches;
  /** The SII (the real services, or the local simulator, per configuration). */
  sii: SiiClient;
  /** Background work; null until started, and in processes that run none (the CLI). */
  jobs: JobQueue | null;
}
