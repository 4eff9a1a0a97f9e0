/**
 * What the use cases need, wired once by `buildApp` / the CLI (docs/style.md §1: a factory, no
 * module-level singletons). Tests build their own with a fixed clock or another database.
 */
import type { Logger } from 'pino';
import type { KeyCaches } from './caches.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { PdfRenderer } from './dte/pdf/renderer.ts';
import type { Signer } from './dte/signing/pool.ts';
import type { SiiClient } from './sii/types.ts';

export type Clock = () => Date;

export { createKeyCaches } from './caches.ts';

/**
 * The background work (src/jobs.ts): due rows in PostgreSQL, polled for and worked under leases;
 * a submission's row says when its next step is due, so scheduling one needs no call here.
 */
export interface JobQueue {
  /** Looks for due webhook deliveries and e-mails now (after a commit that queued some). */
  nudge(): void;
  stop(): Promise<void>;
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
  /**
   * PDF rendering in worker threads (PDF_RENDER_CONCURRENCY at a time; workers start on first
   * use), shared by the API's downloads, the dashboard and e-mail, so the bound is per process.
   */
  pdf: PdfRenderer;
  /**
   * The signing stage of issuing (TED, XML, XMLDSig, the last check) in SIGN_WORKERS worker
   * threads, or on the event loop when 0; workers start on first use.
   */
  signer: Signer;
}
