// Used by operators running the Prisma CLI (e.g. `prisma migrate deploy` against their own
// server). Timbre itself applies prisma/migrations at start (src/db/migrate.ts) and never
// needs the CLI at run time. Prisma 7 does not read .env by itself.
import 'dotenv/config';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
