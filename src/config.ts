/**
 * Configuration: one zod schema over the environment, parsed once at boot. This is the only
 * module that reads `process.env` (besides the `.env` loader). An invalid value stops the
 * process with every bad key listed. `.env.example` documents every key.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { z } from 'zod';

const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const url = z.string().url();

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** postgres://… ; unset → embedded PostgreSQL under TIMBRE_DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /**
   * A direct connection to the same server, for what a transaction-pooling PgBouncer cannot
   * carry: LISTEN/NOTIFY (the operator change feed) and the migrations' session lock. Unset:
   * DATABASE_URL. Without a database name it takes DATABASE_URL's.
   */
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /**
   * Name (prepare once per connection) the hot statements. Default: on, off when
   * DATABASE_DIRECT_URL is set (a pooler in between, which may not carry named statements).
   */
  DB_NAMED_STATEMENTS: boolish.optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  TIMBRE_DATA_DIR: z.string().min(1).default('.data'),
  /** Base URL used to build pdf_url / xml_url; default http://localhost:PORT. */
  PUBLIC_BASE_URL: url.optional(),
  /** 32 bytes, base64 or hex: encrypts certificates and CAF keys at rest (AES-256-GCM). */
  TIMBRE_MASTER_KEY: z.string().optional(),
  /** Create the demo account, sandbox issuer and owner key on first start. */
  TIMBRE_DEMO: boolish.default(true),
  /** Extra public keys (PEM, concatenated, or a path to a PEM file) trusted to sign CAFs. */
  TIMBRE_EXTRA_CAF_KEYS: z.string().optional(),
  SII_DTEWS_URL: url.default('https://maullin.sii.cl'),
  SII_UPLOAD_URL: url.default('https://maullin.sii.cl'),
  SII_BOLETA_API_URL: url.default('https://apicert.sii.cl/recursos/v1'),
  SII_BOLETA_UPLOAD_URL: url.default('https://pangal.sii.cl/recursos/v1'),
  /** Base of the SII web portal, where CAF folios are requested (the simulator answers here too). */
  SII_PORTAL_URL: url.default('https://maullin.sii.cl'),
  /**
   * The claims registry RegistroReclamoDTE, the whole URL (production and certification differ
   * in path too): production https://ws1.sii.cl/WSREGISTRORECLAMODTE/registroreclamodteservice.
   */
  SII_REGISTRO_URL: url.default('https://ws2.sii.cl/WSREGISTRORECLAMODTECERT/registroreclamodteservice'),
  /**
   * Base of the SII's registry of cesiones (RPETC): the AEC upload /cgi_rtc/RTC/RTCAnotEnvio.cgi
   * and the status service /DTEWS/services/wsRPETCConsulta. Production https://palena.sii.cl.
   */
  SII_RPETC_URL: url.default('https://maullin.sii.cl'),
  SII_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Background jobs (SII submission and polling, webhooks, e-mail) run in this process (src/jobs.ts). */
  JOBS_ENABLED: boolish.default(true),
  /** How often a job worker asks PostgreSQL for due submissions, seconds. */
  JOBS_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  /** How often each worker folds the list's counter deltas, seconds. */
  JOBS_SWEEP_SECONDS: z.coerce.number().min(1).max(3600).default(15),
  /** First retry delay after a failed submission, ms; doubles per attempt up to 30 min. */
  SII_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  /** First delay before asking the SII about an uploaded envelope, ms; doubles per poll up to 30 min. */
  SII_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(3_600_000).default(15_000),
  /**
   * How long a reserved folio waits for its document before another request may take it, ms
   * (a request whose process died; src/issuing/folios.ts).
   */
  FOLIO_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * Value of one UF in pesos, for the boleta rule of Ley 21.713 (above 135 UF the buyer is
   * identified and MedioPago given; Formato Boletas fields 10, 18, 20). The operator keeps it
   * current (the Banco Central publishes it daily; no network is used for it); the default
   * is a round value close to the UF of 2026.
   */
  UF_CLP: z.coerce.number().int().min(1).default(40_000),
  /** RUTProvSW written on boletas (Formato Boletas field 30): the software provider's RUT, or
   * the issuer's own for in-house software. Unset: not written. */
  SII_SOFTWARE_PROVIDER_RUT: z
    .string()
    .regex(/^\d{1,8}-[\dK]$/, 'must be a RUT with hyphen and check digit, e.g. 76354771-K')
    .optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Failed attempts (401, 403, a download's 404 without a key) per client address per minute, then 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /**
   * Which proxies to believe for the client address (X-Forwarded-For): false (none, the
   * default), true (any: only behind a balancer that overwrites the header), a number of hops,
   * or a comma-separated list of proxy addresses / CIDRs.
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v): boolean | number | string => {
      const t = v.trim().toLowerCase();
      if (t === 'true') return true;
      if (t === 'false') return false;
      return /^\d+$/.test(t) ? Number(t) : v.trim();
    }),
  /** Time allowed to receive a request's headers, ms (slow-header clients are cut off). */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Time allowed to receive a whole request, headers and body, ms (slow-body clients are cut off). */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** How long an idle keep-alive connection is kept open, ms. */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** Open connections accepted at once; beyond it new connections are closed at once. */
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  /** PDF renders running at once (worker threads); further downloads wait their turn. */
  PDF_RENDER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** PDF downloads read from the database or rendered at once per instance (from memory: no wait). */
  PDF_DOWNLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(4),
  /**
   * MiB of recently served files (PDFs, signed XML) kept in memory per instance, so that a repeat
   * download reads no database (src/file-cache.ts); 0 keeps none.
   */
  FILE_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(32),
  /**
   * Worker threads that stamp, sign and check each document (src/dte/signing/pool.ts); 0 signs
   * on the event loop, and checks received envelopes and signs the answers to them there too
   * instead of in their own worker thread (src/receiving/check-pool.ts). Default: one fewer than the cores available to the process (at least
   * one), leaving a core to the event loop and PostgreSQL (BENCHMARKS.md, "Signing stage alone").
   */
  SIGN_WORKERS: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    .default(Math.max(1, availableParallelism() - 1)),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  // Events, webhooks and e-mail (docs/design.md §9, src/events/)
  /** Allow webhook targets on private, loopback and link-local addresses, and http in live. */
  TIMBRE_WEBHOOKS_ALLOW_PRIVATE: boolish.default(false),
  /** A webhook attempt that has no answer after this long failed, ms. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Delays between webhook attempts, ms, comma-separated; the last repeats until the give-up time. */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated milliseconds')
    .default('5000,300000,1800000,7200000,18000000,36000000,36000000,86400000')
    .transform((s) => s.split(',').map(Number)),
  /** An event is retried for this long; an endpoint failing for this long is disabled, ms (3 days). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(3 * 24 * 3600 * 1000),
  /** Deliveries in flight at once per endpoint, across all instances. */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  /** How often a worker looks for due webhook deliveries and e-mails, ms. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1000),
  /** smtp://user:pass@host:port or smtps://…; unset: e-mail to receivers is off. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  /** The From of e-mails to receivers. */
  MAIL_FROM: z.string().min(3).default('Timbre <no-reply@timbre.local>'),
  /** First retry delay after an SMTP failure, ms (doubles per attempt). */
  EMAIL_RETRY_BASE_MS: z.coerce.number().int().min(10).default(60_000),
  /** Attempts before an e-mail is given up (email.failed). */
  EMAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  /** How often each issuer's intercambio mailbox is read over IMAP, seconds (src/receiving/mailbox-reader.ts). */
  MAILBOX_POLL_SECONDS: z.coerce.number().min(0.2).max(3600).default(60),
  /** The largest mail message read from a mailbox, bytes; a larger one is recorded as refused, unread. */
  MAILBOX_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(25 * 1024 * 1024),
  /** A live document not received by the SII this long after issue: document.submission_delayed, ms. */
  SUBMISSION_DELAY_ALERT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(15 * 60_000),
  /** received.deadline_near fires this many hours before a received factura's 8 days end. */
  RECEIVED_DEADLINE_NEAR_HOURS: z.coerce.number().min(1).max(191).default(48),
  /** How often the SII's claims registry is asked what a customer did with an issued factura, ms. */
  REGISTRY_POLL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(86_400_000)
    .default(4 * 3_600_000),
  /** How often the time-based events (delays, expiring CAFs and certificates) are looked for, seconds. */
  EVENTS_SCAN_SECONDS: z.coerce.number().min(1).max(86_400).default(60),
});

export type Config = Omit<z.infer<typeof configSchema>, 'DB_NAMED_STATEMENTS'> & {
  DB_NAMED_STATEMENTS: boolean;
  dataDir: string;
  publicBaseUrl: string;
};

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses a configuration from an environment-like record (tests pass their own). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const c = result.data;
  return {
    ...c,
    DB_NAMED_STATEMENTS: c.DB_NAMED_STATEMENTS ?? c.DATABASE_DIRECT_URL === undefined,
    dataDir: resolve(c.TIMBRE_DATA_DIR),
    publicBaseUrl: (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
  };
}

/** Reads `.env` (when present) and the process environment. */
export function loadConfig(): Config {
  if (existsSync('.env')) loadDotenv({ path: '.env', quiet: true });
  return parseConfig(process.env);
}
