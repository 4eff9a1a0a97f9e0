/**
 * What the use cases need, wired once by `buildApp` / the CLI (STYLE §1: a factory, no
 * module-level singletons). Tests build their own with a fixed clock or another database.
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';

export type Clock = () => Date;

export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  log: Logger;
}
