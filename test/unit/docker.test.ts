/**
 * `docker-compose.yml` and the `Dockerfile` (README, "docker-compose"). There is no Docker engine
 * where the suite runs, so they are checked statically, against what the service really reads:
 * the compose file is parsed as YAML and its settings go through the service's own config
 * schema (src/config.ts); the image's command is `npm start`'s; the image holds every path the
 * compiled service reads at run time; the database URL points at the compose PostgreSQL with
 * its user, password and database. A change to one side that the other does not follow fails
 * here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema, parseConfig } from '../../src/config.ts';
import { MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { SCHEMA_DIR } from '../../src/dte/xsd.ts';
import { WSDL_DIR } from '../../src/sii-simulator/soap.ts';
import { buildTestApp, TEST_MASTER_KEY } from '../helpers/app.ts';

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string | number>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string; interval?: string; retries?: number; start_period?: string };
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  type: string;
  scripts: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

/** Compose variable interpolation: `${V}`, `${V:-default}` and `${V:?error}` (required). */
function interpolate(value: string | number, vars: Record<string, string>): string {
  return String(value).replace(
    /\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g,
    (_, name: string, op?: string, arg?: string) => {
      const set = vars[name];
      if (set) return set;
      if (op === '?') throw new Error(`${name} is required: ${arg}`);
      return op === '-' ? (arg ?? '') : '';
    },
  );
}
const serviceEnv = (s: Service, vars: Record<string, string>) =>
  Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(v, vars)]));

/** The Dockerfile as stages of [instruction, arguments], continuation lines joined. */
function dockerStages(): Array<{ from: string; name?: string; steps: Array<[string, string]> }> {
  const text = readFileSync('Dockerfile', 'utf8').replace(/\\\n/g, ' ');
  const stages: Array<{ from: string; name?: string; steps: Array<[string, string]> }> = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const [, op, args] = m as unknown as [string, string, string];
    if (op === 'FROM') {
      const [from, , name] = args.trim().split(/\s+/);
      stages.push({ from: from as string, ...(name && { name }), steps: [] });
    } else stages.at(-1)?.steps.push([op, args.trim()]);
  }
  return stages;
}
const stages = dockerStages();
const runtime = stages.at(-1)!;
const steps = (op: string) => runtime.steps.filter(([o]) => o === op).map(([, a]) => a);
/** Destination (relative to WORKDIR) → the source stage (`--from`) or the build context. */
function runtimeCopies(): Map<string, { from: string | null; sources: string[] }> {
  const copies = new Map<string, { from: string | null; sources: string[] }>();
  for (const args of steps('COPY')) {
    const words = args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
    const paths = words.filter((w) => !w.startsWith('--'));
    const dest = (paths.pop() as string).replace(/^\.\/?/, '').replace(/\/$/, '');
    copies.set(dest, { from, sources: paths });
  }
  return copies;
}

