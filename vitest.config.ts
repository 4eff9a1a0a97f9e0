import { defineConfig } from 'vitest/config';

/**
 * Files and the tests within them run in a shuffled order, so a test that needs an earlier one
 * cannot hide. The order comes from `TEST_SEED` when set (CI pins and prints it; the same seed
 * also drives the tests' own random choices, test/helpers/seed.ts), else from a fresh seed.
 * Either way it is printed, and `TEST_SEED=<n> npm test` replays the run.
 */
const given = process.env.TEST_SEED;
const seed = given && /^\d+$/.test(given) ? Number(given) : Math.floor(Math.random() * 2 ** 31);
if (!given) process.env.TEST_SEED = String(seed);
console.log(`[seed] order of files and tests: TEST_SEED=${seed}`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    sequence: { shuffle: { files: true, tests: true }, seed },
  },
});
