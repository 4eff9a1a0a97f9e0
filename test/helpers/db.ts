import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

function databaseUrl(name: string): string {
  const u = new URL(inject('adminUrl'));
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh, migrated database cloned from the run's template. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `timbre_t_${inject('runId')}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: inject('adminUrl') });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject('templateDb')}"`);
        break;
      } catch (e) {
        // Two files cloning the template at the same instant: retry shortly.
        if (attempt > 20 || !/being accessed by other users/.test((e as Error).message)) throw e;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(name),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: inject('adminUrl') });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
