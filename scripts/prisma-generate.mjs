// Generates the Prisma client offline. Every Prisma CLI command first tries to download the
// native schema engine (from binaries.prisma.sh, unreachable offline); pointing
// PRISMA_SCHEMA_ENGINE_BINARY at a stub skips that download. `generate` never needs the engine.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'prisma', 'schema.prisma'))) process.exit(0);
execFileSync(process.execPath, [join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: join(root, 'scripts', 'no-schema-engine'),
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  },
});
