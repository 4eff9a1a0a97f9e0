/**
 * The OpenAPI description that the service serves at `/openapi.json`, built by the real app
 * (`buildApp`) without a database or a job queue (the description depends on the routes only;
 * PUBLIC_BASE_URL is left unset, so `servers` is the relative one).
 *
 *   npx tsx scripts/openapi.ts out.json   writes it to out.json
 *   npx tsx scripts/openapi.ts --client   `npm run openapi:client`: rewrites the generated
 *                                         client types, test/generated/timbre-api.d.ts
 *   npx tsx scripts/openapi.ts --lint     `npm run lint:openapi`: Redocly's recommended rules,
 *                                         failing on any error or warning (CI runs it)
 *
 * Redocly runs offline: telemetry and its update check are switched off.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { CLIENT_TYPES_PATH, clientTypes } from './openapi-types.ts';

const arg = process.argv[2];
if (!arg) {
  console.error('usage: tsx scripts/openapi.ts <out.json> | --lint | --client');
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'timbre-openapi-'));
const config = parseConfig({
  TIMBRE_DATA_DIR: scratch,
  TIMBRE_MASTER_KEY: Buffer.alloc(32).toString('base64'),
  LOG_LEVEL: 'error',
});
// Never used: with `jobs: false` nothing touches the database while the app starts, and
// /openapi.json reads no data.
const noDatabase = {} as Database;
const app = await buildApp({ config, db: noDatabase, jobs: false });
const res = await app.inject({ method: 'GET', url: '/openapi.json' });
await app.close();
if (res.statusCode !== 200) {
  console.error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
  process.exit(1);
}
const text = `${JSON.stringify(res.json(), null, 2)}\n`;

if (arg === '--client') {
  writeFileSync(CLIENT_TYPES_PATH, await clientTypes(res.json()));
  rmSync(scratch, { recursive: true, force: true });
  console.log(`wrote ${CLIENT_TYPES_PATH}`);
} else if (arg !== '--lint') {
  writeFileSync(arg, text);
  rmSync(scratch, { recursive: true, force: true });
  console.log(`wrote ${arg}`);
} else {
  const file = join(scratch, 'openapi.json');
  writeFileSync(file, text);
  const redocly = resolve('node_modules', '.bin', 'redocly');
  const run = spawnSync(redocly, ['lint', '--extends', 'recommended', '--max-problems', '1000', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  rmSync(scratch, { recursive: true, force: true });
  const output = `${run.stdout}${run.stderr}`;
  process.stdout.write(output);
  // redocly exits 0 with warnings: the bar here is none of either.
  if (run.status !== 0 || /\bwarnings?\b/i.test(output.replace(/Deprecation warning[^\n]*/g, ''))) {
    console.error('openapi lint: Redocly reported problems (0 errors and 0 warnings required)');
    process.exit(1);
  }
  console.log('openapi lint: 0 errors, 0 warnings');
}