describe('docker-compose.yml', () => {
  const { app, postgres } = compose.services as { app: Service; postgres: Service };

  it('runs PostgreSQL and the app built from this Dockerfile; the app waits for a healthy database', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['app', 'postgres']);
    expect(postgres?.image).toMatch(/^postgres:\d+/);
    expect(app?.build).toBe('.');
    expect(existsSync('Dockerfile')).toBe(true);
    expect(app?.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it("PostgreSQL keeps its data in a named volume and its healthcheck asks for the app's database", () => {
    const pgEnv = serviceEnv(postgres!, {});
    expect(postgres?.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes)).toContain('pgdata');
    const test = ([] as string[]).concat(postgres?.healthcheck?.test ?? []).join(' ');
    expect(test).toContain(`pg_isready -U ${pgEnv.POSTGRES_USER} -d ${pgEnv.POSTGRES_DB}`);
  });

  it("every app setting is one the service reads, and together they pass the service's config schema", () => {
    const keys = Object.keys(app?.environment ?? {});
    expect(keys.filter((k) => !(k in configSchema.shape))).toEqual([]);
    const env = serviceEnv(app!, { TIMBRE_MASTER_KEY: TEST_MASTER_KEY });
    const config = parseConfig(env);
    expect(config.DATABASE_URL).toBe(env.DATABASE_URL);
    // Until a real PUBLIC_BASE_URL is given, links point at the published port.
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
  });

  it('TIMBRE_MASTER_KEY must be set: compose refuses to start without it', () => {
    expect(String(app?.environment?.TIMBRE_MASTER_KEY)).toMatch(/^\$\{TIMBRE_MASTER_KEY:\?.+\}$/);
    expect(() => serviceEnv(app!, {})).toThrow(/TIMBRE_MASTER_KEY is required/);
  });

  it('DATABASE_URL reaches the compose PostgreSQL with its user, password and database (also with POSTGRES_PASSWORD set)', () => {
    for (const vars of [{}, { POSTGRES_PASSWORD: 's3cret-from-env' }] as Array<Record<string, string>>) {
      const pgEnv = serviceEnv(postgres!, vars);
      const url = new URL(serviceEnv(app!, { TIMBRE_MASTER_KEY: TEST_MASTER_KEY, ...vars }).DATABASE_URL as string);
      expect(url.protocol).toBe('postgresql:');
      expect(url.hostname).toBe('postgres'); // the service's name on the compose network
      expect(url.port).toBe('5432');
      expect(decodeURIComponent(url.username)).toBe(pgEnv.POSTGRES_USER);
      expect(decodeURIComponent(url.password)).toBe(pgEnv.POSTGRES_PASSWORD);
      expect(url.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
    }
  });

  it('the published port, the PORT setting, the image EXPOSE and both healthchecks agree', () => {
    const env = serviceEnv(app!, { TIMBRE_MASTER_KEY: TEST_MASTER_KEY });
    expect(app?.ports).toEqual([`${env.PORT}:${env.PORT}`]);
    expect(steps('EXPOSE')).toEqual([env.PORT]);
    const test = ([] as string[]).concat(app?.healthcheck?.test ?? []).join(' ');
    expect(test).toContain(`http://127.0.0.1:${env.PORT}/health`);
    expect(steps('HEALTHCHECK').join(' ')).toMatch(/\/health/);
  });

  it("the SII defaults are the SII's certification hosts, never production", () => {
    const env = serviceEnv(app!, { TIMBRE_MASTER_KEY: TEST_MASTER_KEY });
    const sii = Object.entries(env).filter(([k]) => k.startsWith('SII_'));
    expect(sii.map(([k]) => k).sort()).toEqual([
      'SII_BOLETA_API_URL',
      'SII_BOLETA_UPLOAD_URL',
      'SII_DTEWS_URL',
      'SII_UPLOAD_URL',
    ]);
    for (const [, url] of sii) expect(new URL(url).hostname).toMatch(/^(maullin|apicert|pangal)\.sii\.cl$/);
  });
});

describe('Dockerfile', () => {
  let health = 0;
  beforeAll(async () => {
    const t = await buildTestApp();
    health = (await t.app.inject({ method: 'GET', url: '/health' })).statusCode;
  });

  it("runs `npm start`'s command: plain node with the same heap flag, on the compiled dist/server.js", () => {
    const cmd = JSON.parse(steps('CMD').at(-1) as string) as string[];
    // `npm start` sets its environment in front of the command; the image sets it with ENV.
    const start = pkg.scripts.start?.split(' ') ?? [];
    const assignments = start.filter((w) => /^[A-Z_]+=/.test(w));
    expect(cmd).toEqual(start.filter((w) => !assignments.includes(w)));
    expect(assignments).toEqual(['MALLOC_ARENA_MAX=2']);
    for (const a of assignments) expect(steps('ENV').join(' ')).toContain(a);
    expect(cmd).toContain('--max-old-space-size=192');
    expect(steps('ENTRYPOINT')).toEqual([]);
    // The compile step is the one `npm start` runs first (prestart).
    const build = stages.find((s) => s.name === 'build');
    expect(build?.steps.some(([op, a]) => op === 'RUN' && a.includes(`npx ${pkg.scripts.prestart}`))).toBe(true);
    expect(runtimeCopies().get('dist')).toEqual({ from: 'build', sources: ['/app/dist'] });
  });

  it('the runtime image holds every path the compiled service reads, with production dependencies only', () => {
    expect(steps('WORKDIR')).toEqual(['/app']);
    const copies = runtimeCopies();
    // ESM: dist/*.js are modules because package.json says "type": "module".
    expect(pkg.type).toBe('module');
    expect([...copies.values()].some((c) => c.from === null && c.sources.includes('package.json'))).toBe(true);
    // Read relative to the working directory / the compiled files: migrations, XSDs, SII certs, WSDLs.
    const cwd = `${process.cwd()}/`;
    for (const dir of [MIGRATIONS_DIR, SCHEMA_DIR, WSDL_DIR]) {
      const top = dir.slice(cwd.length).split('/')[0] as string;
      expect(copies.get(top), `${top} (for ${dir}) is not copied into the image`).toMatchObject({ from: null });
    }
    expect(copies.has('resources')).toBe(true);
    const deps = copies.get('node_modules');
    const depsStage = stages.find((s) => s.name === deps?.from);
    expect(depsStage?.steps.some(([op, a]) => op === 'RUN' && /npm ci .*--omit=dev/.test(a))).toBe(true);
  });

  it('installs no optional dependency (the embedded PostgreSQL), which src/ never imports statically', () => {
    const deps = runtimeCopies().get('node_modules');
    const depsStage = stages.find((s) => s.name === deps?.from);
    expect(depsStage?.steps.some(([op, a]) => op === 'RUN' && /npm ci .*--omit=optional/.test(a))).toBe(true);
    const optional = Object.keys(pkg.optionalDependencies ?? {});
    expect(optional.length).toBeGreaterThan(0);
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.name === 'generated' ? [] : e.isDirectory() ? sources(join(dir, e.name)) : [join(dir, e.name)],
      );
    const staticImports = (text: string) =>
      [...text.matchAll(/^\s*(import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)].map((m) => m[2]!);
    for (const file of sources('src').filter((f) => f.endsWith('.ts'))) {
      const imported = staticImports(readFileSync(file, 'utf8'));
      expect(
        imported.filter((i) => optional.some((o) => i === o || i.startsWith(`${o}/`))),
        file,
      ).toEqual([]);
    }
  });

  it('every file copied from the build context exists and is not excluded by .dockerignore', () => {
    const ignored = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const sources = stages.flatMap((s) =>
      s.steps
        .filter(([op, a]) => op === 'COPY' && !a.includes('--from='))
        .flatMap(([, a]) =>
          a
            .split(/\s+/)
            .filter((w) => !w.startsWith('--'))
            .slice(0, -1),
        ),
    );
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) {
      expect(existsSync(src), src).toBe(true);
      const glob = (p: string) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}(/|$)`);
      expect(
        ignored.filter((p) => glob(p).test(src)),
        `${src} is excluded by .dockerignore`,
      ).toEqual([]);
    }
  });

  it('runs as the unprivileged node user, with valid settings and no secret baked in', () => {
    expect(steps('USER')).toEqual(['node']);
    const env = Object.fromEntries(
      steps('ENV')
        .flatMap((a) => a.split(/\s+/))
        .map((kv) => kv.split('=') as [string, string]),
    );
    expect(Object.keys(env).sort()).toEqual(['HOST', 'MALLOC_ARENA_MAX', 'NODE_ENV', 'PORT', 'TIMBRE_DATA_DIR']);
    expect(parseConfig({ ...env, TIMBRE_MASTER_KEY: TEST_MASTER_KEY })).toMatchObject({ HOST: '0.0.0.0', PORT: 3000 });
    expect(readFileSync('Dockerfile', 'utf8')).not.toMatch(/MASTER_KEY|PASSWORD|SECRET/);
    // The data directory exists and belongs to the user the service runs as.
    expect(steps('RUN').join(' ')).toContain(`chown node:node ${env.TIMBRE_DATA_DIR}`);
  });

  it('the healthcheck path answers 200 on the service', () => {
    expect(steps('HEALTHCHECK').join(' ')).toContain("'/health'");
    expect(health).toBe(200);
  });
});
